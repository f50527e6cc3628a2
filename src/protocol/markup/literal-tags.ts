import { Char } from '../chars.js';
import { startsWithAt } from '../tag.js';
import { Repeat } from './arguments-tree.js';
import { confirmsBlockCloseInValue, confirmsCallClose, confirmsParameterClose } from './confirm.js';
import type { MarkupCore } from './core.js';
import { closeOf, keyOf, LITERAL_FORM_KINDS, type ValueTexts, valueTextOf } from './form.js';
import { endsAtLineStart, type MarkupShape, State, TEXT, wait } from './shape.js';
import { unreadableAt } from './unreadable.js';
import { StreamedValue } from './value-text.js';

/**
 * A call written with its form's own literals (`MarkupForm.tags` 'literal'): named by its
 * opening, each parameter opened by what `parameter.opening` reads and closed by
 * `parameter.close`, each value one text read as `MarkupForm.text` says. A value, call or
 * block left open ends where the next parameter, call or block opens on a line of its own,
 * with a warning; a close inside a value counts as markup/confirm.ts says.
 */
export class LiteralTags implements MarkupShape {
  readonly kinds = LITERAL_FORM_KINDS;
  readonly entities = false;
  readonly #core: MarkupCore;
  /** How values are read (`xml` text, in a form of literal tags, as written). */
  readonly #texts: ValueTexts;
  /** The open parameter's closing tag, known from its name when it opens. */
  #close = '';

  constructor(core: MarkupCore) {
    this.#core = core;
    const text = core.form.text;
    this.#texts = text === 'xml' ? 'verbatim' : text;
  }

  clearCall(): void {}

  argumentsClosed(): boolean {
    return true;
  }

  /** No state of its own: every step is the shared reader's. */
  step(i: number): number {
    return wait(i);
  }

  /**
   * In a value only a `</`, the parameter's reopening (`<p…`) or a new block (`<t…`) may end
   * or change it, so `a < b` is text.
   */
  mayEndValue(s: string, lt: number): boolean {
    if (lt + 1 >= s.length) return true;
    const c = s.charCodeAt(lt + 1);
    const { parameter, wrapper } = this.#core.form;
    return (
      c === Char.Slash ||
      c === (parameter.reopens?.charCodeAt(1) ?? -1) ||
      c === (wrapper?.open.charCodeAt(1) ?? -1)
    );
  }

  /**
   * Between a call's children: a parameter, the call's close, or the next call or block (this
   * one left open). Anything else is text the call cannot read as its parameters: it fails.
   */
  inCall(lt: number): number {
    const core = this.#core;
    const s = core.s;
    if (s.charCodeAt(lt) !== Char.Lt) return unreadableAt(core, lt);
    const final = core.final;
    const { call, wrapper } = core.form;
    const opening = core.openings.parameter(s, lt, final);
    if (opening === 'partial') return wait(lt);
    if (opening !== null) {
      if (opening.stray !== undefined) core.warnAs(opening.stray, core.offset + lt);
      if (opening.escaped === true) core.escaped = true;
      this.#openParameter(opening.name, core.offset + lt);
      return lt + opening.length;
    }
    const close = startsWithAt(s, lt, call.close);
    if (close === null && !final) return this.#waitLiteral(call.close, lt);
    if (close === true) {
      // Between children the call's close is the call's, whatever follows it (in a wrapper,
      // text after it stands between calls).
      const end = lt + call.close.length;
      if (confirmsCallClose(s, end, final, core.form, false) === null) return wait(lt);
      core.closeCall(core.offset + end);
      return end;
    }
    if (wrapper !== null) {
      const blockClose = startsWithAt(s, lt, wrapper.close);
      if (blockClose === null && !final) return this.#waitLiteral(wrapper.close, lt);
      if (blockClose === true) {
        this.#warnUnclosedCall(wrapper.close, lt);
        core.closeCall(core.offset + lt);
        return lt;
      }
      const next = core.openings.call(s, lt, final);
      if (next === 'partial') return wait(lt);
      const block = startsWithAt(s, lt, wrapper.open);
      if (block === null && !final) return wait(lt);
      // The next call, or a new block: this call (and block) was left open.
      if (next !== null || block === true) {
        this.#warnUnclosedCall(`the next ${next !== null ? call.start : wrapper.open}`, lt);
        core.closeCall(core.offset + lt);
        return lt;
      }
    }
    return unreadableAt(core, lt);
  }

