import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ModelJsonReader,
  type ReaderConfig,
  readModelValue,
  Syntax,
  type ValueEvents,
} from '../src/protocol/body/model-json.js';
import { VALUE_RECOVERIES } from '../src/protocol/dialects/recoveries.js';
import { cutsArbitrary, splitAt } from './support/chunk.js';
import { doublingRatio } from './support/hostile-shapes.js';

const CONFIG: ReaderConfig = {
  syntax: Syntax.Json,
  top: 'value',
  closes: [],
  closeInStrings: false,
  maxDepth: 64,
};

/** What the reader tells, with adjacent string text merged (chunks only split it). */
function recorder(log: unknown[]): ValueEvents {
  return {
    open: (depth, kind, at, name) => log.push(['open', depth, kind, at, name]),
    key: (depth, key, at) => log.push(['key', depth, key, at]),
    text(depth, text) {
      const last = log.at(-1) as unknown[] | undefined;
      if (last?.[0] === 'text' && last[1] === depth) last[2] += text;
      else log.push(['text', depth, text]);
    },
    value: (depth, value, end) => log.push(['value', depth, JSON.stringify(value), end]),
    repaired: (kind, at) => log.push(['warn', kind, at]),
  };
}

/** The reader fed `chunks` one after another, as a block's stream feeds it. */
function readChunks(chunks: readonly string[], config = CONFIG) {
  const log: unknown[] = [];
  const reader = new ModelJsonReader(config, recorder(log));
  let held = '';
  let offset = 0;
  for (const chunk of chunks) {
    held += chunk;
    const used = reader.read(held, 0, offset, false);
    offset += used;
    held = held.slice(used);
  }
  const used = reader.read(held, 0, offset, true);
  const ok = reader.failure === null && reader.finish(offset + held.length);
  return { log, ok, rest: held.slice(used), failure: reader.failure };
}

