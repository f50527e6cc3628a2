import { isWhitespace } from './chars.js';
import type {
  ArgumentPath,
  CallFormat,
  ParseErrorCode,
  ParseWarningCode,
  PartialCall,
  ToolArguments,
} from './events.js';
import type { ArgumentSchema } from './markup/arguments-tree.js';
import { mayBecomeMatch } from './regex-prefix.js';

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
 * A dialect's block: it opens with `open` at a line start (or anywhere, for a special token),
 * and `stream` reads it from there (`open` included) to its end.
 */
export interface BlockReader {
  open: string;
  /**
   * The opening is a special token of its model family (`<tool_call>`, `<function_calls>`):
   * prose does not write it by accident, so it opens a block anywhere in a line (outside
   * fences), not only at a line start.
   */
  anywhere?: boolean;
  /**
   * For an opening that is no special token: whether, in the middle of a line, what follows
   * it (from `after`) confirms it opens a block; null when more input decides. Absent: it
   * opens only at a line start (or anywhere, with `anywhere`).
   */
  midLine?: (s: string, after: number, final: boolean) => boolean | null;
  /**
   * For an opening too short to tell on its own (Llama 4's `[`): whether what follows it
   * (from `after`) confirms a block at a line start; null when more input decides.
   */
  lineStart?: (s: string, after: number, final: boolean) => boolean | null;
  /**
   * A block that opens only at the very start of the input, with no opening of its own (`open`
   * is ''): the reply began inside its prompt, which ended with the block's opening (gpt-oss's
   * `<|start|>assistant`, functionary's `>>>`). Whether `s` from 0 begins one; null when more
   * input decides.
   */
  inputStart?: (s: string, final: boolean) => boolean | null;
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
  stream(sink: BlockSink, limits: BlockLimits): BlockStream;
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
export const MAX_LEADING_BLANKS = 256;

/**
 * A block whose form is told by the first character of its body that is not blank, after
 * the opening `open` (`<tool_call>` holds Qwen3-Coder's tags, Hermes' JSON or GLM's name):
 * `pick` gives the index in `forms` of the stream for it (for '' when the input ends first),
 * which then reads the whole block, opening included. The streams are built once a parse and
 * reset for each block (a new body reader per block was a tenth of Mistral's time, most of it
 * the garbage collector's).
 */
export function byFirstCharacter(
  open: string,
  pick: (first: string) => number,
  forms: ReadonlyArray<() => BlockStream>,
): BlockStream {
  return new FirstCharacterStream(open, pick, forms);
}

/**
 * A class, not an object literal: a literal's `status` getter is a new closure each time, so
 * each stream got a hidden class of its own. Those live in the old generation, and through
 * the getter's closure each one kept its whole parser alive past every minor collection:
 * a fresh parser of `auto` reading one `<tool_call>` cost 24 µs, four fifths of it the
 * garbage collector's, against 4 µs now.
 */
class FirstCharacterStream implements BlockStream {
  readonly #open: string;
  readonly #pick: (first: string) => number;
  readonly #forms: ReadonlyArray<() => BlockStream>;
  readonly #built: Array<BlockStream | undefined> = [];
  #inner: BlockStream | null = null;

  constructor(
    open: string,
    pick: (first: string) => number,
    forms: ReadonlyArray<() => BlockStream>,
  ) {
    this.#open = open;
    this.#pick = pick;
    this.#forms = forms;
  }

  run(s: string, from: number, offset: number, final: boolean): number {
    if (this.#inner === null) {
      const bodyStart = from + this.#open.length;
      const limit = bodyStart + MAX_LEADING_BLANKS;
      const first = skipBlanks(s, bodyStart, Math.min(s.length, limit));
      if (first >= s.length && !final) return from;
      const index = this.#pick(s[first] ?? '');
      this.#inner = this.#built[index] ??= this.#forms[index]();
    }
    return this.#inner.run(s, from, offset, final);
  }

  streamValue(chunk: string): Streamed {
    return this.#inner?.streamValue(chunk) ?? Streamed.No;
  }

  takeOwed(text: string): void {
    this.#inner?.takeOwed?.(text);
  }

  continues(chunk: string): boolean {
    return this.#inner?.continues?.(chunk) === true;
  }

  get status(): BlockStatus {
    return this.#inner?.status ?? BlockStatus.Open;
  }

  stop(code: ParseErrorCode, message: string, offset: number): BlockFailure {
    // Stopped before its first character picked a form: the first form says the failure (every
    // form is of one dialect, so it names the block's format).
    this.#inner ??= this.#built[0] ??= this.#forms[0]();
    return this.#inner.stop(code, message, offset);
  }

  reset(): void {
    // A stream that cannot be made new is built again when it is picked next.
    const built = this.#built;
    for (let i = 0; i < built.length; i++) {
      const stream = built[i];
      if (stream?.reset === undefined) built[i] = undefined;
      else if (stream === this.#inner) stream.reset();
    }
    this.#inner = null;
  }
}

/** The longest look past an opening for what confirms it (a name and `(`, `name>{`). */
const MAX_HEAD_LOOK = 300;

/**
 * Whether `head` (a sticky pattern) matches at `after`: true or false, or null while the
 * input may still become a match (it ends within `MAX_HEAD_LOOK` on the beginning of one).
 */
export function confirmedBy(head: RegExp) {
  const begun = mayBecomeMatch(head);
  return (s: string, after: number, final: boolean): boolean | null => {
    head.lastIndex = after;
    if (head.test(s)) return true;
    return !final && s.length - after < MAX_HEAD_LOOK && begun(s, after) ? null : false;
  };
}
