/**
 * Memory per open parser: many parsers alive at once, each in the middle of a call (its block
 * open, a value being streamed), as a server holding many streams has them. Heap bytes per
 * parser after a full collection, for the dialects of the set-up table.
 */
import { createParser, type Parser } from 'tagcall/protocol';

/** Each call cut in the middle of its value: the block is open when the parser is held. */
type Measured = 'tagcall' | 'hermes' | 'qwen3-coder' | 'gpt-oss' | 'auto';

const HALF_CALLS: [Measured, string][] = [
  [
    'tagcall',
    '<tool><server_name>fs</server_name><tool_name>read_file</tool_name><arguments><path>src/ind',
  ],
  ['hermes', '<tool_call>\n{"name": "read_file", "arguments": {"path": "src/ind'],
  ['qwen3-coder', '<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/ind'],
  [
    'gpt-oss',
    '<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"path":"src/ind',
  ],
  ['auto', '<tool_call>\n{"name": "read_file", "arguments": {"path": "src/ind'],
];

const PARSERS = 5000;

/**
 * The same measure on the build #42 was filed on (803024c, this file copied into it), on the
 * machine of docs/benchmarks.md: what "no larger than today" is held to.
 */
export const FILING_BYTES: Readonly<Record<Measured, number>> = {
  tagcall: 4060,
  hermes: 5520,
  'qwen3-coder': 4187,
  'gpt-oss': 5378,
  auto: 6187,
};

export interface OpenParserRow {
  dialect: Measured;
  /** Heap bytes per open parser (the mean over PARSERS of them). */
  bytes: number;
}

function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

export function runOpenParsers(): OpenParserRow[] {
  return HALF_CALLS.map(([dialect, text]) => {
    const onEvent = () => {};
    // One round first, so what a dialect builds once (its tables) is not counted.
    createParser({ dialect, onEvent }).feed(text);
    const base = heapAfterGc();
    const held: Parser[] = [];
    for (let i = 0; i < PARSERS; i++) {
      const parser = createParser({ dialect, onEvent });
      parser.feed(text);
      held.push(parser);
    }
    const bytes = (heapAfterGc() - base) / PARSERS;
    // The parsers are used after the collection, so none is collected before it is counted.
    for (const parser of held) parser.end();
    return { dialect, bytes };
  });
}
