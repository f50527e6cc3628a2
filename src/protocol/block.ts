import type { BodyForm } from './body/form.js';
import { isWhitespace } from './chars.js';
import type {
  ArgumentPath,
  CallFormat,
  ParseErrorCode,
  ParseWarningCode,
  PartialCall,
  ToolArguments,
} from './events.js';
import { LOOKAHEAD } from './lookahead.js';
import type { ArgumentSchema } from './markup/arguments-tree.js';
import type { MarkupForm } from './markup/form.js';

/**
 * How a block stream's steps (and `run`) answer: where they got to, or `wait(i)` (< 0) when
 * the text from `i` on needs more input; `waitedAt` reads the place back. One convention for
 * every engine.
 */
export const wait = (i: number): number => -i - 1;
export const waitedAt = (step: number): number => -step - 1;

/** What bounds a block: the parser's own limits and what it knows of the tools. */
export interface BlockLimits {
  /** How deep arguments may nest (a JSON body's arrays and objects too). */
  maxDepth: number;
  /** Argument schemas by tool name: a property whose type is not `array` keeps its last value. */
  schemas: Readonly<Record<string, ArgumentSchema>> | undefined;
}

/**
 * Where a block's events go. The parser owns ids, offsets of calls and their raw text; a
 * block stream says what it read, in order, as it reads it.
 */
export interface BlockSink {
  /** A call begins (its text starts where the last call's ended); returns its id. */
  start(): string;
  /** The call's name, as soon as it is read (again if the server is named later). */
  name(id: string, toolName: string, serverName?: string): void;
  /** Decoded text of the string argument at `path` as it is written. */
  delta(id: string, path: ArgumentPath, text: string): void;
  /** A model's mistake read anyway, at absolute `offset`; of call `id` when one is open. */
  warn(code: ParseWarningCode, message: string, offset: number, id?: string): void;
  /** Call `id` is complete; its text ends at absolute `end` (at or before what was consumed). */
  end(
    id: string,
    toolName: string,
    args: ToolArguments,
    format: CallFormat,
    end: number,
    serverName?: string,
  ): void;
  /** The block's text since the last call (or the block's start) up to absolute `end` is text. */
  text(end: number): void;
  /** …or one of its family's answer markers (a harmony final message's header). */
  marker(end: number): void;
  /** Thinking begins where the last call ended (or the block began)… */
  thinkingStart(): void;
  /** …its text as it is written… */
  thinking(text: string): void;
  /** …and it ends at absolute `end` (its markers are its own). */
  thinkingEnd(end: number): void;
}

export enum BlockStatus {
  Open = 0,
  /** The block closed; every call it holds was told to the sink. */
  Done = 1,
  /** The block is no (further) call: see `stop`. What was consumed since the last call goes back as text. */
  Failed = 2,
}

/** What a stream's fast path did with a chunk. */
export enum Streamed {
  /** Not taken: the chunk goes through `run`. */
  No = 0,
  /** Taken: its events are out and the stream keeps what it needs of it. */
  Kept = 1,
  /**
   * Taken and its events are out, but not kept: the assembler gives a run of such chunks
   * back at once (`takeOwed`) instead of the stream keeping every small piece as the block's
   * raw text does (a second concatenation per chunk, a quarter of a 4-character chunk's cost).
   */
  Owed = 2,
}

export interface BlockFailure {
  code: ParseErrorCode;
  message: string;
  /** The form the block was read as (the error event's `format`). */
  format: CallFormat;
  /** Absolute offset the failure points at. */
  offset: number;
  /** The call that was being read, if one had started. */
  callId?: string;
  partial?: Omit<PartialCall, 'raw'>;
  /**
   * The block failed because its own opening came again where it expected its content (a
   * `<tool>` inside an unclosed `<tool>`): a new block of the same reader opens there.
   */
  reopen?: boolean;
}

/**
 * One dialect block being read, as a state machine over the parser's buffer (as the `<tool>`
 * call parser is): `run` reads `s` from `from` (absolute offset of `s[0]` is `offset`) and
 * returns how far it consumed; what it did not consume it reads again, with more, next time.
 * With `final` the input has ended and everything is decided.
 */
