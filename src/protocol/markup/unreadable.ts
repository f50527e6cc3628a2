import type { BlockFailure } from '../block.js';
import { Char } from '../chars.js';
import type { ParseErrorCode } from '../events.js';
import { startsWithAt } from '../tag.js';
import type { FormOpenings, MarkupForm } from './form.js';
import { State, wait } from './shape.js';

/**
 * What makes a markup call unreadable (`unreadable-arguments`): text among its children that is
 * none of them (a parameter's marker missing or wrong, prose between parameters), or a value
 * that ended unclosed after its own close was written in it (the text after that close was the
 * call's, and no argument holds it as meant). Such a call never runs: it fails, and in a
 * wrapper the rest of its block is no call either. Offsets are absolute; -1 is none.
 */
export class UnreadableCall {
  /** Where the call's unreadable text stands, while the rest of its block drains. */
  at = -1;
  /** The open value's own close was written in it, unconfirmed: where the text after it begins. */
  #ownCloseAt = -1;
  /** A value of the call ended unclosed after such a close: where the call's text went wrong. */
  swallowedAt = -1;

  /** A new block. */
  reset(): void {
    this.at = -1;
    this.clearCall();
  }

  /** A new call. */
  clearCall(): void {
    this.#ownCloseAt = -1;
    this.swallowedAt = -1;
  }

  /** Whether the open value holds its own close, unconfirmed. */
  get ownClosePending(): boolean {
    return this.#ownCloseAt !== -1;
  }

  /** The open value's own close, written in it, ends at absolute `end` (the first counts). */
  ownClose(end: number): void {
    if (this.#ownCloseAt === -1) this.#ownCloseAt = end;
  }

  /** The open value ended: at its own close, or (`leftOpen`) unclosed, where something else began. */
  valueEnded(leftOpen: boolean): void {
    if (leftOpen && this.#ownCloseAt !== -1 && this.swallowedAt === -1)
      this.swallowedAt = this.#ownCloseAt;
    this.#ownCloseAt = -1;
  }
}

/** What of the shared reader (markup/core.ts) failing a call reads and does. */
interface Reader {
  readonly s: string;
  readonly offset: number;
  readonly final: boolean;
  readonly form: MarkupForm;
  readonly openings: FormOpenings;
  readonly unreadableCall: UnreadableCall;
  state: State;
  fail(code: ParseErrorCode, message: string, offset: number): BlockFailure;
  endOfInput(at: number, parameterCut?: boolean): number;
}

/**
 * Text at `k` among a call's children that is none of them: the call fails there. A tag or
 * marker cut short by the input's end is the block cut short instead (row 'markup-cut').
 */
export function unreadableAt(core: Reader, k: number): number {
  if (core.final && cutShort(core, k))
    return core.endOfInput(core.s.length, core.openings.parameter(core.s, k, false) === 'partial');
  failUnreadable(core, core.offset + k);
  return k;
}

/** Whether the text from `k` to the input's end may be the start of a tag or a marker the form reads. */
function cutShort(core: Reader, k: number): boolean {
  const s = core.s;
  if (s.charCodeAt(k) === Char.Lt && s.indexOf('>', k) === -1) return true;
  const { call, wrapper } = core.form;
  return (
    core.openings.parameter(s, k, false) === 'partial' ||
    core.openings.call(s, k, false) === 'partial' ||
    [call.close, wrapper?.open, wrapper?.close].some(
      (marker) => marker !== undefined && startsWithAt(s, k, marker) === null,
    )
  );
}

/**
 * The open call cannot be read from absolute `at` on: it fails at once when it is its own
 * block; in a wrapper, once the rest of its block drained (`stepDrain`).
 */
export function failUnreadable(core: Reader, at: number): void {
  if (core.form.wrapper === null) core.fail('unreadable-arguments', core.form.call.unreadable, at);
  else {
    core.unreadableCall.at = at;
    core.state = State.Drain;
  }
}

/**
 * The rest of a block whose call could not be read, up to the block's close (or a new block's
 * opening, which it leaves to be read, or the input's end): then the block fails, pointing at
 * the unreadable text, and its text from the end of the call before goes back as text.
 */
export function stepDrain(core: Reader, i: number): number {
  const s = core.s;
  const { open, close } = core.form.wrapper as { open: string; close: string };
  const closes = s.indexOf(close, i);
  const opens = s.indexOf(open, i);
  let end = -1;
  if (closes !== -1 && (opens === -1 || closes < opens)) end = closes + close.length;
  else if (opens !== -1) end = opens;
  else if (core.final) end = s.length;
  if (end === -1) return wait(heldFrom(s, i, open, close));
  core.fail('unreadable-arguments', core.form.call.unreadable, core.unreadableCall.at);
  return end;
}

/**
 * Where `s` (read from `from`) may end in the start of `open` or `close`: the text from there
 * is held until more input decides; none of it when neither may begin there.
 */
function heldFrom(s: string, from: number, open: string, close: string): number {
  const longest = Math.max(open.length, close.length);
  for (let k = Math.max(from, s.length - longest + 1); k < s.length; k++)
    if (startsWithAt(s, k, open) === null || startsWithAt(s, k, close) === null) return k;
  return s.length;
}
