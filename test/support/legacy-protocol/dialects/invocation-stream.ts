import { createObject } from '../arguments-tree.js';
import type { CallFormat, JsonValue, ParseErrorCode, ToolArguments } from '../events.js';
import { startsWithAt } from '../tag.js';
import {
  type BlockFailure,
  type BlockLimits,
  type BlockSink,
  BlockStatus,
  type BlockStream,
  skipBlanks,
} from './block.js';
import { StreamedValue, type ValueText } from './value-text.js';

/** An opening tag read at a `<`: its name (as written) and length. */
export interface OpeningTag {
  name: string;
  length: number;
}

/** Reads an opening tag at `at`: the tag, null when there is none, `partial` when `s` ends first. */
export type OpeningReader = (
  s: string,
  at: number,
  final: boolean,
) => OpeningTag | null | 'partial';

/**
 * A dialect whose calls and parameters are elements, described as data: the engine below
 * runs it. Qwen3-Coder: `<tool_call>` `<function=name>` `<parameter=key>value</parameter>`
 * `</function>` `</tool_call>`; Anthropic: `<function_calls>` `<invoke name="…">`
 * `<parameter name="…">`; Cline: the tool's own tag with one element a parameter.
 */
export interface InvocationForm {
  format: CallFormat;
  /** The block around the calls (`<tool_call>` … `</tool_call>`), or null: the block is one call. */
  wrapper: { open: string; close: string } | null;
  call: {
    /** What an opening starts with (`<function=`): without a name it is a mistake. */
    start: string;
    read: OpeningReader;
    close: string;
    unnamed: string;
    unclosed: string;
  };
  parameter: {
    read: OpeningReader;
    /** The closing tag of a parameter of this (written) name. */
    close: (name: string) => string;
    unclosed: string;
    /**
     * What a parameter opening starts with, when one at a line start inside a value means that
     * value was left open (Qwen3-Coder's `<parameter=`); null when values may hold such lines.
     */
    reopens: string | null;
  };
  key: (name: string) => string;
  value: (key: string) => ValueText;
  /** The message when a block ends holding no call. */
  empty: string;
  /** A form that is another one without its wrapper: read, with this `missing-wrapper` warning. */
  missingWrapper?: string;
  /**
   * Such a form's wrapper close, which models still write after the call (`</tool_call>`):
   * when it follows the call (blanks allowed), it is the call's text, not stray text.
   */
  orphanClose?: string;
}

/** `decideInValue`: the `<` is the value's text. */
const TEXT = Number.MIN_SAFE_INTEGER;
/** How far past a candidate closing tag the engine looks for what confirms it. */
const MAX_CONFIRM_BLANKS = 256;
/** The longest opening tag a reader waits for before deciding it is none. */
const MAX_OPENING = 640;

/**
 * `<prefix…>` read by a sticky `pattern` (name in group 1 or 2): partial while `s` ends within
 * the longest such tag, so the answer never depends on where the input was cut.
 */
export function namedOpening(prefix: string, pattern: RegExp): OpeningReader {
  return (s, at, final) => {
    const starts = startsWithAt(s, at, prefix);
    if (starts === null) return final ? null : 'partial';
    if (!starts) return null;
    pattern.lastIndex = at;
    const match = pattern.exec(s);
    if (match !== null) return { name: match[1] ?? match[2], length: pattern.lastIndex - at };
    return !final && s.length - at < MAX_OPENING ? 'partial' : null;
  };
}

enum State {
  Start = 0,
  /** Inside the wrapper, between calls. */
  Between = 1,
  /** Inside a call, between parameters. */
  InCall = 2,
  InValue = 3,
  Done = 4,
  Failed = 5,
  /** A call without its wrapper closed: an orphan close of the wrapper may follow. */
  Trailer = 6,
}

interface OpenCall {
  id: string;
  name: string;
  args: ToolArguments;
  /** How many parameters of each key came so far. */
  counts: Map<string, number>;
}

