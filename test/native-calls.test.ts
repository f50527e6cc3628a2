import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  coerceArguments,
  createNativeCalls,
  type JsonSchema,
  type NativeEvent,
  type NativeTool,
  type ParseOptions,
  parse,
  renderCall,
} from './support/all.js';
import { cutsArbitrary, splitAt } from './support/chunk.js';
import { ALL_DIALECTS, dialectInputs, optionsOf, replyIn } from './support/dialect-inputs.js';
import { delimiterSoupArbitrary, documentArbitrary } from './support/documents.js';
import { treeArbitrary } from './support/trees.js';

const editSchema: JsonSchema = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    mode: { type: 'string', enum: ['fast', 'safe'] },
    count: { type: 'integer' },
    tags: { type: 'array', items: { type: 'string' } },
    content: { type: 'string' },
  },
  required: ['path'],
};
const tools: NativeTool[] = [{ name: 'edit', inputSchema: editSchema }];

function translate(chunks: readonly string[], toolList = tools, parser: ParseOptions = {}) {
  const events: NativeEvent[] = [];
  const native = createNativeCalls({ tools: toolList, idPrefix: 'c', parser }, (e) =>
    events.push(e),
  );
  for (const chunk of chunks) native.feed(chunk);
  native.end();
  const json = new Map<string, string>();
  for (const e of events) {
    if (e.type === 'call-start') json.set(e.id, '');
    if (e.type === 'call-delta' || e.type === 'call-end' || e.type === 'call-failed')
      json.set(e.id, `${json.get(e.id) ?? ''}${e.json}`);
  }
  return { events, json, calls: native.calls };
}

const text = fc.string({ unit: 'grapheme', maxLength: 12 });

