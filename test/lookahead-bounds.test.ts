// Each row of src/protocol/lookahead.ts at its bound, just past it and far past it: the input
// at the bound is read, the input past it gives what the row says (`past`), whole and in
// 1-character chunks alike (the same result both ways, docs/parser.md "The same events on
// every chunking"). The inputs are built from the row's value, so a changed value is tested
// where it now stands; a row without a case here fails the first test.
import { describe, expect, it } from 'vitest';
import { isElementName } from '../src/protocol/dialects/index.js';
import { LOOKAHEAD, type LookaheadName } from '../src/protocol/lookahead.js';
import { type ParseOptions, type ParseResult, parse } from './support/all.js';
import { feedChunks } from './support/chunk.js';

interface BoundCase {
  options?: ParseOptions;
  /** The input at the bound (`past` false: the last that is still read) or just past it. */
  input: (value: number, past: boolean) => string;
  /** What a result shows; by default `summary`. Past the bound it begins with the row's `past`. */
  read?: (result: ParseResult) => string;
  /** What the input at the bound gives, and what the input past it gives. */
  at: string;
  past: string;
}

/** The kind of a result: its errors, else its warnings, else a call, thinking or text. */
function summary(result: ParseResult): string {
  if (result.errors.length > 0) return `error ${result.errors.map((e) => e.code).join(' ')}`;
  if (result.warnings.length > 0) return `warning ${result.warnings.map((w) => w.code).join(' ')}`;
  if (result.calls.length > 0) return 'call';
  if (result.thinking.length > 0) return 'thinking';
  return 'text';
}

const blanks = (n: number) => ' '.repeat(n);
const word = (n: number) => 'a'.repeat(n);
const tool = (args: string) =>
  `<tool>\n<tool_name>f</tool_name>\n<arguments>\n${args}\n</arguments>\n</tool>`;
const firstArgument = (result: ParseResult) => result.calls[0]?.arguments.n;

