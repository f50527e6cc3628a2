import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  coerceArguments,
  createNativeCalls,
  createParser,
  DIALECT_VALUES,
  DIALECTS,
  type Dialect,
  type JsonSchema,
  type JsonValue,
  type NativeEvent,
  type ParseOptions,
  type ParserEvent,
  parse,
  planUpstream,
  type ToolArguments,
  toolPromptFor,
} from './support/all.js';
import { cutsArbitrary, expectCallsSettle, feedChunks, splitAt } from './support/chunk.js';
import { renderInDialect } from './support/dialect-render.js';
import { DIALECT_TOKENS } from './support/documents.js';
import { foldEvents } from './support/event-sequence.js';
import { doublingRatio } from './support/hostile-shapes.js';

type Written = Exclude<Dialect, 'tagcall'>;
/** Dialects whose arguments are a body read whole (JSON, Python, Gemma's): their deltas are a preview, or none (and `auto` has them). */
const JSON_BODIES: readonly string[] = [
  ...Object.entries(DIALECT_VALUES)
    .filter(([, values]) => values !== 'text')
    .map(([dialect]) => dialect),
  'auto',
];
/** Every dialect: its name comes before the end and its string values stream. */
const STREAMED = DIALECTS.filter((d): d is Written => d !== 'tagcall');
const TOOLS = ['write_file', 'read_file'];
const optionsFor = (dialect: Written | 'auto'): ParseOptions => ({ dialect, toolNames: TOOLS });

/** The decoded text streamed for each call, by key and index. */
function streamedValues(events: readonly ParserEvent[]): Map<string, Map<string, string[]>> {
  const byCall = new Map<string, Map<string, string[]>>();
  for (const e of events) {
    if (e.type !== 'argument-delta') continue;
    const values = byCall.get(e.id) ?? new Map<string, string[]>();
    byCall.set(e.id, values);
    const key = e.path.names[0];
    const list = values.get(key) ?? [];
    values.set(key, list);
    const index = e.path.indices[0];
    list[index] = (list[index] ?? '') + e.text;
  }
  return byCall;
}

/** Every string argument of every call equals the text streamed for it (a list: each element). */
function expectDeltasMatchCalls(events: readonly ParserEvent[]): void {
  const streamed = streamedValues(events);
  for (const e of events) {
    if (e.type !== 'tool-end') continue;
    const values = streamed.get(e.call.id) ?? new Map<string, string[]>();
    for (const [key, value] of Object.entries(e.call.arguments) as Array<[string, JsonValue]>) {
      const got = values.get(key) ?? [];
      if (typeof value === 'string') expect(got[0] ?? '', `${e.call.toolName}.${key}`).toBe(value);
      else if (Array.isArray(value))
        value.forEach((v, i) => {
          expect(got[i] ?? '', `${key}[${i}]`).toBe(v);
        });
    }
  }
}

// Cline's and Qwen's readers drop one newline at a value's ends: the file has none there.
const FILE = Array.from(
  { length: 400 },
  (_, i) => `line ${i}: if (a < b && c > d) { s = "</parameter> </tool_call> é 🎉"; }`,
).join('\n');

