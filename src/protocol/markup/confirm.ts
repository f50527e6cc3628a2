import { skipBlanks } from '../block.js';
import { isLineEnd, isSpaceOrTab } from '../chars.js';
import { LOOKAHEAD } from '../lookahead.js';
import type { PartialToken } from '../partial-token.js';
import { isTagFor, readTag, startsWithAt, type Tag, TagKind } from '../tag.js';
import type { ArgumentsTree } from './arguments-tree.js';
import type { FormOpenings, MarkupForm } from './form.js';

/**
 * When a closing tag counts, for every markup dialect (the one hold-back rule for closes): it
 * is decided by what follows it, blanks and newlines skipped up to `MAX_CONFIRM_BLANKS`. Each
 * function answers true, false, or null while the input may still decide either way. What
 * follows a close is read once more by the step after it; the look is bounded, so reading
 * stays linear.
 */

/** How far past a candidate closing tag the reader looks for what confirms it. */
export const MAX_CONFIRM_BLANKS = LOOKAHEAD.closeConfirm.value;

/**
 * Where the text after `at` goes on past blanks and newlines; -1 when there are too many. With
 * `escaped`, `\n`, `\r` and `\t` written as two characters count as blanks too (a reply
 * logged with its newlines escaped).
 */
export function afterBlanks(s: string, at: number, escaped = false): number {
  const limit = at + MAX_CONFIRM_BLANKS;
  const end = Math.min(s.length, limit);
  let j = skipBlanks(s, at, end);
  while (escaped && j < end && s.charCodeAt(j) === 0x5c) {
    // A backslash at the end may begin one: more input decides, as for a blank.
    if (j + 1 === s.length) return s.length;
    if (!'nrt'.includes(s[j + 1])) break;
    j = skipBlanks(s, j + 2, end);
  }
  return j >= limit ? -1 : j;
}

/** Two possible matches at one place: true if either is, null if either may still be, else false. */
export function either(a: boolean | null, b: boolean | null, final: boolean): boolean | null {
  if (a === true || b === true) return true;
  if ((a === null || b === null) && !final) return null;
  return false;
}

const scratch: Tag = { kind: TagKind.None, name: '', length: 0 };

/**
 * Where the `<` after a value's close stands (blanks skipped), or the answer when none does:
 * the input's end confirms the close, other text does not.
 */
function tagAfter(
  s: string,
  at: number,
  final: boolean,
  form: MarkupForm,
): number | boolean | null {
  const j = afterBlanks(s, at, form.escapedBlanks);
  if (j === -1) return false;
  if (j >= s.length) return final ? true : null;
  return s.charCodeAt(j) === 0x3c ? j : false;
}

/**
 * An element's close ending at `at` (the element at `depth`; 0 closes the arguments): it
 * counts when what follows opens something (a sibling, the next call), or closes something
 * that encloses it and is itself confirmed where that needs it, or the input ends.
 */
export function confirmsElementClose(
  s: string,
  at: number,
  final: boolean,
  form: MarkupForm,
  tree: ArgumentsTree,
  depth: number,
  pending: PartialToken,
): boolean | null {
  const j = tagAfter(s, at, final, form);
  if (typeof j !== 'number') return j;
  const next = readTag(s, j, final, scratch);
  if (next.kind === TagKind.NeedMore) {
    // Only the next tag's name decides: what it opens or closes.
    pending.tagName(s, j);
    return null;
  }
  if (next.kind === TagKind.Open || next.kind === TagKind.Empty) return true;
  if (next.kind !== TagKind.Close) return false;
  if (isTagFor(form.call.close, next.name, true))
    return confirmsCallClose(s, j + next.length, final, form, false);
  return next.name === form.container || tree.depthOf(next.name, depth) > 0;
}

/**
 * A parameter's close ending at `at`: it counts when what follows opens a parameter, the next
 * call or a new block, or closes the call or the block (itself confirmed), or the input ends.
 */
export function confirmsParameterClose(
  s: string,
  at: number,
  final: boolean,
  form: MarkupForm,
  openings: FormOpenings,
): boolean | null {
  const j = tagAfter(s, at, final, form);
  if (typeof j !== 'number') return j;
  const { call, wrapper } = form;
  const opening = openings.parameter(s, j, final);
  if (opening === 'partial') return null;
  if (opening !== null) return true;
  const callClose = startsWithAt(s, j, call.close);
  if (callClose === true) return confirmsCallClose(s, j + call.close.length, final, form, false);
  // The next call's opening: this call was left open, and the value ends here.
  const nextCall = openings.call(s, j, final);
  if (nextCall === 'partial') return null;
  if (nextCall !== null) return true;
  if (wrapper === null) return callClose === null && !final ? null : false;
  // A new block: this one was left open.
  const blockOpen = startsWithAt(s, j, wrapper.open);
  if (blockOpen === true) return true;
  const blockClose = startsWithAt(s, j, wrapper.close);
  if (blockClose === true)
    return confirmsBlockCloseInValue(s, j + wrapper.close.length, final, form);
  return either(either(callClose, blockClose, final), blockOpen, final) === null ? null : false;
}

/**
 * A call's close ending at `at`. Between a call's children it counts at once when the call is
 * its own block; in a wrapper, when the next call or the wrapper's close follows. Written inside
 * a value it counts when the form's rule confirms it: the end of its line (`</tool>`), or the
 * next call or the block's (or orphan) close. A close that ends with a special token counts
 * wherever it stands.
 */
export function confirmsCallClose(
  s: string,
  at: number,
  final: boolean,
  form: MarkupForm,
  inValue: boolean,
): boolean | null {
  if ((form.wrapper === null && !inValue) || form.call.closeInValue === 'token') return true;
  if (inValue && form.call.closeInValue === 'line-end') {
    let k = at;
    const limit = at + MAX_CONFIRM_BLANKS;
    while (k < s.length && k < limit && isSpaceOrTab(s.charCodeAt(k))) k++;
    if (k >= limit) return false;
    if (k >= s.length) return final ? true : null;
    return isLineEnd(s.charCodeAt(k));
  }
  const j = afterBlanks(s, at);
  if (j === -1) return false;
  if (j >= s.length) return final ? true : null;
  const after = form.wrapper?.close ?? form.orphanClose;
  return either(
    startsWithAt(s, j, form.call.start),
    after === undefined ? false : startsWithAt(s, j, after),
    final,
  );
}

/** A block's close inside a value, ending at `at`: the input ends, or a new block opens. */
export function confirmsBlockCloseInValue(
  s: string,
  at: number,
  final: boolean,
  form: MarkupForm,
): boolean | null {
  const j = afterBlanks(s, at);
  if (j === -1) return false;
  if (j >= s.length) return final ? true : null;
  return either(startsWithAt(s, j, (form.wrapper as { open: string }).open), false, final);
}
