import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type BlockFailure,
  BlockStatus,
  type BlockStream,
  Streamed,
} from '../src/protocol/block.js';
import type { BuiltReader } from '../src/protocol/built-reader.js';
import { CallAssembler } from '../src/protocol/call-assembler.js';
import { DIALECT_RECOVERIES } from '../src/protocol/dialects/index.js';
import {
  END_OF_INPUT,
  type EndOfInputId,
  type EndOfInputRow,
} from '../src/protocol/end-of-input.js';
import type { ParserEvent } from '../src/protocol/events.js';
import { createFold, type ParseOptions, type ParseResult } from '../src/protocol/parse.js';
import { recoveryMessage } from '../src/protocol/recoveries.js';
import { createParser, parse } from './support/all.js';

// #42 item 2: the end of the input is decided from one table. Each row gets an input that ends
// in its state; the row's outcome (and its code, message and offset) must be what comes out,
// whole, in small chunks and through parse(). A row added without a case fails here.

const ROOT = join(import.meta.dirname, '..');

interface EndCase {
  input: string;
  options?: ParseOptions;
  /** The markers the row's message is built from (the close, or the opening and the close). */
  markers?: readonly string[];
  /** Where the row's warning or error stands. */
  offset?: number;
  /** Something is held undecided when the input has been fed, before `end()`. */
  held: boolean;
  /** Calls read before the input ended in the row's state (0 unless said). */
  calls?: number;
}

const TOOL_CALL = '<tool>\n<tool_name>a</tool_name>\n<arguments><x>1';

/** An input for each row, ending where the row says. */
const CASES: Record<Exclude<EndOfInputId, 'block-open'>, EndCase> = {
  'mid-line': { input: 'hello wor', held: false },
  'line-start-blanks': { input: 'a\n  ', held: false },
  'partial-surrogate': { input: 'a \ud83d', held: true },
  'partial-opening': { input: 'hello\n<too', held: true },
  'partial-opening-mid-line': {
    input: 'see <|tool_calls_sec',
    options: { dialect: 'kimi-k2' },
    held: true,
  },
  'partial-input-start': { input: ' to=func', options: { dialect: 'gpt-oss' }, held: true },
  'partial-think-tag': { input: 'hello\n<thi', held: true },
  'fence-line': { input: 'a\n``', held: true },
  'bracket-open': { input: 'hi\n[abc', held: true },
  'bracket-closed': { input: 'a\n[abc]  ', held: true },
  'thinking-open': { input: '<think>abc</thi', markers: ['</think>'], offset: 15, held: true },
  'thinking-after-call': {
    input:
      '<think>abc<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>',
    options: { dialect: 'kimi-k2' },
    markers: ['</think>'],
    offset: 143,
    calls: 1,
    held: false,
  },
  'prefilled-undecided': { input: 'abc</thi', options: { prefilledThinking: 'auto' }, held: true },
  'markup-cut': { input: TOOL_CALL, markers: ['<tool>', '</tool>'], offset: 0, held: false },
  'markup-opening-cut': {
    input: '<function_calls>\n<invoke',
    options: { dialect: 'anthropic-xml' },
    offset: 17,
    held: true,
  },
  'markup-cdata': {
    input: '<tool>\n<tool_name>a</tool_name>\n<x><![CDATA[1',
    offset: 0,
    held: false,
  },
  'markup-call-complete': {
    input: `${TOOL_CALL}</x></arguments>`,
    markers: ['</tool>'],
    offset: 63,
    held: false,
  },
  'markup-between-calls': {
    input: '<function_calls>\n<invoke name="a">\n<parameter name="x">1</parameter>\n</invoke>\n',
    options: { dialect: 'anthropic-xml' },
    markers: ['</function_calls>'],
    offset: 79,
    held: true,
  },
  'markup-trailer': {
    input: '<function=a>\n<parameter=x>\n1\n</parameter>\n</function>\n',
    options: { dialect: 'qwen3-coder' },
    held: true,
  },
  'body-header-cut': {
    input: '<|tool_call>call:get_w',
    options: { dialect: 'gemma4' },
    offset: 0,
    held: true,
  },
  'body-value-cut': {
    input: '<tool_call>\n{"name": "a", "arguments": {"x": 1',
    options: { dialect: 'hermes' },
    offset: 0,
    held: true,
  },
  'body-word-at-end': {
    input: '<tool_call>\n{"name": "a", "arguments": {"x": yes',
    options: { dialect: 'hermes' },
    offset: 45,
    held: true,
  },
  'body-close-partial': {
    input: '<function_calls>\nget_weather(city="Paris", n=3)\n<',
    options: { dialect: 'olmo3' },
    markers: ['</function_calls>'],
    offset: 49,
    held: true,
  },
  'body-call-complete': {
    input: '<tool_call>\n{"name": "a", "arguments": {}}',
    options: { dialect: 'hermes' },
    markers: ['</tool_call>'],
    offset: 42,
    held: false,
  },
  'body-list-open': {
    input: '<tool_call>[{"name": "a", "arguments": {}}',
    options: { dialect: 'granite' },
    markers: [']'],
    offset: 42,
    held: false,
  },
  'sections-empty': {
    input: '<|tool_calls_section_begin|>\nhm',
    options: { dialect: 'kimi-k2' },
    offset: 31,
    held: false,
  },
  'sections-header-cut': {
    input: '<|tool_calls_section_begin|>\n<|tool_call_begin|>functions.get_w',
    options: { dialect: 'kimi-k2' },
    offset: 29,
    held: false,
  },
  'message-header-cut': {
    input: '<|start|>assistant<|chan',
    options: { dialect: 'gpt-oss' },
    offset: 0,
    held: true,
  },
  'message-thinking': {
    input: '<|channel|>analysis<|message|>let me think',
    options: { dialect: 'gpt-oss' },
    held: false,
  },
};

