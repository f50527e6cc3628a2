import type { BlockSink, Streamed } from '../block.js';
import type { ParseErrorCode } from '../events.js';
import { LOOKAHEAD } from '../lookahead.js';
import type { CallBuilder } from './calls.js';
import type { BodyForm, BodyTests } from './form.js';

/** Where a body reader is; the states from `Between` on are its kinds' (sections.ts, messages.ts). */
export enum State {
  Start = 0,
  /** A named body's header (its tool's name). */
  Header = 1,
  /** A fenced body's opening fence line, before its calls. */
  FenceOpen = 2,
  /** The body's value, read by the model-JSON reader. */
  Body = 3,
  /** After the body's value: the block's (or the call's) close. */
  AfterBody = 4,
  Done = 5,
  Failed = 6,
  /** Inside a section, between its calls. */
  Between = 7,
  /** A section call's header, up to its separator. */
  CallHeader = 8,
  /** A section call's name on the line after the separator. */
  CallName = 9,
  /** A message's header, up to its end. */
  Message = 10,
  /** A message of thinking. */
  Thinking = 11,
}

/** The longest header (a name, a message's header) read before it is no call. */
export const MAX_HEADER = LOOKAHEAD.bodyHeader.value;
/** The longest fence line held while it may still become one. */
export const MAX_FENCE = LOOKAHEAD.bodyFence.value;

/**
 * What the body reader (reader.ts) lends the steps of a kind: its state, its calls, and its
 * ways to read a value, end the block and fail. Steps return where they got to, or
 * `-(where they wait) - 1`.
 */
export interface BodyHost {
  readonly form: BodyForm;
  /** What the form's patterns give the engine. */
  readonly tests: BodyTests;
  readonly sink: BlockSink;
  readonly builder: CallBuilder;
  state: State;
  blockStart: number;
  /** A fence stood before the body: its end may follow it. */
  fenced: boolean;
  /** A call's value is read next, up to one of `closes`. */
  newReader(closes: readonly string[], closeInStrings: boolean): void;
  /** The block ends at absolute `end` (`next` in the text): its last call ends with it. */
  end(end: number, next: number): number;
  /** The input ended where only `close` was missing: the complete call is a call, told. */
  endedUnclosed(s: string, offset: number, close: string): number;
  fail(code: ParseErrorCode, message: string, offset: number): void;
  /** Why a block the input ended inside is cut short. */
  unclosed(): string;
}

/**
 * The steps of a kind of body beyond a call's value (`sections`, `messages`): the body reader
 * runs them in the kind's states, one object per reader. The reader is one class for every
 * kind (not a subclass a kind), so a declaration names no reader, and the reader's own steps
 * meet one shape of object wherever parsers of several kinds run side by side.
 */
export interface BodyKind {
  /** The block's opening was read (`next` is after it): the kind's first state. */
  begin(at: number, next: number): number;
  /** A step in one of the kind's states. */
  step(s: string, i: number, offset: number, final: boolean): number;
  /** After a call's value, read without failure. */
  afterValue(s: string, i: number, offset: number, final: boolean): number;
  unclosed(): string;
  /** The streaming fast path in the kind's states (Streamed.No: none). */
  streamValue(chunk: string): Streamed;
  reset(): void;
}