describe('every dialect streams: the name before the end, the value while it is written', () => {
  for (const dialect of STREAMED) {
    it(`${dialect}: a ${Math.round(FILE.length / 1024)} KB file, fed 64 characters at a time`, () => {
      // Hermes writes JSON: the file is escaped in it. The XML-ish dialects write it as is.
      const text = renderInDialect(dialect, 'write_file', { path: 'big.ts', content: FILE });
      const events: ParserEvent[] = [];
      let fed = 0;
      const at: Record<string, number> = {};
      const parser = createParser({
        ...optionsFor(dialect),
        onEvent: (e) => {
          events.push(e);
          if (at[e.type] === undefined) at[e.type] = fed;
        },
      });
      for (let i = 0; i < text.length; i += 64) {
        fed = i;
        parser.feed(text.slice(i, i + 64));
      }
      fed = text.length;
      parser.end();
      expect(at['tool-name']).toBeLessThan(200);
      expect(at['argument-delta']).toBeLessThan(400);
      expect(at['tool-end']).toBeGreaterThan(text.length - 64);
      // Most of the content came out before the end.
      const deltas = events.filter((e) => e.type === 'argument-delta');
      expect(deltas.length).toBeGreaterThan(FILE.length / 128);
      const end = events.find((e) => e.type === 'tool-end');
      expect(end?.type === 'tool-end' && end.call.arguments).toEqual({
        path: 'big.ts',
        content: FILE,
      });
      expectDeltasMatchCalls(events);
      expectCallsSettle(events);
    });
  }

  it('a string fed in chunks that hold nothing but its text is told chunk by chunk, not at its end', () => {
    const opens: Partial<Record<Dialect, string>> = {
      hermes: '<tool_call>{"name": "write_file", "arguments": {"content": "',
      'gpt-oss':
        '<|start|>assistant<|channel|>commentary to=functions.write_file <|constrain|>json<|message|>{"content": "',
      lfm2: '<|tool_call_start|>[write_file(content="',
      gemma4: '<|tool_call>call:write_file{content:<|"|>',
    };
    for (const [dialect, open] of Object.entries(opens) as Array<[Dialect, string]>) {
      const deltas: string[] = [];
      const parser = createParser({
        dialect,
        onEvent: (e) => {
          if (e.type === 'argument-delta') deltas.push(e.text);
        },
      });
      parser.feed(open);
      for (const chunk of ['line one', ' and two', ' and three']) {
        parser.feed(chunk);
        expect(deltas.join(''), dialect).toMatch(new RegExp(`${chunk}$`));
      }
    }
  });

  it("functionary v3.2's first call cut between \\r and \\n is the call read whole (the hold-back is derived from its pattern)", () => {
    const text = 'get_weather\r\n{"city": "Paris"}';
    const whole = parse(text, { dialect: 'functionary' }).calls;
    expect(whole.map((c) => [c.toolName, c.arguments])).toEqual([
      ['get_weather', { city: 'Paris' }],
    ]);
    const cut = feedChunks(['get_weather\r', '\n{"city": "Paris"}'], { dialect: 'functionary' });
    expect(cut.result.calls).toEqual(whole);
  });

  it('an opening that can no longer become one is decided at once, not held back to the end (its hold-back is derived from its pattern)', () => {
    const events: ParserEvent[] = [];
    const parser = createParser({ dialect: 'qwen3-coder', onEvent: (e) => events.push(e) });
    // `<function=name` then a newline: no `>` can come, so this is no opening (vLLM's case).
    parser.feed('<tool_call>\n<function=get_current_weather\n<param');
    expect(events.map((e) => (e.type === 'error' ? e.code : e.type))).toContain(
      'missing-tool-name',
    );
    expect(
      events.some((e) => e.type === 'text' && e.text.startsWith('<function=get_current_weather\n')),
    ).toBe(true);
    parser.feed('eter=city>Dallas</parameter>\n</function>\n</tool_call>');
    parser.end();
    expect(events.filter((e) => e.type === 'tool-end')).toEqual([]);
  });

  it('auto streams Qwen3-Coder and Hermes <tool_call> bodies alike', () => {
    for (const dialect of ['qwen3-coder', 'hermes'] as const) {
      const text = renderInDialect(dialect, 'write_file', { path: 'a', content: FILE });
      const { events } = feedChunks(splitAt(text, [500, 1000, 5000]), optionsFor('auto'));
      expect(events.map((e) => e.type).slice(0, 3)).toEqual([
        'tool-start',
        'tool-name',
        'argument-delta',
      ]);
      expectDeltasMatchCalls(events);
    }
  });
});