/** The events of `input` fed in chunks of `size` (0: whole), then `end()`; and what was held. */
function feed(c: EndCase, size: number): { result: ParseResult; held: number } {
  const fold = createFold();
  const parser = createParser({ ...c.options, onEvent: fold.add });
  const step = size === 0 ? c.input.length : size;
  for (let i = 0; i < c.input.length; i += step) parser.feed(c.input.slice(i, i + step));
  const held = parser.held;
  parser.end();
  return { result: fold.result(), held };
}

/**
 * The row's message for the case's markers, when the row has one: an error row's own, a
 * warning row's from its recovery's row in the case's dialect's declaration (whose code it is).
 */
function messageOf(row: EndOfInputRow, c: EndCase): string | undefined {
  const markers = c.markers ?? [];
  if (row.code === undefined) return undefined;
  if (row.outcome === 'error')
    return row.message === undefined
      ? undefined
      : (row.message as (...parts: string[]) => string)(...markers);
  const dialect = c.options?.dialect ?? 'tagcall';
  if (dialect === 'auto') throw new Error(`${row.id}: name the dialect whose words it checks`);
  const recovery = DIALECT_RECOVERIES[dialect][row.recovery];
  expect(recovery?.code, `${dialect} declares ${row.recovery} as ${row.code}`).toBe(row.code);
  return recovery === undefined ? undefined : recoveryMessage(recovery, { close: markers[0] });
}

/** Checks the outcome the row says on one way of reading the case. */
function expectOutcome(row: EndOfInputRow, c: EndCase, result: ParseResult): void {
  const message = messageOf(row, c);
  const noticed = {
    ...(message !== undefined && { message }),
    ...(c.offset !== undefined && { offset: c.offset }),
  };
  switch (row.outcome) {
    case 'text':
      expect(result).toEqual({ text: c.input, thinking: [], calls: [], warnings: [], errors: [] });
      break;
    case 'call':
      expect(result.errors).toEqual([]);
      expect(result.calls).toHaveLength(1);
      if (row.code === undefined)
        expect(result.warnings.filter((w) => w.code === 'unclosed-call-at-end')).toEqual([]);
      else
        expect(result.warnings).toContainEqual(
          expect.objectContaining({ code: row.code, ...noticed }),
        );
      break;
    case 'error':
      expect(result.calls).toEqual([]);
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0]).toMatchObject({ code: row.code, ...noticed });
      // Nothing is lost: the block comes back as text.
      expect(result.text).toBe(c.input);
      break;
    case 'thinking':
      expect(result.errors).toEqual([]);
      expect(result.calls).toHaveLength(c.calls ?? 0);
      expect(result.thinking).toHaveLength(1);
      if (row.code === undefined) expect(result.warnings).toEqual([]);
      else expect(result.warnings).toEqual([{ code: row.code, ...noticed }]);
      break;
  }
}