export interface BlockStream {
  run(s: string, from: number, offset: number, final: boolean): number;
  /**
   * The streaming fast path: when the block is inside a value and `chunk` holds nothing that
   * could end it, takes it whole as value text; otherwise `Streamed.No`, and the chunk goes
   * through `run`. Only called when the stream holds nothing back.
   */
  streamValue(chunk: string): Streamed;
  /**
   * The text of the chunks it answered `Streamed.Owed`, in one piece and in order, given back
   * before its next `run`. A stream that is owed text answers no `Streamed.Kept` until then.
   */
  takeOwed?(text: string): void;
  /**
   * While `run` waits on a partial token at the end of its text (src/protocol/partial-token.ts):
   * whether `chunk` continues it without deciding it. True takes the chunk, and `run` is not
   * called again until a chunk that may decide it.
   */
  continues?(chunk: string): boolean;
  readonly status: BlockStatus;
  /**
   * Makes the stream new for the next block of its reader: a stream that has it is kept for
   * the whole parse instead of being built per block.
   */
  reset?(): void;
  /**
   * Why the block failed (`status` Failed); or, while it is open, ends it with this failure
   * (the parser's cap on a block's length).
   */
  stop(code: ParseErrorCode, message: string, offset: number): BlockFailure;
}

/** One call read from a gathered block; `end` is where its text ends in the block. */
export interface BlockCall {
  serverName: string;
  toolName: string;
  arguments: ToolArguments;
  end: number;
}

/** A model's mistake a reader recovered from: said as a warning of call number `call`. */
export interface BlockWarning {
  code: ParseWarningCode;
  message: string;
  /** Where in the block. */
  position: number;
  /** The index of the call it belongs to, in `calls`. */
  call: number;
}

export type BlockResult =
  | { ok: true; format: CallFormat; calls: BlockCall[]; warnings?: BlockWarning[] }
  | { ok: false; code: ParseErrorCode; message: string; position: number };

/** Thinking a family writes between two tags: its opening (at a line start) and its close. */
export type ThinkingTags = readonly [open: string, close: string];

/**
 * The markers a family writes around its answer (Command R7B's `<|START_RESPONSE|>` and
 * `<|END_RESPONSE|>`): structure, as its thinking tags are, read anywhere outside blocks and
 * fences by its dialect, each told as a `marker` event and left out of the text.
 */
export interface AnswerMarkers {
  readonly tokens: readonly string[];
  /**
   * They are special tokens, which prose does not write: `auto` reads them too. Plain text
   * (Granite's `<response>`) is read only in its family's dialect.
   */
  readonly specialTokens: boolean;
  /**
   * A marker read only at the input's start, where the prompt wrote what comes before it
   * (functionary v3.2's prompt ends with `>>>`, so an answer begins `all` and a newline).
   */
  readonly inputStart?: string;
}

/** The answer markers a dialect reads: anywhere, and at the input's start only. */
export interface DialectMarkers {
  readonly anywhere: readonly string[];
  readonly inputStart: readonly string[];
}

/** A block read by one form: a markup form's engine, or the body engine's. */
export type StreamForm = { markup: MarkupForm } | { body: BodyForm };

/**
 * One of the forms a block may be read by, taken when the first character of its body that is
 * not blank (`''` when the input ends first) matches `first`; the one without `first` is taken
 * otherwise.
 */
export type FirstCharacterChoice = StreamForm & { first?: RegExp };

/**
 * The form a reader's block is read by (src/protocol/built-reader.ts builds its stream): one
 * form, or the choice among forms that the body's first character makes (`<tool_call>` holds
 * Qwen3-Coder's tags, Hermes' JSON or GLM's name). The first choice listed says why a block
 * failed before its first character came.
 */
export type ReadForm = StreamForm | { byFirstCharacter: readonly FirstCharacterChoice[] };

/**
 * What confirms an opening, read right after it (from the input's start, for `inputStart`): the
 * engine builds its test once per declaration, which answers true or false, or null while more
 * input decides.
 * - a sticky RegExp: it matches there (awaited while the text may still become a match, within
 *   300 characters);
 * - a string: that text follows;
 * - `unless`: the sticky pattern does not match there (awaited alike);
 * - `afterBlanks`: past at most `maxBlanks` blanks (`leadingBlanks` of lookahead.ts when not said), the first character
 *   matches the pattern, or (`'tag'`) an opening tag `<name>` stands there; `onlyBlanks`
 *   answers when the input ends on blanks.
 */
