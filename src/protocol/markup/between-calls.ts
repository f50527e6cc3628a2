import type { BlockFailure } from '../block.js';
import type { ParseErrorCode } from '../events.js';
import type { RecoveryValues } from '../recoveries.js';
import { startsWithAt } from '../tag.js';
import { afterBlanks } from './confirm.js';
import type { FormOpenings, MarkupForm, MarkupRecoveryKind, OpeningTag } from './form.js';
import { State, wait } from './shape.js';

/**
 * What stands around a block's calls, read by the shared reader (markup/core.ts): between
 * calls in a wrapper, the next call, the wrapper's close, or a new block that says this one was
 * left open; after a call written without its wrapper, the wrapper's orphan close.
 */

/** What of the shared reader these steps read and do (`MarkupCore` has it). */
interface Block {
  readonly s: string;
  readonly offset: number;
  readonly final: boolean;
  readonly form: MarkupForm;
  readonly openings: FormOpenings;
  readonly calls: number;
  readonly blockStart: number;
  state: State;
  openCall(opening: OpeningTag, lt: number): void;
  /** The call whose close was read ends (at absolute `end`, or where its close ended). */
  endClosed(end?: number): void;
  fail(code: ParseErrorCode, message: string, offset: number): BlockFailure;
  recover<K extends MarkupRecoveryKind>(kind: K, offset: number, values?: RecoveryValues<K>): void;
  endOfInput(at: number): number;
}

/** Inside the wrapper, between calls: the next call, or the block's end. */
export function stepBetween(core: Block, i: number): number {
  const s = core.s;
  const { call, wrapper } = core.form;
  const lt = s.indexOf('<', i);
  if (lt === -1) return core.endOfInput(s.length);
  const opening = core.openings.call(s, lt, core.final);
  if (opening === 'partial') return wait(lt);
  if (opening !== null) {
    core.openCall(opening, lt);
    return lt + opening.length;
  }
  if (startsWithAt(s, lt, call.start) === true) {
    core.fail('missing-tool-name', call.unnamed, core.offset + lt);
    return lt;
  }
  const { open, close } = wrapper as { open: string; close: string };
  const closes = startsWithAt(s, lt, close);
  const reopens = startsWithAt(s, lt, open);
  if ((closes === null || reopens === null) && !core.final) return wait(lt);
  // The opening written twice, before any call: the block goes on.
  if (reopens === true && core.calls === 0) return lt + open.length;
  // The block's close, or a new block's opening: this one was left open, and ends here.
  if (closes === true || reopens === true) {
    const end = closes === true ? lt + close.length : lt;
    if (core.calls === 0) core.fail('missing-tool-name', core.form.empty, core.blockStart);
    else {
      if (reopens === true) core.recover('unclosed-block', core.offset + lt, { close, open });
      core.endClosed(core.offset + end);
      core.state = State.Done;
    }
    return end;
  }
  return lt + 1;
}

/** After a call written without its wrapper: the wrapper's close, if it follows, is its own. */
export function stepTrailer(core: Block, i: number): number {
  const s = core.s;
  const orphan = core.form.orphanClose as string;
  const j = afterBlanks(s, i);
  const closes = j === -1 ? false : startsWithAt(s, j, orphan);
  if (closes === true) {
    core.endClosed(core.offset + j + orphan.length);
    core.state = State.Done;
    return j + orphan.length;
  }
  // Blanks up to the end of the input, or a partial close: more input decides (at the end of
  // the input, row 'markup-trailer' of the end-of-input table: the call ends as it was read).
  if (!core.final && (closes === null || j >= s.length)) return wait(i);
  core.endClosed();
  core.state = State.Done;
  return i;
}