const CASES: Record<LookaheadName, BoundCase> = {
  maxHold: {
    // `[` and the text are held; the `]` at the bound still makes the bracket thinking.
    input: (value, past) => `[${word(value - 1 + (past ? 1 : 0))}]\nhi`,
    at: 'thinking',
    past: 'text',
  },
  fenceLine: {
    // In a fence, a call after prose is text; a marker line of `value` backticks opens none.
    input: (value, past) => {
      const marker = '`'.repeat(value - 1 + (past ? 1 : 0));
      return `${marker}\nprose\n${tool('<n>x</n>')}\n${marker}`;
    },
    // Past the bound the marker line is text: no fence, so the call after it is read.
    read: (result) => (result.calls.length === 0 ? 'fence' : 'text'),
    at: 'fence',
    past: 'text',
  },
  bracketLineEnd: {
    input: (value, past) => `[thinking]${blanks(value - 1 + (past ? 1 : 0))}\nhi`,
    at: 'thinking',
    past: 'text',
  },
  tagName: {
    input: (value, past) => {
      const name = word(value - 1 + (past ? 1 : 0));
      return tool(`<n><${name}>x</${name}></n>`);
    },
    read: (result) => (typeof firstArgument(result) === 'string' ? 'text' : 'element'),
    at: 'element',
    past: 'text',
  },
  entity: {
    // `&#1114111;` is ten characters; with a leading zero it is eleven.
    input: (value, past) => tool(`<n>&#${'0'.repeat(value - 10 + (past ? 1 : 0))}1114111;</n>`),
    read: (result) => (firstArgument(result) === '\u{10ffff}' ? 'decoded' : 'text'),
    at: 'decoded',
    past: 'text',
  },
  closeConfirm: {
    input: (value, past) => tool(`<n>x</n>${blanks(value - 1 + (past ? 1 : 0))}<m>y</m>`),
    read: (result) => (firstArgument(result) === 'x' ? 'closed' : 'text'),
    at: 'closed',
    past: 'text',
  },
  openingTag: {
    // DSML's parameter opening, every blank run at its longest, can be longer than the bound:
    // its name sets the length.
    options: { dialect: 'deepseek-dsml' },
    input: (value, past) => {
      const b = blanks(LOOKAHEAD.markerBlanks.value);
      const opening = (name: string) =>
        `<｜DSML｜parameter${b}name${b}=${b}"${name}"${b}string${b}=${b}"true"${b}>`;
      const name = word(value + (past ? 1 : 0) - opening('').length);
      return `<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n${opening(name)}v</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>`;
    },
    at: 'call',
    past: 'error unreadable-arguments',
  },
  callName: {
    options: { dialect: 'qwen3-coder' },
    input: (value, past) =>
      `<tool_call>\n<function=${word(value + (past ? 1 : 0))}>\n<parameter=k>\nv\n</parameter>\n</function>\n</tool_call>`,
    at: 'call',
    past: 'error missing-tool-name',
  },
  parameterName: {
    options: { dialect: 'qwen3-coder' },
    input: (value, past) =>
      `<tool_call>\n<function=f>\n<parameter=${word(value + (past ? 1 : 0))}>\nv\n</parameter>\n</function>\n</tool_call>`,
    at: 'call',
    past: 'error unreadable-arguments',
  },
  markerBlanks: {
    options: { dialect: 'glm' },
    input: (value, past) =>
      `<tool_call>${blanks(value + (past ? 1 : 0))}f\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>\n</tool_call>`,
    at: 'call',
    past: 'error missing-tool-name',
  },
  markerFlag: {
    options: { dialect: 'deepseek-dsml' },
    input: (value, past) =>
      `<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n<｜DSML｜parameter name="k" string="${word(value + (past ? 1 : 0))}">v</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>`,
    at: 'call',
    past: 'error unreadable-arguments',
  },
  callId: {
    options: { dialect: 'mistral' },
    input: (value, past) => `[TOOL_CALLS]f[CALL_ID]${word(value + (past ? 1 : 0))}[ARGS]{"k": 1}`,
    at: 'call',
    past: 'error missing-tool-name',
  },
  keyValueGap: {
    options: { dialect: 'glm' },
    input: (value, past) =>
      `<tool_call>f\n<arg_key>k</arg_key>${blanks(value + (past ? 1 : 0))}<arg_value>v</arg_value>\n</tool_call>`,
    at: 'call',
    past: 'error unreadable-arguments',
  },
  leadingBlanks: {
    options: { dialect: 'auto' },
    input: (value, past) =>
      `<tool_call>${blanks(value + (past ? 1 : 0))}<function=f>\n</function>\n</tool_call>`,
    at: 'call',
    past: 'text',
  },
  headLook: {
    // xLAM's list is a call once `[{"name":` follows it: the head is `value` characters here
    // (text after the `]` keeps the line from being bracketed thinking).
    options: { dialect: 'xlam' },
    input: (value, past) =>
      `[${blanks(value - '{"name":'.length + (past ? 1 : 0))}{"name": "f", "arguments": {}}] done`,
    at: 'call',
    past: 'text',
  },
  clineMidLine: {
    options: { dialect: 'cline', toolNames: ['read_file'] },
    input: (value, past) =>
      `Use <read_file>${blanks(value + (past ? 1 : 0))}<path>a</path></read_file> now`,
    at: 'call',
    past: 'text',
  },
  jsonToken: {
    options: { dialect: 'hermes' },
    input: (value, past) =>
      `<tool_call>{"name": "f", "arguments": {"k": "a"${blanks(value + (past ? 1 : 0))}, "m": "b"}}</tool_call>`,
    at: 'call',
    past: 'warning repaired-json',
  },
  pythonCallParen: {
    options: { dialect: 'lfm2' },
    input: (value, past) =>
      `<|tool_call_start|>[f${blanks(value + (past ? 1 : 0))}(k=1)]<|tool_call_end|>`,
    at: 'call',
    past: 'error invalid-json',
  },
  bodyHeader: {
    // gpt-oss' header: `value` characters from the block's start to `<|message|>`.
    options: { dialect: 'gpt-oss' },
    input: (value, past) => {
      const header = (pad: string) =>
        `<|start|>assistant<|channel|>commentary to=functions.f${pad}`;
      const pad = blanks(value + (past ? 1 : 0) - header('').length);
      return `${header(pad)}<|message|>{"k": 1}<|call|>`;
    },
    at: 'call',
    past: 'error incomplete-tool-call',
  },
  bodyFence: {
    // MiniCPM3's ```python fence line of `value` characters before its newline.
    options: { dialect: 'minicpm3' },
    input: (value, past) =>
      `<|tool_call_start|>\`\`\`python${blanks(value - 9 + (past ? 1 : 0))}\nf(k=1)\n\`\`\`\n<|tool_call_end|>`,
    at: 'call',
    past: 'error invalid-json',
  },
};

/**
 * The result of `input` whole and in 1-character chunks, which must be the same: past a bound
 * the whole input is decided where chunks are held no further.
 */
function results(input: string, options: ParseOptions = {}) {
  const whole = parse(input, options);
  const chunked = feedChunks([...input], options).result;
  expect(chunked, 'in 1-character chunks as whole').toEqual(whole);
  return { whole, chunked };
}

