import { describe, expect, it } from 'vitest';
import {
  createParser,
  type ParseOptions,
  type ParserEvent,
  parse,
  parseStream,
  ToolCallStream,
} from './support/all.js';

/** Feeds chunks one by one and records which events each chunk released. */
function eventsPerChunk(chunks: readonly string[], options: ParseOptions = {}): ParserEvent[][] {
  const steps: ParserEvent[][] = [];
  let current: ParserEvent[] = [];
  const parser = createParser({
    prefilledThinking: 'never',
    ...options,
    onEvent: (e) => current.push(e),
  });
  for (const chunk of chunks) {
    parser.feed(chunk);
    steps.push(current);
    current = [];
  }
  parser.end();
  steps.push(current);
  return steps;
}

const CALL_HEAD =
  '<tool>\n<server_name>fs</server_name>\n<tool_name>write_to_file</tool_name>\n<arguments>\n';

describe('tool-start and tool-name come as soon as they are known', () => {
  it('emits tool-start at <tool> and tool-name at </tool_name>, before the call ends', () => {
    const steps = eventsPerChunk([
      'Hi\n<tool>\n',
      '<server_name>fs</server_name>\n<tool_name>wr',
      'ite</tool_name>\n',
    ]);
    expect(steps[0]).toContainEqual({ type: 'tool-start', id: 'call_0', offset: 3 });
    expect(steps[1].some((e) => e.type === 'tool-name')).toBe(false);
    expect(steps[2]).toContainEqual({
      type: 'tool-name',
      id: 'call_0',
      serverName: 'fs',
      toolName: 'write',
    });
  });
});

describe('argument-delta streams a value while it is written', () => {
  it('releases content chunk by chunk, decoded, with its path', () => {
    const steps = eventsPerChunk([
      CALL_HEAD,
      '<content>line 1 &amp;',
      ' more\n',
      'line 2</content>\n</arguments>\n</tool>\n',
    ]);
    const deltas = steps.map((s) =>
      s
        .filter((e) => e.type === 'argument-delta')
        .map((e) => e.type === 'argument-delta' && e.text)
        .join(''),
    );
    expect(deltas[1]).toBe('line 1 &');
    expect(deltas[2]).toBe(' more\n');
    expect(deltas[3]).toBe('line 2');
    const first = steps[1].find((e) => e.type === 'argument-delta');
    expect(first).toMatchObject({ id: 'call_0', path: { names: ['content'], indices: [0] } });
  });

  it('streams a 200 KB CDATA body in pieces, never holding more than a few characters', () => {
    const body = 'x'.repeat(200_000);
    const text = `${CALL_HEAD}<content><![CDATA[${body}]]></content>\n</arguments>\n</tool>\n`;
    let longestHeld = 0;
    let received = 0;
    const parser = createParser({
      prefilledThinking: 'never',
      onEvent: (e) => {
        if (e.type === 'argument-delta') received += e.text.length;
      },
    });
    let fed = 0;
    for (let i = 0; i < text.length; i += 1000) {
      parser.feed(text.slice(i, i + 1000));
      fed = Math.min(text.length, i + 1000);
      const bodyStart = CALL_HEAD.length + '<content><![CDATA['.length;
      if (fed > bodyStart && fed < bodyStart + body.length)
        longestHeld = Math.max(longestHeld, fed - bodyStart - received);
    }
    parser.end();
    expect(received).toBe(body.length);
    expect(longestHeld).toBeLessThanOrEqual(2);
  });

  it('gives repeated elements distinct indices', () => {
    const steps = eventsPerChunk([`${CALL_HEAD}<tags>a</tags><tags>b</tags></arguments></tool>\n`]);
    const paths = steps
      .flat()
      .flatMap((e) => (e.type === 'argument-delta' ? [e.path.indices] : []));
    expect(paths).toEqual([[0], [1]]);
  });
});