describe('the model-JSON reader (one pass, bounded look-ahead)', () => {
  it('reads strict JSON exactly as JSON.parse does, with no warning', () => {
    fc.assert(
      fc.property(fc.json({ depthSize: 'small' }), fc.boolean(), (json, pretty) => {
        const text = pretty ? JSON.stringify(JSON.parse(json), null, 2) : json;
        const read = readModelValue(text, Syntax.Json, 64);
        const expected = JSON.parse(text);
        // A number JavaScript cannot hold exactly is kept as written (with a warning).
        fc.pre(!/\d{16,}|e[-+]?\d{3}/i.test(text));
        expect(read).toEqual({ ok: true, value: expected, warnings: [] });
      }),
      { numRuns: 2000 },
    );
  });

  it('reads every string JSON.stringify writes, surrogate pairs and escapes included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        const read = readModelValue(JSON.stringify({ value }));
        expect(read.ok && read.value).toEqual({ value });
      }),
      { numRuns: 2000 },
    );
  });

  it('tells the same whatever the chunking, and the text it streams is the value', () => {
    const bodies = fc.oneof(
      fc.json({ depthSize: 'small' }),
      fc.constantFrom(
        '{"content":"He said "hello" to me", "n": 1}',
        "{'name': 'q', 'arguments': {'text': 'it\\'s'}}",
        '{name: "q", arguments: {text: "x",},}',
        '{"a": "line one\nline two", /* c */ "b": [1, 2,]',
        '{"a": "x\\"y\nz", "b": "\\t", "c": "short\nline"}',
        '{"s": "\\ud83d\\ude00 \\u00e9 😀", "n": 12345678901234567890, "e": 1e999}',
        '{"a": 1 "b": 2}',
        '{"a": [1, {"b": 2]',
      ),
    );
    fc.assert(
      fc.property(bodies, cutsArbitrary, (text, cuts) => {
        const whole = readChunks([text]);
        const chunked = readChunks(splitAt(text, cuts));
        expect(chunked).toEqual(whole);
        // The text told of each top-level string is the string the value holds.
        for (const entry of whole.log) {
          const [kind, depth] = entry as [string, number];
          if (kind === 'text') expect(depth).toBeGreaterThan(0);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('repairs what models write, each with one repaired-json warning', () => {
    const cases: Array<[string, unknown]> = [
      ['{"text": "line one\nline two\tend"}', { text: 'line one\nline two\tend' }],
      ['{"text": "x",},', null],
      ["{'text': 'x'}", { text: 'x' }],
      ['{text: "x"}', { text: 'x' }],
      ['{/* the tool */ "text": "x"}', { text: 'x' }],
      ['{"text": "x"', { text: 'x' }],
      ['{"text": "He said "hello" to me"}', { text: 'He said "hello" to me' }],
      ['{"a": True, "b": None}', { a: true, b: null }],
      ['[1, 2,]', [1, 2]],
      ['{"a": 1 "b": 2}', { a: 1, b: 2 }],
      ['{"a": "it\\\'s"}', { a: "it's" }],
      ['{"a": "\\q"}', { a: '\\q' }],
    ];
    for (const [text, value] of cases) {
      const read = readModelValue(text);
      if (value === null) continue;
      expect(read.ok && read.value, text).toEqual(value);
      // Each repair is its own recovery; every family's row of it says `repaired-json`.
      expect(read.ok && read.warnings.map((w) => VALUE_RECOVERIES[w.kind].code), text).toEqual([
        'repaired-json',
      ]);
    }
  });

  it('tells a raw newline where it stands, in a string with escapes, short or long', () => {
    // An escaped string's raw newline is found by JSON.parse failing; an unescaped string's by
    // looking (short) or by the kept search (long). All three tell it at the newline itself.
    const long = 'a'.repeat(40);
    for (const text of [
      '{"a": "x\\"y\nz", "b": "\\t"}',
      '{"a": "\\u00e9", "b": "short\nline"}',
      `{"a": "${long}\n${long}", "b": "x\\ny"}`,
    ]) {
      const read = readModelValue(text);
      expect(read.ok && read.warnings.map((w) => [w.kind, w.at]), text).toEqual([
        ['raw-control-in-string', text.indexOf('\n')],
      ]);
      expect(read.ok && read.value, text).toEqual(
        JSON.parse(text.replaceAll('\n', '\\n')) as unknown,
      );
      // A string after it is read as it would be had none stood before it.
      expect(readChunks([text])).toEqual(readChunks(splitAt(text, [text.length - 3])));
    }
  });

  it('takes a raw newline for a close that begins with one only where the whole close stands', () => {
    // Granite 20B FC's and Hermes' bare calls are cut by a line that opens the next call
    // (`\n<function_call>`): a raw newline followed by anything else is the string's, with a
    // repair, in a short chunk as in a long one.
    const config: ReaderConfig = { ...CONFIG, closes: ['\n<function_call>'], closeInStrings: true };
    const text = '{"name": "```\n<|tool_call_end|>read_file", "arguments": {}}';
    const whole = readChunks([text], config);
    expect(whole.ok).toBe(true);
    expect(whole.log).toContainEqual(['warn', 'raw-control-in-string', text.indexOf('\n')]);
    for (let cut = 1; cut < text.length; cut++)
      expect(readChunks([text.slice(0, cut), text.slice(cut)], config), `cut at ${cut}`).toEqual(
        whole,
      );
    const cutShort = readChunks(['{"name": "a\n<function_call> {"'], config);
    expect(cutShort.ok).toBe(false);
  });

  it('says what is no value, with where', () => {
    expect(readModelValue('{"a": 1 "b"}')).toMatchObject({
      ok: false,
      code: 'invalid-json',
      at: 8,
    });
    expect(readModelValue('hello')).toMatchObject({ ok: false, at: 0 });
    expect(readModelValue('{"a": "cut')).toMatchObject({ ok: false, at: 6 });
    expect(readModelValue('[[[[1]]]]', Syntax.Json, 3)).toMatchObject({
      ok: false,
      code: 'max-depth-exceeded',
    });
  });

  it('keeps a number JavaScript cannot hold exactly as written, with inexact-number', () => {
    const read = readModelValue(`{"a": 1e999, "b": 4e523, "c": ${'9'.repeat(309)}, "d": 1.5}`);
    expect(read.ok && read.value).toEqual({ a: '1e999', b: '4e523', c: '9'.repeat(309), d: 1.5 });
    expect(read.ok && read.warnings.map((w) => w.kind)).toEqual([
      'inexact-number',
      'inexact-number',
      'inexact-number',
    ]);
  });

  it('reads Python calls and literals, never rewriting a value', () => {
    expect(
      readModelValue(
        "[get_weather(city='Martha\\'s Vineyard', metric='\\\"cool units\\\"')]",
        Syntax.Python,
      ),
    ).toMatchObject({
      ok: true,
      value: [
        {
          name: 'get_weather',
          arguments: { city: "Martha's Vineyard", metric: '"cool units"' },
        },
      ],
    });
    expect(
      readModelValue(
        `[run(cmd="cat <<'EOF'", n=3, ok=True, none=None, xs=[1, (2, 3)])]`,
        Syntax.Python,
      ),
    ).toMatchObject({
      ok: true,
      value: [
        {
          name: 'run',
          arguments: { cmd: "cat <<'EOF'", n: 3, ok: true, none: null, xs: [1, [2, 3]] },
        },
      ],
      warnings: [],
    });
  });

  // #30 item 1: jsonrepair took 5 s for 74 KB and 17 s for 147 KB of this.
  it('costs linear time on the hostile shapes that made jsonrepair quadratic', () => {
    const shapes: Array<(n: number) => string> = [
      (n) => `{"a": "ж${'a'.repeat(n)}\\\\${'"'.repeat(n / 8)}"}`,
      (n) => `{'a': '${"it's ".repeat(n / 5)}'}`,
      (n) => `{"a": "${'say "hi" and '.repeat(n / 13)}"}`,
    ];
    for (const shape of shapes) {
      const ratio = doublingRatio((n) => {
        const text = shape(n);
        return () => {
          readModelValue(text);
        };
      }, 262_144);
      expect(ratio.ratio).toBeLessThanOrEqual(3);
    }
  });
});