export type Confirmation =
  | RegExp
  | string
  | { unless: RegExp }
  | { afterBlanks: RegExp | 'tag'; maxBlanks?: number; onlyBlanks: boolean };

/**
 * A dialect's block, as its family declares it (data: the engine builds its tests and its
 * stream, src/protocol/built-reader.ts): it opens with `open` at a line start (or anywhere, for
 * a special token), and the form `reads` names reads it from there (`open` included) to its end.
 */
export interface BlockReader {
  open: string;
  /**
   * The special tokens `open` is made of, in order, when it is more than one
   * (`<|action_start|>`, `<|plugin|>`): a server that decodes with spaces between special
   * tokens writes one blank between each two, and the block opens the same with any of them
   * (src/protocol/spaced-openings.ts).
   */
  openTokens?: readonly string[];
  /**
   * The opening is a special token of its model family (`<tool_call>`, `<function_calls>`):
   * prose does not write it by accident, so it opens a block anywhere in a line (outside
   * fences), not only at a line start.
   */
  anywhere?: boolean;
  /**
   * For an opening that is no special token: what, following it in the middle of a line,
   * confirms it opens a block. Absent: it opens only at a line start (or anywhere, with
   * `anywhere`).
   */
  midLine?: Confirmation;
  /** For an opening too short to tell on its own (Llama 4's `[`): what confirms it at a line start. */
  lineStart?: Confirmation;
  /**
   * A block that opens only at the very start of the input, with no opening of its own (`open`
   * is ''): the reply began inside its prompt, which ended with the block's opening (gpt-oss's
   * `<|start|>assistant`, functionary's `>>>`). What the input begins with when it begins one.
   */
  inputStart?: Confirmation;
  /**
   * The opening is a special token that thinking text cannot hold: met inside a `<think>` its
   * model never closed (Kimi-K2.5 calls from inside its thinking), it ends the thinking there,
   * with an `unclosed-thinking` warning, and opens its block.
   */
  endsThinking?: boolean;
  /**
   * Models put its block in a Markdown fence (xLAM's ```json list, Hermes' object): it opens at a line start
   * inside a fence that holds only calls so far, as `<tool>` does (other fences are text).
   */
  inFence?: boolean;
  /**
   * The opening is a word (`functools`): it opens only where no letter, digit or `_` stands
   * right before it (`my_functools[` is another word).
   */
  wordStart?: boolean;
  reads: ReadForm;
}

/**
 * The path of top-level argument `key` (the `index`-th of that name): the last one is kept, so
 * a value streamed in thousands of deltas makes one path object, not one per delta.
 */
let lastKeyPath: ArgumentPath = { names: [''], indices: [-1] };
export function keyPath(key: string, index: number): ArgumentPath {
  if (lastKeyPath.names[0] !== key || lastKeyPath.indices[0] !== index)
    lastKeyPath = { names: [key], indices: [index] };
  return lastKeyPath;
}

export const failure = (code: ParseErrorCode, message: string, position: number): BlockResult => ({
  ok: false,
  code,
  message,
  position,
});

/** Drops one newline right after the opening tag and one right before the closing one. */
export function stripOuterNewlines(value: string): string {
  let start = 0;
  let end = value.length;
  if (value.startsWith('\r\n')) start = 2;
  else if (value.startsWith('\n')) start = 1;
  if (value.endsWith('\r\n') && end - 2 >= start) end -= 2;
  else if (value.endsWith('\n') && end - 1 >= start) end -= 1;
  return value.slice(start, end);
}

/** The index of the first non-blank character at or after `at` (or `end`). */
export function skipBlanks(s: string, at: number, end: number): number {
  while (at < end && isWhitespace(s.charCodeAt(at))) at++;
  return at;
}

/** How many blanks after an opening are looked through for the body's first character. */
export const MAX_LEADING_BLANKS = LOOKAHEAD.leadingBlanks.value;