describe('each look-ahead bound at its value and just past it', () => {
  it('has a case for every row of the table, and a row for every case', () => {
    expect(Object.keys(CASES).sort()).toEqual(Object.keys(LOOKAHEAD).sort());
  });

  for (const [name, bound] of Object.entries(LOOKAHEAD) as Array<
    [LookaheadName, (typeof LOOKAHEAD)[LookaheadName]]
  >) {
    it(`${name} (${bound.value}): read at the bound; past it and far past it, ${bound.past}`, () => {
      const testCase: BoundCase | undefined = CASES[name];
      expect(testCase, `a case for the row ${name}`).toBeDefined();
      if (testCase === undefined) return;
      const read = testCase.read ?? summary;
      expect(testCase.past.startsWith(bound.past)).toBe(true);
      const at = results(testCase.input(bound.value, false), testCase.options);
      expect(read(at.whole)).toBe(testCase.at);
      expect(read(at.chunked)).toBe(testCase.at);
      const past = results(testCase.input(bound.value, true), testCase.options);
      expect(read(past.whole)).toBe(testCase.past);
      expect(read(past.chunked)).toBe(testCase.past);
      // Far past it (the case built as for a bound twice as large), the same: a pattern that
      // could match further is no match there either, whole as in chunks.
      const far = results(testCase.input(2 * bound.value, true), testCase.options);
      expect(read(far.whole)).toBe(testCase.past);
    });
  }
});

describe("bounds on patterns that could match past them, beyond the rows' cases", () => {
  // Mistral's header is `\s*name\s*[ARGS]\s*`: its blanks alone could run past the bound.
  const header = (length: number) =>
    `[TOOL_CALLS]f${blanks(length - 'f[ARGS]'.length)}[ARGS]{"k": 1}`;
  it("bodyHeader: Mistral's header at the bound is a call, whole and in chunks", () => {
    const { whole } = results(header(LOOKAHEAD.bodyHeader.value), { dialect: 'mistral' });
    expect(summary(whole)).toBe('call');
  });
  it("bodyHeader: Mistral's header past the bound is no call, whole and in chunks", () => {
    const { whole } = results(header(LOOKAHEAD.bodyHeader.value + 1), { dialect: 'mistral' });
    expect(summary(whole)).toBe('error missing-tool-name');
  });
  it("bodyHeader: Mistral's header far past the bound is no call, whole and in chunks", () => {
    const { whole } = results(header(2 * LOOKAHEAD.bodyHeader.value), { dialect: 'mistral' });
    expect(summary(whole)).toBe('error missing-tool-name');
  });
  // DeepSeek V3's section call: its ```json fence line's blanks could run past the bound.
  const sectionFence = (length: number) =>
    `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n\`\`\`json${blanks(length - '```json'.length)}\n{"k": 1}\n\`\`\`<｜tool▁call▁end｜><｜tool▁calls▁end｜>`;
  for (const [length, outcome] of [
    [LOOKAHEAD.bodyFence.value, 'call'],
    [LOOKAHEAD.bodyFence.value + 1, 'error invalid-json'],
    [4 * LOOKAHEAD.bodyFence.value, 'error invalid-json'],
  ] as const) {
    it(`bodyFence: a DeepSeek V3 call's fence line of ${length} characters, whole and in chunks`, () => {
      const { whole } = results(sectionFence(length), { dialect: 'deepseek' });
      expect(summary(whole)).toBe(outcome);
    });
  }
  // After a string's quote, its comma, an unquoted key and its colon confirm that the quote
  // closes the string (the key is repaired): the look from the quote to the colon is bounded
  // too. Past it the quote is the string's text, and the string runs to the input's end.
  const unquotedKey = (length: number) =>
    `<tool_call>{"name": "f", "arguments": {"k": "a", ${word(length - ', '.length)}: 1}}</tool_call>`;
  for (const [length, outcome] of [
    [LOOKAHEAD.jsonToken.value, 'warning repaired-json'],
    [LOOKAHEAD.jsonToken.value + 1, 'error incomplete-tool-call'],
    [4 * LOOKAHEAD.jsonToken.value, 'error incomplete-tool-call'],
  ] as const) {
    it(`jsonToken: a colon ${length} characters after the quote, whole and in chunks`, () => {
      const { whole } = results(unquotedKey(length), { dialect: 'hermes' });
      expect(summary(whole)).toBe(outcome);
    });
  }
});

describe('the names the renderer and grammars write as elements are the ones the parser reads', () => {
  // `tagName` bounds a name and the blanks before `>`: the longest element name is one less.
  // isElementName decides which argument names the <tool> and Cline grammars write as elements.
  for (const length of [LOOKAHEAD.tagName.value - 1, LOOKAHEAD.tagName.value]) {
    const name = 'k'.repeat(length);
    it(`a name of ${length} characters: an element name exactly when the parser reads it`, () => {
      const read = parse(tool(`<${name}>x</${name}>`));
      const readAsElement = read.warnings.length === 0 && read.calls[0]?.arguments[name] === 'x';
      expect(isElementName(name)).toBe(readAsElement);
      expect(readAsElement).toBe(length < LOOKAHEAD.tagName.value);
    });
  }
});
