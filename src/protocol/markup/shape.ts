import { isWhitespace } from '../chars.js';
import type { MarkupRecoveryKind } from './form.js';
/**
 * What the shared markup reader (markup/core.ts) and the shapes of a form's tags
 * (markup/xml-elements.ts, markup/literal-tags.ts) agree on: the states, how a step answers,
 * and what a shape does.
 */
export enum State {
  Start = 0,
  /** Inside the wrapper, between calls. */
  Between = 1,
  /** Inside a call, between its children. */
  InCall = 2,
  /** In a value's text. */
  Value = 3,
  /** After a call written without its wrapper: the wrapper's orphan close may follow. */
  Trailer = 4,
  /** A shape's own states (its `step` reads them): a field that names the call. */
  Field = 5,
  /** In the arguments' container or an element that holds elements (or may). */
  Children = 6,
  Cdata = 7,
  /** The deprecated JSON form's object. */
  Json = 8,
  JsonTail = 9,
  Done = 10,
  Failed = 11,
  /**
   * A call of the block could not be read (`unreadable-arguments`): the rest of the block, up
   * to its close, is no call either, and the block fails there.
   */
  Drain = 12,
}

/** `run`'s steps answer as every block stream's do (block.ts). */
export { wait } from '../block.js';
/** What a value's `<` step answers when the `<` is the value's own text (no `wait` is this). */
export const TEXT = Number.MIN_SAFE_INTEGER;

export interface OpenCall {
  id: string;
  name: string;
  server: string | undefined;
}

/**
 * What a form's tags add to the shared reading (`MarkupForm.tags` chooses one): how a call's
 * children are read, what ends a value, and any states of their own. Its calls see the
 * reader's text of the current run (`MarkupCore.s`) and answer as `run`'s steps do.
 */
export interface MarkupShape {
  /** The recoveries its reading may make, every form's included (the declaration holds their rows). */
  readonly kinds: readonly MarkupRecoveryKind[];
  /** `&` begins a character reference in a value's text (XML); else it is text. */
  readonly entities: boolean;
  /** Between a call's children at `k` (blanks skipped, not the input's end): what is there. */
  inCall(k: number): number;
  /** The `<` at `lt` in a value's text (written up to `from`): `TEXT`, or where to go on. */
  valueEnd(lt: number, from: number): number;
  /** Whether the `<` at `lt` may begin what ends or changes a value (true at the end of `s`). */
  mayEndValue(s: string, lt: number): boolean;
  /** A step in one of the shape's own states (from `State.Field` on). */
  step(i: number): number;
  /** The call's arguments need no close of their own: at the input's end the call is complete. */
  argumentsClosed(): boolean;
  /** A new call begins: the shape forgets what it knew of the last one. */
  clearCall(): void;
}

/** Whether a line start follows `s[from, to)`, given whether one preceded it (`before`). */
export function endsAtLineStart(s: string, from: number, to: number, before: boolean): boolean {
  for (let k = to - 1; k >= from; k--) {
    const c = s.charCodeAt(k);
    if (c === 0x0a || c === 0x0d) return true;
    if (c !== 0x20 && c !== 0x09) return false;
  }
  return before;
}

/**
 * Where `s` goes on past the blanks from `from` (its length when it ends in them); in a call
 * logged escaped, `\n`, `\r` and `\t` written as two characters are blanks too. -1 when it
 * ends in a backslash that may begin one.
 */
export function skipCallBlanks(s: string, from: number, escaped: boolean): number {
  const n = s.length;
  let k = from;
  for (;;) {
    while (k < n && isWhitespace(s.charCodeAt(k))) k++;
    if (!escaped || k >= n || s.charCodeAt(k) !== 0x5c) return k;
    if (k + 1 >= n) return -1;
    if (!'nrt'.includes(s[k + 1])) return k;
    k += 2;
  }
}
