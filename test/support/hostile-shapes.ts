import { coerceValue, createParser, type Dialect, type ParseOptions, parse } from './all.js';

/**
 * Input shapes that were quadratic once (each found by timing doubled inputs), for the test
 * that keeps them linear and for the bench table: a name, how to make the work for size n,
 * and a starting n.
 */
export type HostileShape = [name: string, make: (n: number) => () => void, start: number];

/** CPU time this process has used, in ms (user and system). */
export function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * The best of a few runs, in ms of CPU time: a busy machine stretches wall time by however
 * long other processes hold the cores (a wall-clock ratio failed at 3.06 beside other work),
 * while the CPU time of this process's own work barely moves.
 */
export function bestOf(runs: number, work: () => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const started = cpuMs();
    work();
    best = Math.min(best, cpuMs() - started);
  }
  return best;
}

export interface Doubling {
  n: number;
  /** Best CPU time for size n and 2n, in ms. */
  smallMs: number;
  largeMs: number;
  /** largeMs / smallMs. */
  ratio: number;
}

/**
 * How much longer input of size 2n takes than size n: about 2 when the work is linear, 4 when
 * it is quadratic. `n` is grown until one run takes long enough to time (50 ms of CPU); of up to
 * eight measurements the smallest ratio is kept, since a collection of garbage or a busy
 * neighbour can only make a run slower.
 */
export function doublingRatio(make: (n: number) => () => void, start: number): Doubling {
  let n = start;
  while (bestOf(1, make(n)) < 50 && n < start * 64) n *= 2;
  const small = make(n);
  const large = make(2 * n);
  small();
  large();
  let best: Doubling = { n, smallMs: 0, largeMs: 0, ratio: Number.POSITIVE_INFINITY };
  // Other tests run beside this one: a few tries, so one disturbed measurement does not count.
  for (let attempt = 0; attempt < 8 && best.ratio > 3; attempt++) {
    const smallMs = bestOf(5, small);
    const largeMs = bestOf(5, large);
    if (largeMs / smallMs < best.ratio) best = { n, smallMs, largeMs, ratio: largeMs / smallMs };
  }
  return best;
}

const parses =
  (shape: (n: number) => string, options: ParseOptions = {}) =>
  (n: number) => {
    const text = shape(n);
    return () => {
      parse(text, options);
    };
  };

/** `text(n)` read by one parser, whole (`chunk` 0) or `chunk` characters at a time. */
const fedBy =
  (shape: (n: number) => string, options: ParseOptions, chunk: number) => (n: number) => {
    const text = shape(n);
    return () => {
      const parser = createParser({ ...options, onEvent: () => {} });
      if (chunk === 0) parser.feed(text);
      else for (let i = 0; i < text.length; i += chunk) parser.feed(text.slice(i, i + chunk));
      parser.end();
    };
  };

/** Each dialect whose body is JSON, with how it wraps a string argument's JSON value. */
const JSON_BODY_DIALECTS: ReadonlyArray<[Dialect, (value: string) => string]> = [
  ['hermes', (v) => `<tool_call>{"name": "f", "arguments": {"a": ${v}}}</tool_call>`],
  ['nemotron', (v) => `<TOOLCALL>[{"name": "f", "arguments": {"a": ${v}}}]</TOOLCALL>`],
  ['jamba', (v) => `<tool_calls>[{"name": "f", "arguments": {"a": ${v}}}]</tool_calls>`],
  [
    'command-r7b',
    (v) => `<|START_ACTION|>[{"tool_name": "f", "parameters": {"a": ${v}}}]<|END_ACTION|>`,
  ],
  ['granite', (v) => `<|tool_call|>[{"name": "f", "arguments": {"a": ${v}}}]`],
  ['mistral', (v) => `[TOOL_CALLS]f[ARGS]{"a": ${v}}`],
  ['functools', (v) => ` functools[{"name": "f", "arguments": {"a": ${v}}}]`],
  ['xlam', (v) => `[{"name": "f", "arguments": {"a": ${v}}}]`],
  ['apertus', (v) => `<|tools_prefix|>[{"f": {"a": ${v}}}]<|tools_suffix|>`],
  [
    'gigachat',
    (v) => `<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "f", "arguments": {"a": ${v}}}`,
  ],
  [
    'longcat',
    (v) => `<longcat_tool_call>{"name": "f", "arguments": {"a": ${v}}}</longcat_tool_call>`,
  ],
  [
    'internlm',
    (v) => `<|action_start|><|plugin|>\n{"name": "f", "parameters": {"a": ${v}}}<|action_end|>`,
  ],
  ['llama3-json', (v) => `<|python_tag|>{"name": "f", "parameters": {"a": ${v}}}`],
  [
    'deepseek',
    (v) =>
      `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": ${v}}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`,
  ],
  [
    'kimi-k2',
    (v) =>
      `<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": ${v}}<|tool_call_end|><|tool_calls_section_end|>`,
  ],
  [
    'gpt-oss',
    (v) =>
      `<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": ${v}}<|call|>`,
  ],
  ['functionary', (v) => `<function=f>{"a": ${v}}</function>`],
  ['lfm2', (v) => `<|tool_call_start|>[{"name": "f", "arguments": {"a": ${v}}}]<|tool_call_end|>`],
  ['llama4', (v) => `[f(a=${v})]`],
  ['olmo3', (v) => `<function_calls>\nf(a=${v})\n</function_calls>`],
  ['minicpm3', (v) => `<|tool_call_start|>\n\`\`\`python\nf(a=${v})\n\`\`\`\n<|tool_call_end|>`],
];

