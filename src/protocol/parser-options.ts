import type { Dialect } from './dialect-names.js';
import type { ParserEvent } from './events.js';
import { LOOKAHEAD } from './lookahead.js';
import type { ArgumentSchema } from './markup/arguments-tree.js';

/**
 * Whether the output begins inside thinking because the chat template already wrote `<think>`:
 * `'auto'` decides from the text (a `</think>` before any call or thinking block), `'always'`
 * starts in thinking, `'never'` reads a leading `</think>` as text.
 */
export type PrefilledThinking = 'auto' | 'always' | 'never';

export interface ParserOptions {
  onEvent: (event: ParserEvent) => void;
  /** Default `'auto'`: text at the start is held until it is decided, at most `maxHold` characters. */
  prefilledThinking?: PrefilledThinking;
  /** Largest tool block, in UTF-16 code units (bytes for ASCII). Default 8 MiB. */
  maxCallBytes?: number;
  /** Deepest nesting of argument elements. Default 32. */
  maxDepth?: number;
  /**
   * The most characters the parser holds undecided: a `[` bracket waiting for its `]`, or the
   * start of a reply that may be pre-filled thinking. Past it the text is released as text.
   * Default 16384.
   */
  maxHold?: number;
  /** Argument schemas by tool name: they decide strings and lists while arguments stream. */
  schemas?: Readonly<Record<string, ArgumentSchema>>;
  /** Ids of calls, from their index in the stream. Default `call_0`, `call_1`, … */
  generateId?: (index: number) => string;
  /**
   * Which written form of calls to read. Default `tagcall` (the `<tool>` protocol); `auto`
   * reads every dialect, each block by its opening tag. Every dialect streams: `tool-name`
   * when its name is read, `argument-delta` while a string value is written (for JSON bodies,
   * a preview of their string arguments: the parse at the block's end decides).
   */
  dialect?: Dialect | 'auto';
  /** Tool names, for the `cline` dialect (and `auto`): `<name>` at a line start opens a call. */
  toolNames?: readonly string[];
}

export const PARSER_DEFAULTS = {
  prefilledThinking: 'auto' as PrefilledThinking,
  maxCallBytes: 8 * 1024 * 1024,
  maxDepth: 32,
  maxHold: LOOKAHEAD.maxHold.value,
  generateId: (index: number): string => `call_${index}`,
};

export interface Parser {
  /** Reads the next chunk of the stream. Never throws on any text. */
  feed(chunk: string): void;
  /** Ends the stream: whatever is held is decided, unclosed blocks are reported. */
  end(): void;
  /** Forgets everything, ready for a new stream. */
  reset(): void;
  /**
   * How many characters of the input are read but not yet decided (held back): a partial tag,
   * a bracket waiting for its `]`, what may confirm a close. docs/parser.md gives its bound.
   */
  readonly held: number;
}