/** Text made of each dialect's own tokens, in any order: every mistake a model can make. */
const soup = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        ...DIALECT_TOKENS,
        '<function=write_file>',
        '<function=read_file/>',
        '<parameter=path>',
        '<parameter=content>',
        '<invoke name="read_file">',
        '<parameter name="path">',
        '<write_file>',
        '</write_file>',
        '<content>',
        '</content>',
        '{"name": "read_file", "arguments": {"path": "a\\n</tool_call>"}}',
        "{'name': 'note', 'arguments': {'text': 'x',},}",
        '\r\n',
        'a < b & c',
        '🎉',
      ),
      fc.string({ maxLength: 6 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

describe('streamed values are the final values, whatever the text and the chunking', () => {
  for (const dialect of [...DIALECTS.filter((d) => d !== 'tagcall'), 'auto'] as const) {
    it(`${dialect}: token soup, random chunkings`, () => {
      fc.assert(
        fc.property(soup, cutsArbitrary, (text, cuts) => {
          const options = optionsFor(dialect);
          const { result, events } = feedChunks(splitAt(text, cuts), options);
          expect(result).toEqual(parse(text, options));
          // A JSON body's deltas are a preview: the parse at its end may read it otherwise.
          if (!JSON_BODIES.includes(dialect)) expectDeltasMatchCalls(events);
          expectCallsSettle(events);
        }),
        { numRuns: 400 },
      );
    });
  }

  // Bodies read whole at their end (JSON, Python calls, Gemma's syntax) preview their string
  // arguments: as the model's own renderer writes them, the preview is exactly the value.
  for (const dialect of [
    'hermes',
    'functionary',
    'lfm2',
    'minicpm3',
    'olmo3',
    'llama4',
    'gemma4',
  ] as const) {
    it(`${dialect}: a well-written call streams its string arguments exactly`, () => {
      const value = fc.string({ unit: 'grapheme', maxLength: 30 });
      fc.assert(
        fc.property(
          fc.dictionary(fc.constantFrom('path', 'content', 'q'), value, { minKeys: 1 }),
          cutsArbitrary,
          (args, cuts) => {
            const text = renderInDialect(dialect, 'write_file', args as ToolArguments);
            const { events } = feedChunks(splitAt(text, cuts), optionsFor(dialect));
            expectDeltasMatchCalls(events);
            expectCallsSettle(events);
            expect(events.filter((e) => e.type === 'tool-end')).toHaveLength(1);
          },
        ),
        { numRuns: 300 },
      );
    });
  }
});

describe('a `<` in a value: text once what follows it shows it ends nothing', () => {
  // Code is dense in `<`, and every family's closes begin with one: a `<` is the value's text
  // once the characters after it, in the same chunk or the next, show no tag or close.
  const CODE =
    'if (a<b && x <<= 2) f("<|", \'<|tool_call_en\' + "<|cal" + "<｜tool▁call▁en" + `<p` + `<t` + <x); <|im_x < END';
  const sameAtEveryChunkSize = (dialect: Written, text: string) => {
    const whole = feedChunks([text], optionsFor(dialect)).events;
    for (let size = 1; size <= 9; size++) {
      const chunks = text.match(new RegExp(`[^]{1,${size}}`, 'gu')) ?? [];
      const { events } = feedChunks(chunks, optionsFor(dialect));
      expect(foldEvents(events), `${dialect} in ${size}-character chunks`).toEqual(
        foldEvents(whole),
      );
      expectDeltasMatchCalls(events);
    }
    return whole;
  };
  for (const dialect of STREAMED) {
    it(`${dialect}: the same events and the exact value at every chunk size`, () => {
      const call = renderInDialect(dialect, 'write_file', { path: 'a.ts', content: CODE });
      const end = sameAtEveryChunkSize(dialect, `Before.\n${call}\nAfter.`).find(
        (e) => e.type === 'tool-end',
      );
      expect(end?.type === 'tool-end' && end.call.arguments, dialect).toEqual({
        path: 'a.ts',
        content: CODE,
      });
      // The string left open up to the close: where the close stands is decided alike too.
      const marker = call.indexOf('END') + 3;
      const close = call.indexOf('<', marker);
      if (close !== -1)
        sameAtEveryChunkSize(dialect, `${call.slice(0, marker)}${call.slice(close)}\nAfter.`);
    });
  }
});

describe('the adapters pass dialect arguments on as they stream', () => {
  it('OpenAI-style fragments for a Qwen3-Coder call concatenate to its JSON, most before the end', () => {
    const text = renderInDialect('qwen3-coder', 'write_file', { path: 'a.ts', content: FILE });
    const events: NativeEvent[] = [];
    const native = createNativeCalls(
      {
        tools: [{ name: 'write_file', inputSchema: { type: 'object' } }],
        idPrefix: 'c',
        parser: { dialect: 'qwen3-coder' },
      },
      (e) => events.push(e),
    );
    let deltasBeforeEnd = 0;
    for (let i = 0; i < text.length; i += 100) {
      native.feed(text.slice(i, i + 100));
      if (i + 100 < text.length)
        deltasBeforeEnd = events.filter((e) => e.type === 'call-delta').length;
    }
    native.end();
    expect(deltasBeforeEnd).toBeGreaterThan(10);
    const json = events
      .filter((e) => e.type === 'call-delta' || e.type === 'call-end')
      .map((e) => ('json' in e ? e.json : ''))
      .join('');
    expect(JSON.parse(json)).toEqual({ path: 'a.ts', content: FILE });
  });
});

describe('recoveries are said, never silent', () => {
  it('Hermes JSON a model clearly meant is read through a repair, with repaired-json', () => {
    const bodies = [
      '{"name": "q", "arguments": {"text": "line one\nline two\tend"}}',
      '{"name": "q", "arguments": {"text": "x",},}',
      "{'name': 'q', 'arguments': {'text': 'x'}}",
      '{name: "q", arguments: {text: "x"}}',
      '{"name": "q", /* the tool */ "arguments": {"text": "x"}}',
      '{"name": "q", "arguments": {"text": "x"}',
    ];
    for (const body of bodies) {
      const { calls, warnings, errors } = parse(`<tool_call>\n${body}\n</tool_call>\n`, {
        dialect: 'hermes',
      });
      expect(errors, body).toEqual([]);
      expect(calls, body).toHaveLength(1);
      expect(calls[0].toolName).toBe('q');
      expect(warnings.map((w) => w.code)).toEqual(['repaired-json']);
    }
  });

  it('JSON cut inside a string is a value cut short, never repaired into a call', () => {
    // A special-token close ends the body wherever it stands: here inside a string.
    const { calls, errors } = parse(
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write<｜tool▁sep｜>{"content": "half a fi<｜tool▁call▁end｜><｜tool▁calls▁end｜>\n',
      { dialect: 'deepseek' },
    );
    expect(calls).toEqual([]);
    expect(errors.map((e) => e.code)).toEqual(['invalid-json']);
    // Hermes' close inside an open string is no close: the block never ends, and is no call.
    const hermes = parse(
      '<tool_call>\n{"name": "write", "arguments": {"content": "half a fi\n</tool_call>\n',
      { dialect: 'hermes' },
    );
    expect(hermes.calls).toEqual([]);
    expect(hermes.errors.map((e) => e.code)).toEqual(['incomplete-tool-call']);
  });

  it('the deprecated <tool> JSON form is repaired too', () => {
    const { calls, warnings } = parse('<tool>{"tool_name": "q", "arguments": {"a": 1,}}</tool>\n');
    expect(calls[0].arguments).toEqual({ a: 1 });
    expect(warnings.map((w) => w.code)).toEqual(['deprecated-json-format', 'repaired-json']);
  });

  it('a repeated parameter the schema says is no list keeps its last value', () => {
    const text =
      '<tool_call>\n<function=read_file>\n<parameter=path>\na\n</parameter>\n<parameter=path>\nb\n</parameter>\n</function>\n</tool_call>';
    const schemas = { read_file: { type: 'object', properties: { path: { type: 'string' } } } };
    const listed = parse(text, { dialect: 'qwen3-coder' });
    expect(listed.calls[0].arguments).toEqual({ path: ['a', 'b'] });
    const last = parse(text, { dialect: 'qwen3-coder', schemas });
    expect(last.calls[0].arguments).toEqual({ path: 'b' });
    expect(last.warnings.map((w) => [w.code, w.message])).toEqual([
      ['duplicate-field', expect.stringContaining('the last is kept')],
    ]);
    // As docs/parser.md states: the warning, then the last value's deltas under index 1.
    for (const size of [1, 3, text.length]) {
      const events: ParserEvent[] = [];
      const parser = createParser({
        dialect: 'qwen3-coder',
        schemas,
        onEvent: (e) => events.push(e),
      });
      for (let i = 0; i < text.length; i += size) parser.feed(text.slice(i, i + size));
      parser.end();
      const told = events.flatMap((e) =>
        e.type === 'warning'
          ? [e.code]
          : e.type === 'argument-delta'
            ? [`${e.path.names[0]}[${e.path.indices[0]}]`]
            : [],
      );
      expect([...new Set(told)]).toEqual(['path[0]', 'duplicate-field', 'path[1]']);
      const joined = (index: number) =>
        events
          .map((e) => (e.type === 'argument-delta' && e.path.indices[0] === index ? e.text : ''))
          .join('');
      expect([joined(0), joined(1)]).toEqual(['a', 'b']);
    }
  });

  it('a list item that is no call object leaves the call before it as streamed (found by the native-calls property)', () => {
    for (const [dialect, text] of [
      ['granite', '<|tool_call|>[{"name":"e", "parameters":{"a":"n"}},"x"]'],
      ['granite', '<|tool_call|>[{"name":"e" "parameters":{"a":"n"}}""]'],
      ['mistral', '[TOOL_CALLS][{"name":"e", "arguments":{"a":"n"}}, 3]'],
      // A list in the list: its object is no argument of the call before it (xLAM, at 8× runs).
      ['xlam', '[{"name":"e","arguments":{"a":"n"}}[{"name": "read_file", "arguments": {}}]]'],
    ] as const)
      for (const size of [1, 3, text.length]) {
        const events: ParserEvent[] = [];
        const parser = createParser({ dialect, onEvent: (e) => events.push(e) });
        for (let i = 0; i < text.length; i += size) parser.feed(text.slice(i, i + size));
        parser.end();
        const ends = events.flatMap((e) => (e.type === 'tool-end' ? [e.call.arguments] : []));
        expect(ends, text).toEqual([{ a: 'n' }]);
        // Nothing streamed but the call's own argument.
        const streamed = events.flatMap((e) => (e.type === 'argument-delta' ? [e.path.names] : []));
        expect(new Set(streamed.map((names) => names.join('.'))), text).toEqual(new Set(['a']));
        expect(
          events.filter((e) => e.type === 'error').map((e) => e.type === 'error' && e.code),
        ).toEqual(['invalid-json']);
      }
  });

  it('Qwen3-Coder: a value may hold </tool_call> (then more text); a block left open after a call ends with the input', () => {
    const code = 'if (s.endsWith("</tool_call>")) done();\n</function> is text too';
    const text = `<tool_call>\n<function=write_file>\n<parameter=content>\n${code}\n</parameter>\n</function>\n</tool_call>\nok\n`;
    expect(parse(text, { dialect: 'qwen3-coder' }).calls[0].arguments).toEqual({ content: code });
    const open = parse(
      '<tool_call>\n<function=read_file>\n<parameter=path>\na\n</parameter>\n</function>\n',
      { dialect: 'qwen3-coder' },
    );
    expect(open.calls[0].arguments).toEqual({ path: 'a' });
    expect(open.warnings.map((w) => w.code)).toEqual(['unclosed-call-at-end']);
  });

  it('Qwen3-Coder: a call left open ends at the next call that begins a line', () => {
    const text =
      '<tool_call>\n<function=read_file>\n<parameter=path>\na\n</parameter>\n<function=read_file>\n<parameter=path>\nb\n</parameter>\n</function>\n</tool_call>';
    const { calls, warnings } = parse(text, { dialect: 'qwen3-coder' });
    expect(calls.map((c) => c.arguments)).toEqual([{ path: 'a' }, { path: 'b' }]);
    expect(warnings.map((w) => w.code)).toEqual(['unclosed-element']);
  });
});

describe('streaming costs stay linear', () => {
  it('a Qwen3-Coder value of n and 2n characters full of unconfirmed closes, fed 4 at a time', () => {
    const { ratio } = doublingRatio((n) => {
      const text = `<tool_call>\n<function=w>\n<parameter=c>\n${'a</parameter>b\n'.repeat(n / 16)}\n</parameter>\n</function>\n</tool_call>`;
      return () => {
        const parser = createParser({ dialect: 'qwen3-coder', onEvent: () => {} });
        for (let i = 0; i < text.length; i += 4) parser.feed(text.slice(i, i + 4));
        parser.end();
      };
    }, 50_000);
    expect(ratio).toBeLessThan(3);
  });

  it('a Hermes body of n and 2n characters of escapes and quotes, whole and fed 4 at a time', () => {
    for (const chunk of [0, 4]) {
      const { ratio } = doublingRatio((n) => {
        const value = '\\\\\\"</tool_call>\\n'.repeat(n / 16);
        const text = `<tool_call>{"name": "w", "arguments": {"c": "${value}"}}</tool_call>`;
        return () => {
          const parser = createParser({ dialect: 'hermes', onEvent: () => {} });
          if (chunk === 0) parser.feed(text);
          else for (let i = 0; i < text.length; i += chunk) parser.feed(text.slice(i, i + chunk));
          parser.end();
        };
      }, 50_000);
      expect(ratio, `chunk ${chunk}`).toBeLessThan(3);
    }
  });
});

describe('a model is taught the format it was trained on', () => {
  const tools = [
    {
      serverName: 'local',
      name: 'write_file',
      description: 'Write a file.',
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string' }, lines: { type: 'integer' } },
      } as JsonSchema,
    },
  ];

  for (const dialect of DIALECTS.filter((d) => d !== 'tagcall'))
    it(`${dialect}: the prompt's example is a call the parser reads back in that dialect`, () => {
      const prompt = toolPromptFor(tools, { dialect });
      const example = prompt.slice(prompt.indexOf('Example:\n\n') + 'Example:\n\n'.length).trim();
      const { calls, errors } = parse(example, { dialect, toolNames: ['write_file'] });
      expect(errors).toEqual([]);
      expect(calls.map((c) => [c.format, c.toolName])).toEqual([[dialect, 'write_file']]);
      expect(coerceArguments(calls[0].arguments, tools[0].inputSchema)).toEqual({
        path: 'path here',
        lines: 1,
      });
      expect(prompt).not.toContain('<tool>');
    });

  it('tagcall serve writes earlier calls in the dialect and teaches it', () => {
    const plan = planUpstream(
      {
        model: 'm',
        messages: [
          { role: 'user', content: 'Write it.' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: 'write_file', arguments: '{"path": "a.ts", "lines": 3}' },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'written' },
        ],
        tools: [{ type: 'function', function: { name: 'write_file', parameters: {} } }],
      },
      { dialect: 'qwen3-coder' },
    );
    const sent = plan.body.messages as Array<{ role: string; content: string }>;
    expect(sent[0].content).toContain('<function=NAME>');
    expect(sent[2].content).toBe(
      '<tool_call>\n<function=write_file>\n<parameter=path>\na.ts\n</parameter>\n<parameter=lines>\n3\n</parameter>\n</function>\n</tool_call>',
    );
  });
});