describe('hold-back: text is released as soon as it cannot start a construct', () => {
  it('releases prose at once and holds only a possible tag at a line start', () => {
    const steps = eventsPerChunk(['Some prose with a < b\n<to', 'ol>']);
    expect(steps[0]).toEqual([{ type: 'text', text: 'Some prose with a < b\n' }]);
    expect(steps[1][0]).toMatchObject({ type: 'tool-start' });
  });

  it('holds a line-start bracket until its ] decides, then releases it as thinking or text', () => {
    const steps = eventsPerChunk(['[thinking about', ' it]', '\nok\n']);
    expect(steps[0]).toEqual([]);
    expect(steps[1]).toEqual([]);
    expect(steps[2].map((e) => e.type)).toEqual([
      'thinking-start',
      'thinking-delta',
      'thinking-end',
      'text',
    ]);
  });

  it('releases an unclosed bracket as text once maxHold characters pass', () => {
    const steps = eventsPerChunk(['[never closed ', 'x'.repeat(30), 'y'.repeat(50)], {
      maxHold: 60,
    });
    expect(steps[1]).toEqual([]);
    expect(steps[2].map((e) => (e.type === 'text' ? e.text : '')).join('')).toContain(
      '[never closed',
    );
  });

  it("in 'auto' mode holds the reply's start until a </think> or maxHold decides it", () => {
    const auto = eventsPerChunk(['The answer', ' is 42.'], {
      prefilledThinking: 'auto',
      maxHold: 1000,
    });
    expect(auto[0]).toEqual([]);
    expect(auto[1]).toEqual([]);
    // Decided at the end: the held text goes out as one event, as whole input gives it.
    expect(auto[2]).toEqual([{ type: 'text', text: 'The answer is 42.' }]);
    const never = eventsPerChunk(['The answer', ' is 42.'], { prefilledThinking: 'never' });
    expect(never[0]).toEqual([{ type: 'text', text: 'The answer' }]);
  });

  it("in 'auto' mode the events held with the start's text keep their place in it", () => {
    // A bracket thinking block does not decide the start: its events wait with the text.
    const steps = eventsPerChunk(['Intro', '.\n[plan', ' it]\nAfter', ' that.'], {
      prefilledThinking: 'auto',
    });
    expect(steps.slice(0, 4).flat()).toEqual([]);
    expect(
      steps[4].map((e) =>
        e.type === 'text' || e.type === 'thinking-delta' ? `${e.type}:${e.text}` : e.type,
      ),
    ).toEqual([
      'text:Intro.\n',
      'thinking-start',
      'thinking-delta:plan it',
      'thinking-end',
      'text:\nAfter that.',
    ]);
  });

  it("in 'auto' mode a call settles it at once: no pre-filled thinking before a call", () => {
    const steps = eventsPerChunk(['Reading.\n<tool>'], { prefilledThinking: 'auto' });
    expect(steps[0].map((e) => e.type)).toEqual(['text', 'tool-start']);
  });

  it("'always' streams thinking from the first character", () => {
    const steps = eventsPerChunk(['reasoning', '</think>answer'], { prefilledThinking: 'always' });
    expect(steps[0]).toEqual([
      { type: 'thinking-start', offset: 0, format: 'prefilled' },
      { type: 'thinking-delta', text: 'reasoning' },
    ]);
    expect(steps[1]).toEqual([
      { type: 'thinking-end', offset: 17 },
      { type: 'text', text: 'answer' },
    ]);
  });
});

describe('unicode', () => {
  it('never splits a surrogate pair across events when a chunk boundary does', () => {
    const text = `😀 prose 😀\n${CALL_HEAD}<content>😀😀</content></arguments></tool>\n<think>😀</think>\n`;
    const units = text.split('');
    for (const event of eventsPerChunk(units).flat()) {
      const s = 'text' in event ? event.text : '';
      if (s.length > 0) {
        expect(s.charCodeAt(s.length - 1) >= 0xd800 && s.charCodeAt(s.length - 1) <= 0xdbff).toBe(
          false,
        );
        expect(s.charCodeAt(0) >= 0xdc00 && s.charCodeAt(0) <= 0xdfff).toBe(false);
      }
    }
  });
});

describe('limits end runaway calls with an error event', () => {
  it('maxCallBytes: the block fails at the cap and its text is given back', () => {
    const text = `${CALL_HEAD}<content>${'a'.repeat(500)}</content></arguments></tool>\nafter\n`;
    const result = parse(text, { maxCallBytes: 200 });
    expect(result.calls).toEqual([]);
    expect(result.errors).toMatchObject([
      { code: 'max-call-bytes-exceeded', offset: 200, callId: 'call_0' },
    ]);
    expect(result.text).toBe(text);
  });

  it('maxDepth: nesting deeper than the limit fails the call', () => {
    const text = `${CALL_HEAD}<a><b><c>deep</c></b></a></arguments></tool>\n`;
    expect(parse(text, { maxDepth: 2 }).errors).toMatchObject([{ code: 'max-depth-exceeded' }]);
    expect(parse(text, { maxDepth: 3 }).calls[0].arguments).toEqual({ a: { b: { c: 'deep' } } });
  });
});

