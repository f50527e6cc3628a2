import { Streamed, skipBlanks, wait } from '../block.js';
import { END_OF_INPUT } from '../end-of-input.js';
import { execWithin } from '../match-within.js';
import { partialSuffixStart, startsWithAt } from '../tag.js';
import type { BodyForm } from './form.js';
import { type BodyHost, type BodyKind, MAX_FENCE, MAX_HEADER, State } from './kind.js';

const EMPTY = END_OF_INPUT['sections-empty'];
const HEADER_CUT = END_OF_INPUT['sections-header-cut'];

/**
 * Reads a block of the kind `sections`: calls written one after another between tokens inside
 * a section (`SectionCallForm`), each a header that names it, a separator, then its arguments
 * (or its name on the line after the separator, and the arguments in a fence).
 */
export class SectionSteps implements BodyKind {
  readonly #host: BodyHost;
  readonly #call: NonNullable<BodyForm['call']>;
  /** Text of a section call's header so far, and where it began. */
  #header = '';
  #headerAt = 0;
  #calls = 0;

  constructor(host: BodyHost) {
    this.#host = host;
    this.#call = host.form.call as NonNullable<BodyForm['call']>;
  }

  reset(): void {
    this.#header = '';
    this.#calls = 0;
  }

  begin(_at: number, next: number): number {
    if (this.#host.form.openIsFirstCall === true) {
      this.#header = '';
      this.#headerAt = this.#host.blockStart;
      this.#host.state = State.CallHeader;
      return next;
    }
    this.#host.state = State.Between;
    return next;
  }

  step(s: string, i: number, offset: number, final: boolean): number {
    switch (this.#host.state) {
      case State.Between:
        return this.#between(s, i, offset, final);
      case State.CallHeader:
        return this.#callHeader(s, i, final);
      case State.CallName:
        return this.#callName(s, i, final);
      default:
        return wait(i);
    }
  }

  /** Sections hold no value to stream but their calls'. */
  streamValue(_chunk: string): Streamed {
    return Streamed.No;
  }

  unclosed(): string {
    const close = this.#call.close;
    return `the ${this.#host.form.open} block was not closed${close ? ` with ${close}` : ''} before the input ended`;
  }