describe('the end-of-input table (src/protocol/end-of-input.ts)', () => {
  it('has a case for every row, and no case without a row', () => {
    const rows = Object.keys(END_OF_INPUT).filter((id) => id !== 'block-open');
    expect(Object.keys(CASES).sort()).toEqual(rows.sort());
  });

  it('keys each row by its own id, and writes no `|` (a cell of the docs table)', () => {
    for (const [key, row] of Object.entries(END_OF_INPUT)) {
      expect(row.id).toBe(key);
      expect(row.where).not.toContain('|');
    }
  });

  // Row by row: a row added to the table without a case here fails its own test.
  for (const row of Object.values(END_OF_INPUT) as EndOfInputRow[]) {
    if (row.id === 'block-open') continue;
    it(`${row.id}: ${row.outcome}${row.code === undefined ? '' : ` (${row.code})`}`, () => {
      const c = (CASES as Record<string, EndCase | undefined>)[row.id];
      if (c === undefined) throw new Error(`no case for the row ${row.id}: add one to CASES`);
      expect(parse(c.input, c.options)).toEqual(feed(c, 0).result);
      expectOutcome(row, c, parse(c.input, c.options));
      for (const size of [0, 1, 3]) {
        const { result, held } = feed(c, size);
        expectOutcome(row, c, result);
        // The input ends in the row's state: undecided rows hold what the end decides.
        if (size === 0) expect(held > 0, `held ${held}`).toBe(c.held);
      }
    });
  }

  it("block-open: a block its engine leaves open at the end fails with the row's error", () => {
    // Every engine of the project decides its own end by its rows first, so no input reaches
    // the assembler's rule: an engine that never decides shows it.
    const events: ParserEvent[] = [];
    const assembler = new CallAssembler({
      limits: { maxDepth: 8, schemas: undefined },
      maxCallBytes: 1024,
      nextId: () => 'call_0',
      emit: (event) => events.push(event),
    });
    const undecided: BlockStream = {
      status: BlockStatus.Open,
      run: (s) => s.length,
      streamValue: () => Streamed.No,
      stop: (code, message, offset): BlockFailure => ({ code, message, offset, format: 'hermes' }),
    };
    // A reader as the engine builds one, with a stream of its own.
    const reader: BuiltReader = {
      open: '<x>',
      anywhere: false,
      midLine: undefined,
      lineStart: undefined,
      inputStart: undefined,
      endsThinking: false,
      inFence: false,
      wordStart: false,
      stream: () => undecided,
    };
    assembler.begin(reader, 5);
    expect(assembler.run('<x>partial', 0, 5, false)).toBe(10);
    expect(events).toEqual([]);
    assembler.run('<x>partial', 10, 5, true);
    const row = END_OF_INPUT['block-open'];
    expect(events).toEqual([
      { type: 'error', code: row.code, message: row.message(), offset: 5, format: 'hermes' },
      { type: 'text', text: '<x>partial' },
    ]);
  });

  it('reads a cut as cut, never as malformed: a Python call cut in its name, a close after a complete call', () => {
    for (const dialect of ['lfm2', 'olmo3'] as const) {
      const open = dialect === 'lfm2' ? '<|tool_call_start|>[' : '<function_calls>\n';
      const named = parse(`${open}get_wea`, { dialect });
      expect(named.calls).toEqual([]);
      expect(named.errors.map((e) => e.code)).toEqual(['incomplete-tool-call']);
      const closed = parse(
        `${open}get_weather(city="Paris")${dialect === 'lfm2' ? ']<|tool' : '\n</func'}`,
        {
          dialect,
        },
      );
      expect(closed.errors).toEqual([]);
      expect(closed.calls.map((c) => [c.toolName, c.arguments])).toEqual([
        ['get_weather', { city: 'Paris' }],
      ]);
      expect(closed.warnings.map((w) => w.code)).toEqual(['unclosed-call-at-end']);
    }
  });

  it('names each row where the code decides it', () => {
    const dir = join(ROOT, 'src/protocol');
    const sources = readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && file !== 'end-of-input.ts')
      .map((file) => readFileSync(join(dir, file), 'utf8'))
      .join('\n');
    const unnamed = Object.keys(END_OF_INPUT).filter((id) => !sources.includes(`'${id}'`));
    expect(unnamed).toEqual([]);
  });
});

/** How docs/parser.md writes a row's outcome. */
function outcomeCell(row: EndOfInputRow): string {
  if (row.outcome === 'error') return `error \`${row.code}\``;
  const outcome = { text: 'text', call: 'a call', thinking: 'thinking ends' }[row.outcome];
  return row.code === undefined ? outcome : `${outcome}, warning \`${row.code}\``;
}

describe('docs/parser.md "End of input"', () => {
  it('lists the table, row by row, in its order', () => {
    const doc = readFileSync(join(ROOT, 'docs/parser.md'), 'utf8');
    const start = doc.indexOf('\n## End of input\n');
    expect(start).toBeGreaterThan(-1);
    const next = doc.indexOf('\n## ', start + 1);
    const section = doc.slice(start, next === -1 ? doc.length : next);
    const listed = section
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => line.slice(2, -2).split(' | '));
    const expected = Object.values(END_OF_INPUT).map((row: EndOfInputRow) => [
      `\`${row.id}\``,
      row.where,
      outcomeCell(row),
    ]);
    expect(listed).toEqual(expected);
  });
});