describe('arguments are plain data', () => {
  it('builds them on null-prototype objects, so __proto__ is a key and nothing is polluted', () => {
    const result = parse(
      `${CALL_HEAD}<__proto__><polluted>yes</polluted></__proto__></arguments></tool>\n`,
    );
    const args = result.calls[0].arguments;
    expect(Object.getPrototypeOf(args)).toBe(null);
    expect(Object.keys(args)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('does the same for the JSON form', () => {
    const result = parse(
      '<tool>{"tool_name": "x", "arguments": {"__proto__": {"polluted": 1}}}</tool>\n',
    );
    expect(Object.getPrototypeOf(result.calls[0].arguments)).toBe(null);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('schemas shape arguments while they stream', () => {
  const schemas = {
    write_to_file: {
      type: 'object',
      properties: {
        content: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
      },
    },
  };
  it('a string argument keeps inner markup verbatim', () => {
    const result = parse(
      `${CALL_HEAD}<content><p>hi</p></content><tags>one</tags></arguments></tool>\n`,
      { schemas },
    );
    expect(result.calls[0].arguments).toEqual({ content: '<p>hi</p>', tags: ['one'] });
    expect(
      parse(`${CALL_HEAD}<content><p>hi</p></content></arguments></tool>\n`).calls[0].arguments,
    ).toEqual({
      content: { p: 'hi' },
    });
  });
});

describe('the JSON form', () => {
  it('reports invalid JSON with the position of the fault', () => {
    // Past repair: a value where a key should be (a trailing comma would be repaired).
    const text = '<tool>{"tool_name": "x", "arguments": {"a": 1 "b"}}</tool>\n';
    const [error] = parse(text).errors;
    expect(error.code).toBe('invalid-json');
    expect(text.slice(error.offset)).toMatch(/^"b"/);
  });
});

describe('reset and reuse', () => {
  it('forgets a half-read call', () => {
    const events: ParserEvent[] = [];
    const parser = createParser({ onEvent: (e) => events.push(e) });
    parser.feed('<tool>\n<tool_name>a');
    parser.reset();
    events.length = 0;
    parser.feed('plain\n');
    parser.end();
    expect(events).toEqual([{ type: 'text', text: 'plain\n' }]);
  });

  it('uses generateId for call ids', () => {
    const result = parse('<tool><tool_name>a</tool_name></tool>\n', {
      generateId: (i) => `msg7-${i}`,
    });
    expect(result.calls[0].id).toBe('msg7-0');
  });
});

describe('stream wrappers', () => {
  const text = 'Hi\n<tool>\n<tool_name>a</tool_name>\n</tool>\n';
  it('ToolCallStream turns text chunks into the same events', async () => {
    const readable = new ReadableStream<string>({
      start(controller) {
        for (const chunk of text.match(/.{1,3}/gs) ?? []) controller.enqueue(chunk);
        controller.close();
      },
    });
    const events: ParserEvent[] = [];
    for await (const event of readable.pipeThrough(new ToolCallStream())) events.push(event);
    expect(events.find((e) => e.type === 'tool-end')).toMatchObject({ call: { toolName: 'a' } });
  });

  it('parseStream iterates events of an async iterable', async () => {
    async function* chunks() {
      yield text.slice(0, 5);
      yield text.slice(5);
    }
    const types: string[] = [];
    for await (const event of parseStream(chunks())) types.push(event.type);
    expect(types).toEqual(['text', 'tool-start', 'tool-name', 'tool-end', 'text']);
  });
});

describe('bounded hold-back on long runs', () => {
  it('releases a line of 10,000 backticks instead of holding it as a possible fence', () => {
    const steps = eventsPerChunk(Array.from({ length: 100 }, () => '`'.repeat(100)));
    const held = steps
      .slice(0, 100)
      .reduce(
        (total, s) => total + s.reduce((n, e) => n + (e.type === 'text' ? e.text.length : 0), 0),
        0,
      );
    expect(held).toBeGreaterThanOrEqual(10_000 - 300);
  });
});

describe('bounded hold-back after a closing bracket or a closing tag', () => {
  const textOfSteps = (steps: ParserEvent[][]) =>
    steps
      .slice(0, -1)
      .flat()
      .reduce(
        (n, e) => n + (e.type === 'text' || e.type === 'argument-delta' ? e.text.length : 0),
        0,
      );

  it('does not hold a thinking candidate while blanks follow its ] without end', () => {
    const steps = eventsPerChunk([
      '[maybe thinking]',
      ...Array.from({ length: 50 }, () => ' '.repeat(100)),
    ]);
    expect(textOfSteps(steps)).toBeGreaterThan(4000);
  });

  it('does not hold a </tool> inside a value while blanks follow it without end', () => {
    const steps = eventsPerChunk([
      `${CALL_HEAD}<content>x</tool>`,
      ...Array.from({ length: 50 }, () => ' '.repeat(100)),
    ]);
    expect(textOfSteps(steps)).toBeGreaterThan(4000);
  });
});
