import { describe, expect, it } from 'vitest';
import { coerceValue, type ParseOptions, parse, runAgent, toTextProtocol } from '../src/index.js';
import { createToolbox } from '../src/tools/index.js';

/** The best of a few runs, in ms: the least disturbed by the machine. */
function bestOf(runs: number, work: () => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    work();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/**
 * How much longer input of size 2n takes than size n: about 2 when the work is linear, 4 when
 * it is quadratic. `n` is grown until one run takes long enough to time; the smallest of three
 * measurements is kept, since a collection of garbage can only make a run slower.
 */
function doublingRatio(make: (n: number) => () => void, start: number): number {
  let n = start;
  while (bestOf(1, make(n)) < 30 && n < start * 64) n *= 2;
  const small = make(n);
  const large = make(2 * n);
  small();
  let ratio = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 3 && ratio > 3; attempt++)
    ratio = Math.min(ratio, bestOf(5, large) / bestOf(5, small));
  return ratio;
}

const parses =
  (shape: (n: number) => string, options: ParseOptions = {}) =>
  (n: number) => {
    const text = shape(n);
    return () => {
      parse(text, options);
    };
  };

const inValue = (body: string) =>
  `<tool>\n<tool_name>x</tool_name>\n<arguments><v>${body}</v></arguments>\n</tool>\n`;

describe('hostile shapes cost linear time (size 2n takes at most 3× size n)', () => {
  const shapes: Array<[string, (n: number) => () => void, number]> = [
    ['thousands of & in a value', parses((n) => inValue('&'.repeat(n))), 20_000],
    [
      'thousands of & in a tool name',
      parses((n) => `<tool>\n<tool_name>${'&'.repeat(n)}</tool_name>\n</tool>\n`),
      20_000,
    ],
    [
      'thousands of unclosed <![CDATA[ in a tool name',
      parses((n) => `<tool>\n<tool_name>${'<![CDATA['.repeat(n)}</tool_name>\n</tool>\n`),
      2_000,
    ],
    [
      'a Qwen3-Coder function full of unclosed <parameter=',
      parses(
        (n) => `<tool_call>\n<function=f>\n${'<parameter='.repeat(n)}\n</function>\n</tool_call>\n`,
        { dialect: 'qwen3-coder', maxCallBytes: 1 << 30 },
      ),
      2_000,
    ],
    [
      'an Anthropic invoke full of unclosed <parameter name="',
      parses(
        (n) =>
          `<function_calls>\n<invoke name="f">\n${'<parameter name="'.repeat(n)}\n</invoke>\n</function_calls>\n`,
        { dialect: 'anthropic-xml', maxCallBytes: 1 << 30 },
      ),
      2_000,
    ],
    [
      'deep nesting with maxDepth raised',
      (n) => {
        const text = inValue(`${'<a>'.repeat(n)}x${'</a>'.repeat(n)}`);
        return () => {
          parse(text, { maxDepth: n + 10, maxCallBytes: 1 << 30 });
        };
      },
      2_000,
    ],
    [
      'deep nesting closed by tags of names that are not open',
      (n) => {
        const text = inValue(`${'<a>'.repeat(n)}${'</b>'.repeat(n)}`);
        return () => {
          parse(text, { maxDepth: n + 10, maxCallBytes: 1 << 30 });
        };
      },
      2_000,
    ],
    [
      'a number of thousands of digits that is not a number',
      (n) => {
        const text = `${'1'.repeat(n)}x`;
        return () => {
          coerceValue(text, { type: 'number' });
        };
      },
      5_000,
    ],
  ];
  for (const [name, make, start] of shapes) {
    it(name, () => {
      const ratio = doublingRatio(make, start);
      expect(ratio, `2n/n = ${ratio.toFixed(2)}`).toBeLessThanOrEqual(3);
    });
  }
});

describe('JSON nested thousands deep', () => {
  const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
  const bodies: Array<[string, string, ParseOptions]> = [
    [
      'the deprecated JSON form',
      `<tool>{"tool_name": "x", "arguments": {"a": ${deep(5000)}}}</tool>\n`,
      {},
    ],
    [
      'a Hermes body',
      `<tool_call>{"name": "x", "arguments": {"a": ${deep(5000)}}}</tool_call>\n`,
      { dialect: 'hermes' },
    ],
    [
      'a Hermes body whose arguments are a string',
      `<tool_call>{"name": "x", "arguments": ${JSON.stringify(`{"a": ${deep(5000)}}`)}}</tool_call>\n`,
      { dialect: 'hermes' },
    ],
  ];
  for (const [name, text, options] of bodies) {
    it(`${name}: max-depth-exceeded, never a throw`, () => {
      const result = parse(text, options);
      expect(result.calls).toEqual([]);
      expect(result.errors.map((e) => e.code)).toEqual(['max-depth-exceeded']);
    });
  }

  it('within maxDepth it still parses, also when raised far', () => {
    const text = `<tool>{"tool_name": "x", "arguments": {"a": ${deep(3000)}}}</tool>\n`;
    const result = parse(text, { maxDepth: 5000 });
    expect(result.errors).toEqual([]);
    expect(result.calls).toHaveLength(1);
  });

  it('runAgent gives the model the error instead of failing the run', async () => {
    let turn = 0;
    const replies = [
      `<tool_call>{"name": "x", "arguments": {"a": ${deep(5000)}}}</tool_call>\n`,
      'done, without tools',
    ];
    const result = await runAgent({
      model: {
        async *stream() {
          yield { type: 'text' as const, text: replies[turn++] };
        },
      },
      toolbox: createToolbox(),
      task: 't',
      parse: { dialect: 'hermes' },
    });
    expect(result.status).toBe('no-call');
    const seen = toTextProtocol(result.memory.all()).map((m) => m.content);
    expect(
      seen.some(
        (t) => t.startsWith('Tool: tool call\nError: ') && t.includes('max-depth-exceeded'),
      ),
    ).toBe(true);
  });
});