  /**
   * The text from `lt` on is a proper prefix of `literal`, the first thing asked there: only
   * more of it decides (what was asked before it cannot match, however the text goes on).
   */
  #waitLiteral(literal: string, lt: number): number {
    const core = this.#core;
    core.pending.literal(literal, core.s.length - lt);
    return wait(lt);
  }

  #warnUnclosedCall(ending: string, lt: number): void {
    const core = this.#core;
    core.recover('unclosed-call', core.offset + lt, { ending });
  }

  /** A parameter: a text value of the call's arguments. */
  #openParameter(written: string, at: number): void {
    const core = this.#core;
    const form = core.form;
    const key = keyOf(form.key, written);
    const tree = core.startTree();
    const repeat = tree.open(key, true);
    if (repeat !== Repeat.None)
      core.recover(
        repeat === Repeat.List ? 'duplicate-parameter-listed' : 'duplicate-parameter-last',
        at,
        { key: JSON.stringify(key) },
      );
    core.value = new StreamedValue(valueTextOf(this.#texts, key), core.escaped);
    this.#close = closeOf(form.parameter.close, key);
    core.valueAt = at;
    core.lineStart = true;
    core.state = State.Value;
  }

  /** The `<` at `lt` in a value: its close, an opening that leaves it open, or its text. */
  valueEnd(lt: number, from: number): number {
    const core = this.#core;
    const s = core.s;
    const final = core.final;
    const form = core.form;
    const { call, parameter, wrapper } = form;
    if (!this.mayEndValue(s, lt)) return TEXT;
    const close = this.#close;
    const closes = startsWithAt(s, lt, close);
    if (closes === null && !final) {
      const waiting = core.valueWait(from, lt);
      this.#waitLiteral(close, lt);
      return waiting;
    }
    if (closes === true) {
      const end = lt + close.length;
      const confirmed = confirmsParameterClose(s, end, final, form, core.openings);
      if (confirmed === null) return core.valueWait(from, lt);
      if (confirmed) {
        core.writeValue(s.slice(from, lt));
        core.closeValueText();
        core.state = State.InCall;
        return end;
      }
      core.unreadableCall.ownClose(core.offset + end);
    }
    const lineStart = endsAtLineStart(s, from, lt, core.lineStart);
    if (lineStart || core.unreadableCall.ownClosePending) {
      // A parameter's or a new block's opening on a line of its own, or a parameter's anywhere
      // after the value's own close written in it: the value was left open.
      for (const opening of lineStart ? [parameter.reopens, wrapper?.open] : [parameter.reopens]) {
        if (opening == null) continue;
        const opens = startsWithAt(s, lt, opening);
        if (opens === null && !final) return core.valueWait(from, lt);
        if (opens !== true) continue;
        if (opening === parameter.reopens && (form.repeated === 'warn' || !lineStart)) {
          // A parameter the call already has, opened inside a value, is the value's text (code
          // that writes the format: a file that holds a parameter's opening), not a left-open
          // value; mid-line, only a whole opening counts.
          const tag = core.openings.parameter(s, lt, final);
          if (tag === 'partial') return core.valueWait(from, lt);
          if (tag === null ? !lineStart : core.tree.has(keyOf(form.key, tag.name))) continue;
        }
        return this.#leaveValue(from, lt, `the next ${opening}`, lt);
      }
    }
    const callClose = startsWithAt(s, lt, call.close);
    if (callClose === null && !final) return core.valueWait(from, lt);
    if (callClose === true) {
      const end = lt + call.close.length;
      const confirmed = confirmsCallClose(s, end, final, form, true);
      if (confirmed === null) return core.valueWait(from, lt);
      if (confirmed) {
        this.#leaveValue(from, lt, call.close, end);
        core.closeCall(core.offset + end);
        return end;
      }
    }
    if (wrapper !== null) {
      const blockClose = startsWithAt(s, lt, wrapper.close);
      if (blockClose === null && !final) return core.valueWait(from, lt);
      if (blockClose === true) {
        const confirmed = confirmsBlockCloseInValue(s, lt + wrapper.close.length, final, form);
        if (confirmed === null) return core.valueWait(from, lt);
        if (confirmed) return this.#leaveValue(from, lt, wrapper.close, lt);
      }
    }
    return TEXT;
  }

  /** A value left open ends at `lt`, where `ending` begins: a warning, and the call goes on. */
  #leaveValue(from: number, lt: number, ending: string, next: number): number {
    const core = this.#core;
    core.writeValue(core.s.slice(from, lt));
    core.closeTo(0, core.offset + lt, ending);
    core.state = State.InCall;
    // It is left where a line starts (or at the call's or block's close).
    core.lineStart = true;
    return next;
  }
}