describe('native calls from the text protocol', () => {
  it('streams string arguments while they are written', () => {
    const call = renderCall({
      toolName: 'edit',
      arguments: { path: 'a.txt', count: '3', content: 'line 1\nline 2' },
    });
    const { events, json } = translate([...call]);
    // Strings as written, then the rest; nothing written twice.
    expect(json.get('c0')).toBe('{"path":"a.txt","content":"line 1\\nline 2","count":3}');
    const deltas = events.filter((e) => e.type === 'call-delta');
    // One fragment per character of the string values, and nothing for `count` until the end.
    expect(deltas.length).toBeGreaterThan(10);
    const end = events.find((e) => e.type === 'call-end');
    expect(end).toMatchObject({
      name: 'edit',
      argumentsJson: '{"path":"a.txt","count":3,"content":"line 1\\nline 2"}',
    });
  });

  it('fragments concatenate to JSON of the coerced arguments, whatever the chunking', () => {
    const args = fc.record(
      {
        path: text,
        mode: fc.constantFrom('fast', ' safe '),
        count: fc.integer().map(String),
        tags: fc.array(text, { minLength: 1, maxLength: 3 }),
        content: text,
        extra: text,
      },
      { requiredKeys: ['path'] },
    );
    fc.assert(
      fc.property(args, cutsArbitrary, (a, cuts) => {
        const reply = `Doing it.\n${renderCall({ toolName: 'edit', arguments: a })}\nDone.`;
        const { events, json } = translate(splitAt(reply, cuts));
        const end = events.find((e) => e.type === 'call-end');
        expect(end?.type).toBe('call-end');
        if (end?.type !== 'call-end') return;
        const expected = coerceArguments(parse(reply).calls[0].arguments, editSchema);
        expect(JSON.parse(json.get(end.id) ?? '')).toEqual({ ...expected });
        expect(JSON.parse(end.argumentsJson)).toEqual({ ...expected });
      }),
      { numRuns: 500 },
    );
  });

  it('argument trees without a schema come out as their JSON, surrogate pairs split or not', () => {
    fc.assert(
      fc.property(treeArbitrary(text), cutsArbitrary, (tree, cuts) => {
        const reply = renderCall({ toolName: 'anything', arguments: tree });
        const { events, json } = translate(splitAt(reply, cuts), []);
        const end = events.find((e) => e.type === 'call-end');
        if (end?.type !== 'call-end') throw new Error('no call');
        expect(JSON.parse(json.get(end.id) ?? '')).toEqual(JSON.parse(end.argumentsJson));
      }),
      { numRuns: 500 },
    );
  });

  it('every call that starts has JSON that parses, even when the reply is broken', () => {
    fc.assert(
      fc.property(
        fc.oneof(documentArbitrary, delimiterSoupArbitrary),
        cutsArbitrary,
        (doc, cuts) => {
          const { events, json } = translate(splitAt(doc, cuts));
          for (const value of json.values()) expect(() => JSON.parse(value)).not.toThrow();
          const started = events.filter((e) => e.type === 'call-start').length;
          const ended = events.filter(
            (e) => e.type === 'call-end' || e.type === 'call-failed',
          ).length;
          expect(ended).toBe(started);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('names a call on another server server__tool, and a failed call closes its JSON', () => {
    const other =
      '<tool>\n<server_name>fs</server_name>\n<tool_name>read</tool_name>\n<arguments><path>x</path></arguments>\n</tool>\n';
    expect(translate([other]).events).toContainEqual(
      expect.objectContaining({ type: 'call-start', name: 'fs__read' }),
    );
    const broken = '<tool>\n<tool_name>edit</tool_name>\n<arguments>\n<path>half';
    const { events, json } = translate([broken]);
    const failed = events.find((e) => e.type === 'call-failed');
    expect(failed).toMatchObject({ name: 'edit' });
    expect(JSON.parse(json.get('c0') ?? '')).toEqual({ path: 'half' });
    expect(
      events
        .filter((e) => e.type === 'text')
        .map((e) => (e.type === 'text' ? e.text : ''))
        .join(''),
    ).toBe(broken);
  });
});

// #25: what `tagcall serve` sends as `arguments` fragments and the middleware as
// `tool-input-delta`s, concatenated, is the final call's arguments in every dialect: the
// parser's deltas never need retracting, so nothing streamed is contradicted at the end.
describe('native call fragments join to the final arguments in every dialect', () => {
  /** The keys of a JSON object's top level, in order, duplicates kept (JSON.parse drops them). */
  const topLevelKeys = (json: string): string[] => {
    const keys: string[] = [];
    let depth = 0;
    for (let i = 0; i < json.length; i++) {
      const c = json[i];
      if (c === '"') {
        let end = i + 1;
        while (json[end] !== '"') end += json[end] === '\\' ? 2 : 1;
        if (depth === 1 && json[end + 1] === ':') keys.push(JSON.parse(json.slice(i, end + 1)));
        i = end;
      } else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') depth--;
    }
    return keys;
  };

  /**
   * Each ended call's fragments, parsed, beside its final arguments, and its keys as written:
   * the writer writes a key again when what it streamed was not the final value, which is
   * right only when the value turned out no string (`<tool>`'s repeated or nested elements).
   */
  const joined = (chunks: readonly string[], options: ParseOptions) => {
    const { events, json } = translate(chunks, [], options);
    return events.flatMap((e) => {
      if (e.type !== 'call-end') return [];
      const written = json.get(e.id) ?? '';
      return [
        {
          fragments: JSON.parse(written),
          keys: topLevelKeys(written),
          final: JSON.parse(e.argumentsJson),
        },
      ];
    });
  };
  const expectJoined = (chunks: readonly string[], options: ParseOptions, label = '') => {
    for (const { fragments, keys, final } of joined(chunks, options)) {
      expect(fragments, label).toEqual(final);
      const again = keys.filter((key, i) => keys.indexOf(key) !== i);
      for (const key of again)
        expect(typeof final[key], `${label}: string ${key} streamed, then rewritten`).not.toBe(
          'string',
        );
    }
  };

  it("the issue's example: a repaired hermes string streams as its final value", () => {
    const reply =
      '<tool_call>{"name":"edit","arguments":{"name":"inner_value","content":"He said "hello" to me"}}</tool_call>';
    const chunks = reply.match(/[\s\S]{1,3}/g) ?? [];
    const { json } = translate(chunks, [], { dialect: 'hermes' });
    expect(json.get('c0')).toBe('{"name":"inner_value","content":"He said \\"hello\\" to me"}');
  });

  it('on every checked-in input, whole and in 1-, 3- and 7-character chunks', () => {
    for (const input of dialectInputs())
      for (const size of [1, 3, 7]) {
        const chunks: string[] = [];
        for (let i = 0; i < input.text.length; i += size)
          chunks.push(input.text.slice(i, i + size));
        expectJoined(chunks, input.options, `${input.name} in ${size}-char chunks`);
      }
  });

  for (const dialect of ALL_DIALECTS)
    it(`${dialect}: replies written by its own renderer, cut anywhere`, () => {
      fc.assert(
        fc.property(
          replyIn(dialect === 'auto' ? 'hermes' : dialect),
          cutsArbitrary,
          (text, cuts) => {
            for (const { fragments, final } of joined(splitAt(text, cuts), optionsOf(dialect)))
              expect(fragments).toEqual(final);
          },
        ),
        { numRuns: 60 },
      );
    });
});