  #between(s: string, i: number, offset: number, final: boolean): number {
    const form = this.#host.form;
    const call = this.#call;
    const close = s.indexOf(form.close, i);
    // The next call is looked for only before the section's close: a search past it read on to
    // the next section's call, once for each section.
    const open = close === -1 ? s.indexOf(call.open, i) : indexBefore(s, call.open, i, close);
    if (close !== -1 && (open === -1 || close < open)) {
      if (this.#calls === 0) {
        this.#host.fail(
          'missing-tool-name',
          `the ${form.open} block holds no call`,
          offset + close,
        );
        return wait(close);
      }
      // The last call's text runs to the block's end.
      return this.#host.end(offset + close + form.close.length, close + form.close.length);
    }
    if (open !== -1) {
      this.#header = '';
      this.#headerAt = offset + open;
      this.#host.state = State.CallHeader;
      return open + call.open.length;
    }
    if (final) return this.#endOfSections(s, offset);
    return wait(
      Math.min(partialSuffixStart(s, i, call.open), partialSuffixStart(s, i, form.close)),
    );
  }

  /**
   * The input ended inside a section: its complete calls are calls, if it holds any (row
   * 'body-call-complete'), else row 'sections-empty'.
   */
  #endOfSections(s: string, offset: number): number {
    if (this.#calls > 0) return this.#host.endedUnclosed(s, offset, this.#host.form.close);
    this.#host.fail(EMPTY.code, this.unclosed(), offset + s.length);
    return wait(s.length);
  }

  #callHeader(s: string, i: number, final: boolean): number {
    const call = this.#call;
    const sep = s.indexOf(call.separator, i);
    const end = sep === -1 ? (final ? s.length : partialSuffixStart(s, i, call.separator)) : sep;
    this.#header += s.slice(i, end);
    if (this.#header.length > MAX_HEADER) {
      this.#host.fail(
        'missing-tool-name',
        `no ${call.separator} after the call's name`,
        this.#headerAt,
      );
      return wait(end);
    }
    if (sep === -1) {
      if (final) {
        this.#host.fail(HEADER_CUT.code, this.unclosed(), this.#headerAt);
        return wait(s.length);
      }
      return wait(end);
    }
    const name = this.#host.tests.nameOf(this.#header.trim());
    if (name === '' && !call.nameOnNextLine) {
      this.#host.fail(
        'missing-tool-name',
        `write the tool's name before ${call.separator}`,
        this.#headerAt,
      );
      return wait(sep);
    }
    this.#calls++;
    if (name === '') {
      this.#host.state = State.CallName;
      return sep + call.separator.length;
    }
    return this.#beginSectionCall(name, sep + call.separator.length);
  }

  /** The name on its own line, then the arguments (in the call's fence, when it has one). */
  #callName(s: string, i: number, final: boolean): number {
    const newline = s.indexOf('\n', i);
    if (newline === -1 || newline - i > MAX_HEADER) {
      if (!final && s.length - i <= MAX_HEADER) return wait(i);
      this.#host.fail(
        'missing-tool-name',
        'no name on the line after the separator',
        this.#headerAt,
      );
      return wait(i);
    }
    const name = s.slice(i, newline).trim();
    let next = newline + 1;
    const fence = this.#call.fence;
    if (fence !== undefined) {
      const fenceStart = skipBlanks(s, next, s.length);
      if (fenceStart >= s.length && !final) return wait(i);
      // Within what chunks would hold (MAX_FENCE, then the character that decides).
      if (execWithin(fence.open, s, fenceStart, MAX_FENCE + 1) !== null) {
        this.#host.fenced = true;
        next = fence.open.lastIndex;
      } else if (
        !final &&
        s.length - fenceStart <= MAX_FENCE &&
        this.#host.tests.callFenceBegun?.(s, fenceStart) === true
      )
        return wait(i);
    }
    return this.#beginSectionCall(name, next);
  }

  #beginSectionCall(name: string, next: number): number {
    const call = this.#call;
    this.#host.builder.startNamed(name);
    // A call's close cuts a string only where it is a special token (the form's `closeIsToken`).
    this.#host.newReader([call.close], this.#host.form.closeIsToken === true);
    this.#host.state = State.Body;
    return next;
  }

  /** After a section call's arguments: (its fence's end, then) its close. */
  afterValue(s: string, i: number, offset: number, final: boolean): number {
    const call = this.#call;
    let j = skipBlanks(s, i, s.length);
    const fence = call.fence;
    if (this.#host.fenced && fence !== undefined && startsWithAt(s, j, fence.close) !== false) {
      if (j + fence.close.length > s.length && !final) return wait(i);
      if (s.startsWith(fence.close, j)) j = skipBlanks(s, j + fence.close.length, s.length);
    }
    const close = startsWithAt(s, j, call.close);
    // Row 'body-call-complete': the arguments were read, only the call's close is missing.
    if (final && (j >= s.length || close === null)) {
      this.#calls++;
      return this.#host.endedUnclosed(s, offset, call.close);
    }
    if (close === null || j >= s.length) return wait(i);
    if (close !== true) {
      this.#host.fail(
        'invalid-json',
        `the call's arguments are followed by more than ${call.close}`,
        offset + j,
      );
      return wait(j);
    }
    const end = j + call.close.length;
    this.#host.builder.extendEnd(offset + end);
    this.#host.fenced = false;
    this.#host.state = State.Between;
    return end;
  }
}

/** Where `literal` first stands in `s` from `from`, wholly before `to`, or -1. */
function indexBefore(s: string, literal: string, from: number, to: number): number {
  const at = s.slice(from, to).indexOf(literal);
  return at === -1 ? -1 : from + at;
}