/**
 * Reads a block of an `InvocationForm` as it streams: the tool name is told as soon as its
 * opening tag is read, a value's text while it is written, the call when it ends.
 *
 * A closing tag is decided by what follows it (blanks and newlines allowed, up to 256): a
 * parameter's close by the next parameter, the call's (confirmed) close, the next call's
 * opening or a confirmed close of the block; the call's close
 * by the next call or the block's close (or the end of the input); a block's close met inside
 * a value by the end of the input or the next block. Otherwise the tag is part of the value,
 * so a value may hold its own format's closing tags. Mistakes are read with a warning: a
 * parameter left open ends at the call's close, or at a parameter opening that begins a line
 * where the form says so (`unclosed-element`); a call left open ends at the block's close or
 * at the next call's opening at a line start (`unclosed-element`); a block left open after
 * complete calls ends with the input (`unclosed-element`); a parameter given twice makes a
 * list, or keeps the last when the tool's schema says it is no array (`duplicate-field`); a
 * self-closing call (`<function=name/>`) has no arguments. A call's text ends after its
 * closing tag; the last call's at the block's end.
 */
export function createInvocationStream(
  form: InvocationForm,
  sink: BlockSink,
  limits: BlockLimits,
): BlockStream {
  const { call: callTag, parameter, wrapper } = form;
  const reopensSecond = parameter.reopens?.charCodeAt(1) ?? -1;
  let state = State.Start;
  let calls = 0;
  let call: OpenCall | null = null;
  /** A call whose close was read; it ends when the next call opens or the block closes. */
  let closed: OpenCall | null = null;
  /** Where the closed call's text ends, unless the block's end extends it. */
  let closedEnd = 0;
  let key = '';
  let keyIndex = 0;
  let keyStart = 0;
  let value: StreamedValue | null = null;
  /** Only blanks since the last newline (or the value's start): a parameter opening here reopens. */
  let lineStart = true;
  let failed: BlockFailure | null = null;
  let blockStart = 0;

  function endClosed(end: number = closedEnd): void {
    if (closed === null) return;
    sink.end(closed.id, closed.name, closed.args, form.format, end);
    closed = null;
  }

  function beginCall(name: string): void {
    endClosed();
    const id = sink.start();
    calls++;
    call = { id, name, args: createObject(), counts: new Map() };
    sink.name(id, name);
    state = State.InCall;
  }

  /** The open call's close was read; its text ends at absolute `end`. */
  function closeCall(end: number): void {
    closed = call;
    closedEnd = end;
    call = null;
    if (wrapper !== null) state = State.Between;
    else if (form.orphanClose !== undefined) state = State.Trailer;
    else {
      endClosed();
      state = State.Done;
    }
  }

  /** After a call written without its wrapper: the wrapper's close, if it follows, is its own. */
  function stepTrailer(s: string, i: number, offset: number, final: boolean): number {
    const orphan = form.orphanClose as string;
    const j = afterBlanks(s, i);
    const closes = j === -1 ? false : startsWithAt(s, j, orphan);
    if (closes === true) {
      endClosed(offset + j + orphan.length);
      state = State.Done;
      return j + orphan.length;
    }
    // Blanks up to the end of the input, or a partial close: more input decides.
    if (!final && (closes === null || j >= s.length)) return -i - 1;
    endClosed();
    state = State.Done;
    return i;
  }

  function fail(code: ParseErrorCode, message: string, offset: number): void {
    endClosed();
    failed = { code, message, offset };
    if (call !== null) {
      if (value !== null) storeValue(call);
      failed.callId = call.id;
      failed.partial = { serverName: 'local', toolName: call.name, arguments: call.args };
    }
    state = State.Failed;
  }

  function warnUnclosedParameter(ending: string): void {
    sink.warn(
      'unclosed-element',
      `${parameter.unclosed}; it ends at the next ${ending}`,
      keyStart,
      call?.id,
    );
  }

  function warnUnclosedCall(ending: string, offset: number): void {
    sink.warn('unclosed-element', `${callTag.unclosed}; it ends at ${ending}`, offset, call?.id);
  }

  function beginValue(name: string, at: number): void {
    const open = call as OpenCall;
    key = form.key(name);
    keyIndex = open.counts.get(key) ?? 0;
    open.counts.set(key, keyIndex + 1);
    keyStart = at;
    value = new StreamedValue(form.value(key));
    lineStart = true;
    state = State.InValue;
  }

  function writeValue(text: string): void {
    if (text === '') return;
    (value as StreamedValue).write(text);
    lineStart = endsAtLineStart(text, 0, text.length, lineStart);
  }

  function flushValue(): void {
    const text = (value as StreamedValue).text();
    if (text !== '') sink.delta((call as OpenCall).id, key, keyIndex, text);
  }

  /** Puts the value (so far) into the call's arguments. */
  function storeValue(open: OpenCall): void {
    const text = (value as StreamedValue).value;
    const args = open.args;
    if (keyIndex === 0) args[key] = text;
    else if (!isArrayProperty(limits, open.name, key)) {
      args[key] = text;
      sink.warn(
        'duplicate-field',
        `parameter ${JSON.stringify(key)} is given more than once; the last is kept, as the tool takes one`,
        keyStart,
        open.id,
      );
    } else {
      // Appended in place: copying the list for each repeat is quadratic.
      if (keyIndex === 1) args[key] = [args[key] as JsonValue, text];
      else (args[key] as JsonValue[]).push(text);
      sink.warn(
        'duplicate-field',
        `parameter ${JSON.stringify(key)} is given more than once; its values make a list`,
        keyStart,
        open.id,
      );
    }
  }

  function closeValue(): void {
    const open = call as OpenCall;
    const rest = (value as StreamedValue).close();
    if (rest !== '') sink.delta(open.id, key, keyIndex, rest);
    storeValue(open);
    value = null;
    state = State.InCall;
  }

  /** Blanks after `at`, bounded: the index after them, or -1 when too many. */
  function afterBlanks(s: string, at: number): number {
    const limit = at + MAX_CONFIRM_BLANKS;
    const j = skipBlanks(s, at, Math.min(s.length, limit));
    return j >= limit ? -1 : j;
  }

  /** Whether the call's close ending at `at` is one: true, false, or null (more input decides). */
  function confirmsCallClose(
    s: string,
    at: number,
    final: boolean,
    inValue = false,
  ): boolean | null {
    // A call that is its own block closes at its close, unless that close is met inside a
    // value: then only the end of the input or the next call confirms it (`</tool_call>` in code).
    if (wrapper === null && !inValue) return true;
    const j = afterBlanks(s, at);
    if (j === -1) return false;
    if (j >= s.length) return final ? true : null;
    const after = wrapper?.close ?? form.orphanClose;
    return either(
      startsWithAt(s, j, callTag.start),
      after === undefined ? false : startsWithAt(s, j, after),
      final,
    );
  }

  /** Whether the parameter's close ending at `at` is one. */
  function confirmsParameterClose(s: string, at: number, final: boolean): boolean | null {
    const j = afterBlanks(s, at);
    if (j === -1) return false;
    if (j >= s.length) return final ? true : null;
    const next = parameter.read(s, j, final);
    if (next === 'partial') return null;
    if (next !== null) return true;
    const callClose = startsWithAt(s, j, callTag.close);
    if (callClose === true) return confirmsCallClose(s, j + callTag.close.length, final);
    // The next call's opening: this call was left open, and the parameter ends here.
    const nextCall = callTag.read(s, j, final);
    if (nextCall === 'partial') return null;
    if (nextCall !== null) return true;
    // The block's close, itself confirmed: the call was left open.
    const blockClose = wrapper === null ? false : startsWithAt(s, j, wrapper.close);
    if (blockClose === true)
      return confirmsBlockCloseInValue(s, j + (wrapper as { close: string }).close.length, final);
    return either(callClose, blockClose, final) === null ? null : false;
  }

  /** Whether a block close inside a value, ending at `at`, is one: the input ends, or a block opens. */
  function confirmsBlockCloseInValue(s: string, at: number, final: boolean): boolean | null {
    const j = afterBlanks(s, at);
    if (j === -1) return false;
    if (j >= s.length) return final ? true : null;
    return either(startsWithAt(s, j, (wrapper as { open: string }).open), false, final);
  }

  function stepBetween(s: string, i: number, offset: number, final: boolean): number {
    const lt = s.indexOf('<', i);
    if (lt === -1) return endOfInput(s.length, offset, final);
    const opening = callTag.read(s, lt, final);
    if (opening === 'partial') return -lt - 1;
    if (opening !== null) {
      openCall(opening, lt, offset);
      return lt + opening.length;
    }
    if (startsWithAt(s, lt, callTag.start) === true) {
      fail('missing-tool-name', callTag.unnamed, offset + lt);
      return lt;
    }
    if (wrapper !== null) {
      const close = startsWithAt(s, lt, wrapper.close);
      if (close === null && !final) return -lt - 1;
      if (close === true) {
        const end = lt + wrapper.close.length;
        if (calls === 0) fail('missing-tool-name', form.empty, blockStart);
        else {
          endClosed(offset + end);
          state = State.Done;
        }
        return end;
      }
    }
    return lt + 1;
  }

  function openCall(opening: OpeningTag, lt: number, offset: number): void {
    const name = opening.name.trim();
    lineStart = false;
    const selfClosing = name.endsWith('/');
    // `<function=get_time/>`: a call without arguments and without a closing tag.
    beginCall(selfClosing ? name.slice(0, -1).trim() : name);
    if (form.missingWrapper !== undefined)
      sink.warn('missing-wrapper', form.missingWrapper, blockStart, (call as OpenCall).id);
    if (selfClosing) closeCall(offset + lt + opening.length);
  }

  function stepInCall(s: string, i: number, offset: number, final: boolean): number {
    const lt = s.indexOf('<', i);
    lineStart = endsAtLineStart(s, i, lt === -1 ? s.length : lt, lineStart);
    if (lt === -1) return endOfInput(s.length, offset, final);
    const opening = parameter.read(s, lt, final);
    if (opening === 'partial') return -lt - 1;
    if (opening !== null) {
      beginValue(opening.name, offset + lt);
      return lt + opening.length;
    }
    const close = startsWithAt(s, lt, callTag.close);
    if (close === null && !final) return -lt - 1;
    if (close === true) {
      const end = lt + callTag.close.length;
      const confirmed = confirmsCallClose(s, end, final);
      if (confirmed === null) return -lt - 1;
      if (confirmed) {
        closeCall(offset + end);
        return end;
      }
    }
    if (wrapper !== null) {
      const blockClose = startsWithAt(s, lt, wrapper.close);
      if (blockClose === null && !final) return -lt - 1;
      if (blockClose === true) {
        warnUnclosedCall(wrapper.close, offset + lt);
        closeCall(offset + lt);
        return lt;
      }
      if (lineStart) {
        const next = callTag.read(s, lt, final);
        if (next === 'partial') return -lt - 1;
        if (next !== null) {
          warnUnclosedCall(`the next ${callTag.start}`, offset + lt);
          closeCall(offset + lt);
          return lt;
        }
      }
    }
    lineStart = false;
    return lt + 1;
  }

  /**
   * A value's text up to the next `<` that ends it (or that more input must decide): the
   * text is written once per step, not once per `<` (code is full of them).
   */
  function stepInValue(s: string, i: number, offset: number, final: boolean): number {
    for (let at = i; ; ) {
      const lt = s.indexOf('<', at);
      if (lt === -1) {
        writeValue(s.slice(i));
        return endOfInput(s.length, offset, final);
      }
      const next = decideInValue(s, i, lt, offset, final);
      if (next !== TEXT) return next;
      at = lt + 1;
    }
  }

  /** The value's text from `from` up to `lt`, then where the step goes on (or waits: < 0). */
  function endValueText(s: string, from: number, lt: number, next: number): number {
    writeValue(s.slice(from, lt));
    return next;
  }

  /** What the `<` at `lt` in a value is: TEXT, or (its text written) where the step goes on. */
  function decideInValue(
    s: string,
    from: number,
    lt: number,
    offset: number,
    final: boolean,
  ): number {
    // Every tag that can end a value starts `</`, or is the reopening (`<p…`): `a < b` is text.
    if (lt + 1 < s.length) {
      const next = s.charCodeAt(lt + 1);
      if (next !== 0x2f && next !== reopensSecond) return TEXT;
    }
    const hold = -lt - 1;
    const close = parameter.close(key);
    const closes = startsWithAt(s, lt, close);
    if (closes === null && !final) return endValueText(s, from, lt, hold);
    if (closes === true) {
      const confirmed = confirmsParameterClose(s, lt + close.length, final);
      if (confirmed === null) return endValueText(s, from, lt, hold);
      if (confirmed) {
        endValueText(s, from, lt, 0);
        closeValue();
        lineStart = false;
        return lt + close.length;
      }
    }
    if (parameter.reopens !== null && endsAtLineStart(s, from, lt, lineStart)) {
      const reopens = startsWithAt(s, lt, parameter.reopens);
      if (reopens === null && !final) return endValueText(s, from, lt, hold);
      if (reopens === true) {
        endValueText(s, from, lt, 0);
        warnUnclosedParameter(parameter.reopens);
        closeValue();
        return lt;
      }
    }
    const callClose = startsWithAt(s, lt, callTag.close);
    if (callClose === null && !final) return endValueText(s, from, lt, hold);
    if (callClose === true) {
      const end = lt + callTag.close.length;
      const confirmed = confirmsCallClose(s, end, final, true);
      if (confirmed === null) return endValueText(s, from, lt, hold);
      if (confirmed) {
        endValueText(s, from, lt, 0);
        warnUnclosedParameter(callTag.close);
        closeValue();
        closeCall(offset + end);
        return end;
      }
    }
    if (wrapper !== null) {
      const blockClose = startsWithAt(s, lt, wrapper.close);
      if (blockClose === null && !final) return endValueText(s, from, lt, hold);
      if (blockClose === true) {
        const confirmed = confirmsBlockCloseInValue(s, lt + wrapper.close.length, final);
        if (confirmed === null) return endValueText(s, from, lt, hold);
        if (confirmed) {
          endValueText(s, from, lt, 0);
          warnUnclosedParameter(wrapper.close);
          closeValue();
          return lt;
        }
      }
    }
    return TEXT;
  }

  /** Nothing more in `s`: wait for input, or decide what the end of the input leaves. */
  function endOfInput(at: number, offset: number, final: boolean): number {
    if (state === State.InValue) flushValue();
    if (!final) return -at - 1;
    if (state === State.Between && calls > 0 && wrapper !== null) {
      sink.warn(
        'unclosed-element',
        `the block was not closed with ${wrapper.close}; it ends with the input`,
        offset + at,
      );
      endClosed(offset + at);
      state = State.Done;
    } else {
      const what = wrapper?.open ?? callTag.start;
      fail(
        'incomplete-tool-call',
        `the ${what} block was not closed before the input ended`,
        offset + at,
      );
    }
    return at;
  }

  return {
    run(s, from, offset, final) {
      let i = from;
      if (state === State.Start) {
        blockStart = offset + from;
        if (wrapper !== null) {
          i += wrapper.open.length;
          state = State.Between;
        } else {
          const opening = callTag.read(s, i, final);
          if (opening === 'partial') return i;
          if (opening === null) {
            fail('missing-tool-name', callTag.unnamed, offset + i);
            return i;
          }
          openCall(opening, i, offset);
          i += opening.length;
        }
      }
      // Each step returns where it got to, or -(where it waits) - 1 when it needs more input.
      for (;;) {
        let next: number;
        switch (state) {
          case State.Between:
            next = stepBetween(s, i, offset, final);
            break;
          case State.InCall:
            next = stepInCall(s, i, offset, final);
            break;
          case State.InValue:
            next = stepInValue(s, i, offset, final);
            break;
          case State.Trailer:
            next = stepTrailer(s, i, offset, final);
            break;
          default:
            return i;
        }
        if (next < 0) {
          if (state === State.InValue) flushValue();
          return -next - 1;
        }
        i = next;
      }
    },
    streamValue(chunk) {
      if (state !== State.InValue || chunk.indexOf('<') !== -1) return false;
      writeValue(chunk);
      flushValue();
      return true;
    },
    get status() {
      if (state === State.Done) return BlockStatus.Done;
      return state === State.Failed ? BlockStatus.Failed : BlockStatus.Open;
    },
    stop(code, message, offset) {
      if (failed === null) fail(code, message, offset);
      return failed as BlockFailure;
    },
  };
}

/** Two possible matches at one place: true if either is, null if either may still be, else false. */
function either(a: boolean | null, b: boolean | null, final: boolean): boolean | null {
  if (a === true || b === true) return true;
  if ((a === null || b === null) && !final) return null;
  return false;
}

/** Whether a line start follows `s[from, to)`, given whether one preceded it (`before`). */
function endsAtLineStart(s: string, from: number, to: number, before: boolean): boolean {
  for (let k = to - 1; k >= from; k--) {
    const c = s.charCodeAt(k);
    if (c === 0x0a || c === 0x0d) return true;
    if (c !== 0x20 && c !== 0x09) return false;
  }
  return before;
}

function isArrayProperty(limits: BlockLimits, tool: string, key: string): boolean {
  const type = limits.schemas?.[tool]?.properties?.[key]?.type;
  if (type === undefined) return true;
  return type === 'array' || (Array.isArray(type) && type.includes('array'));
}