const inValue = (body: string) =>
  `<tool>\n<tool_name>x</tool_name>\n<arguments><v>${body}</v></arguments>\n</tool>\n`;

export const HOSTILE_SHAPES: HostileShape[] = [
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
    'a Qwen3-Coder function of thousands of parameters, none closed',
    parses(
      (n) =>
        `<tool_call>\n<function=f>\n${'<parameter=a>\nx\n'.repeat(n)}</function>\n</tool_call>\n`,
      { dialect: 'qwen3-coder', maxCallBytes: 1 << 30 },
    ),
    2_000,
  ],
  [
    'a long reply of prose in a dialect whose openings count anywhere in a line',
    parses((n) => 'Some prose on a line of its own, no calls here.\n'.repeat(n), {
      dialect: 'auto',
    }),
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
  // Every name a new one: the tables every parser shares (names.ts, tag.ts's kept tags)
  // miss, copy and evict at each; what they keep is bounded, and so must their time be.
  [
    'a call of thousands of distinct argument names',
    parses(
      (n) =>
        `<tool>\n<tool_name>f</tool_name>\n<arguments>\n${Array.from({ length: n }, (_, i) => `<argument_number_${i}>v</argument_number_${i}>\n`).join('')}</arguments>\n</tool>\n`,
      { maxCallBytes: 1 << 30 },
    ),
    2_000,
  ],
  [
    'a Hermes call of thousands of distinct keys',
    parses(
      (n) =>
        `<tool_call>\n{"name": "f", "arguments": {${Array.from({ length: n }, (_, i) => `"key_number_${i}": ${i}`).join(', ')}}}\n</tool_call>\n`,
      { dialect: 'hermes', maxCallBytes: 1 << 30 },
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
  // #30 item 1: jsonrepair took 5 s for 74 KB and 17 s for 147 KB of this string, in every
  // dialect whose body is JSON. Each is read whole and fed 4 characters at a time.
  ...JSON_BODY_DIALECTS.flatMap(([dialect, wrap]): HostileShape[] =>
    [0, 4].map(
      (chunk): HostileShape => [
        `${dialect}: a JSON string of thousands of unescaped quotes (${chunk === 0 ? 'whole' : '4-char chunks'})`,
        fedBy(
          (n) => wrap(`"ж${'a'.repeat(n)}\\\\${'"'.repeat(n / 8)}"`),
          { dialect, maxCallBytes: 1 << 30 },
          chunk,
        ),
        16_384,
      ],
    ),
  ),
  // #30 item 2: 1.1 MB of this took 11.8 s whole, 0.8 s in small chunks.
  ...(['<|channel|>', '<|start|>assistant<|channel|>'] as const).flatMap((unit) =>
    (['gpt-oss', 'auto'] as const).flatMap((dialect) =>
      [0, 4].map(
        (chunk): HostileShape => [
          `${dialect}: ${unit} repeated (${chunk === 0 ? 'whole' : '4-char chunks'})`,
          fedBy((n) => unit.repeat(n / unit.length), { dialect }, chunk),
          65_536,
        ],
      ),
    ),
  ),
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
