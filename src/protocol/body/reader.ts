import {
  type BlockFailure,
  type BlockLimits,
  type BlockSink,
  BlockStatus,
  type BlockStream,
  Streamed,
  skipBlanks,
} from '../block.js';
import type { ParseErrorCode } from '../events.js';
import { partialSuffixStart, startsWithAt } from '../tag.js';
import { CallBuilder } from './calls.js';
import type { BodyForm, MessageForm } from './form.js';
import { ModelJsonReader } from './model-json.js';
import { StringEnds } from './string-ends.js';

enum State {
  Start = 0,
  /** A named body's header (its tool's name). */
  Header = 1,
  /** The body's value, read by the model-JSON reader. */
  Body = 2,
  /** After the body's value: the block's (or the call's) close. */
  AfterBody = 3,
  /** Inside a section, between its calls. */
  Between = 4,
  /** A section call's header, up to its separator. */
  CallHeader = 5,
  /** A section call's name on the line after the separator. */
  CallName = 6,
  /** A message's header, up to its end. */
  Message = 7,
  /** A message of thinking. */
  Thinking = 8,
  Done = 9,
  Failed = 10,
  /** A fenced body's opening fence line, before its calls. */
  FenceOpen = 11,
}

/** The longest header (a name, a message's header) read before it is no call. */
const MAX_HEADER = 512;
/** The longest fence line held while it may still become one. */
const MAX_FENCE = 32;

/**
 * Reads one block of a body dialect (a `BodyForm`) as it streams, from its opening to its end:
 * the body's value by the one model-JSON reader, turned into calls as it is read (see
 * CallBuilder). Each call starts, is named and streams its string arguments while it is
 * written; what is streamed is never taken back, and a call's arguments are what was streamed.
 */
export class BodyReader implements BlockStream {
  readonly #form: BodyForm;
  readonly #sink: BlockSink;
  readonly #limits: BlockLimits;
  #state = State.Start;
  #blockStart = 0;
  #builder: CallBuilder;
  #reader: ModelJsonReader | null = null;
  /** Shared by this stream's readers: what one found ahead, the next need not search for. */
  readonly #stringEnds = new StringEnds();
  #failed: BlockFailure | null = null;
  /** Text of a section call's header so far, and where it began. */
  #header = '';
  #headerAt = 0;
  /** A fence (```json) stood before the body: its close may follow it. */
  #fenced = false;
  #calls = 0;
  /** What ends a message, for a form of messages. */
  readonly #messages: MessageEnds | null;

  constructor(form: BodyForm, sink: BlockSink, limits: BlockLimits) {
    this.#form = form;
    this.#sink = sink;
    this.#limits = limits;
    this.#messages = form.message === undefined ? null : messageEndsOf(form.message);
    this.#builder = this.#newBuilder();
  }

  reset(): void {
    this.#state = State.Start;
    this.#builder = this.#newBuilder();
    this.#reader = null;
    this.#failed = null;
    this.#header = '';
    this.#fenced = false;
    this.#calls = 0;
  }

  get status(): BlockStatus {
    if (this.#state === State.Done) return BlockStatus.Done;
    return this.#state === State.Failed ? BlockStatus.Failed : BlockStatus.Open;
  }

  stop(code: ParseErrorCode, message: string, offset: number): BlockFailure {
    if (this.#failed === null) this.#fail(code, message, offset);
    return this.#failed as BlockFailure;
  }

  run(s: string, from: number, offset: number, final: boolean): number {
    this.#builder.reading = true;
    let i = from;
    for (;;) {
      const next = this.#step(s, i, offset, final);
      if (next < 0) {
        i = -next - 1;
        break;
      }
      i = next;
      if (this.#state === State.Done || this.#state === State.Failed) break;
    }
    this.#builder.flush();
    this.#builder.reading = false;
    return i;
  }

  #step(s: string, i: number, offset: number, final: boolean): number {
    switch (this.#state) {
      case State.Start:
        return this.#start(i, offset);
      case State.Header:
        return this.#readHeader(s, i, offset, final);
      case State.FenceOpen:
        return this.#fenceOpen(s, i, offset, final);
      case State.Body:
        return this.#readBody(s, i, offset, final);
      case State.AfterBody:
        return this.#afterBody(s, i, offset, final);
      case State.Between:
        return this.#between(s, i, offset, final);
      case State.CallHeader:
        return this.#callHeader(s, i, final);
      case State.CallName:
        return this.#callName(s, i, offset, final);
      case State.Message:
        return this.#message(s, i, offset, final);
      case State.Thinking:
        return this.#thinking(s, i, offset, final);
      default:
        return -i - 1;
    }
  }

  /**
   * The streaming fast path: a chunk inside a string of the body that holds nothing that could
   * end or change it is that string's text, without the reader's steps.
   */
  streamValue(chunk: string): Streamed {
    if (this.#state === State.Thinking) {
      for (const first of (this.#messages as MessageEnds).firsts)
        if (chunk.indexOf(first) !== -1) return Streamed.No;
      this.#sink.thinking(chunk);
      return Streamed.Kept;
    }
    return this.#state === State.Body && this.#reader !== null && this.#reader.appendToString(chunk)
      ? Streamed.Kept
      : Streamed.No;
  }

  #newBuilder(): CallBuilder {
    const form = this.#form;
    return new CallBuilder(
      this.#sink,
      this.#limits,
      form.kind === 'calls' ? 'calls' : 'arguments',
      form.format,
      form.bareObject === true,
      form.nameKeyed === true,
      form.argumentsKey,
    );
  }

  #newReader(closes: readonly string[], closeInStrings: boolean): void {
    const form = this.#form;
    this.#reader = new ModelJsonReader(
      {
        syntax: form.syntax,
        top: form.sequence ? 'sequence' : 'value',
        closes,
        closeInStrings,
        maxDepth: this.#limits.maxDepth,
        quoteToken: form.quoteToken,
      },
      this.#builder,
      this.#stringEnds,
    );
  }

  #start(i: number, offset: number): number {
    const form = this.#form;
    this.#blockStart = offset + i;
    const next = form.openIsBody ? i : i + form.open.length;
    if (form.missingWrapper !== undefined)
      this.#builder.wrappedWrongly(form.missingWrapper, this.#blockStart);
    switch (form.kind) {
      case 'calls':
        if (form.fence !== undefined) {
          // The fence's end closes the calls too, outside strings only (code may hold it).
          this.#newReader([form.fence.close, form.close], false);
          this.#state = State.FenceOpen;
          break;
        }
        if (form.close === '') this.#newReader(form.cutBy ?? [], form.cutBy !== undefined);
        else this.#newReader([form.close], form.closeIsToken === true);
        this.#state = State.Body;
        break;
      case 'named':
        this.#state = State.Header;
        break;
      case 'sections':
        this.#state = State.Between;
        break;
      case 'messages':
        this.#state = State.Message;
        return i;
    }
    return next;
  }

  // --- A fenced body: its fence line, then its calls. ---

  #fenceOpen(s: string, i: number, offset: number, final: boolean): number {
    const j = skipBlanks(s, i, s.length);
    if (j >= s.length) {
      if (!final) return -j - 1;
      this.#state = State.Body;
      return j;
    }
    const fence = this.#form.fence as NonNullable<BodyForm['fence']>;
    fence.open.lastIndex = j;
    if (fence.open.test(s)) {
      this.#fenced = true;
      this.#state = State.Body;
      return fence.open.lastIndex;
    }
    if (!final && s.length - j <= MAX_FENCE && fence.begun.test(s.slice(j))) return -j - 1;
    this.#sink.warn(
      'missing-wrapper',
      `the calls after ${this.#form.open} go in a ${fence.label} fence; read without it`,
      offset + j,
    );
    this.#state = State.Body;
    return j;
  }

  // --- Named bodies: the header, then the arguments. ---

  #readHeader(s: string, i: number, offset: number, final: boolean): number {
    const header = this.#form.header as NonNullable<BodyForm['header']>;
    header.pattern.lastIndex = i;
    const match = header.pattern.exec(s);
    if (match === null) {
      const rest = s.slice(i, i + MAX_HEADER + 1);
      const partial = rest.length <= MAX_HEADER && header.partial.test(rest);
      if (!final && partial) return -i - 1;
      if (partial) this.#fail('incomplete-tool-call', this.#unclosed(), this.#blockStart);
      else
        this.#fail(
          'missing-tool-name',
          `write the tool's name after ${this.#form.open}`,
          this.#blockStart,
        );
      return -i - 1;
    }
    this.#builder.startNamed(match[1]);
    const close = this.#form.close;
    this.#newReader(close === '' ? [] : [close], this.#form.closeIsToken === true);
    this.#state = State.Body;
    void offset;
    return header.pattern.lastIndex;
  }

  // --- The body's value. ---

  #readBody(s: string, i: number, offset: number, final: boolean): number {
    const reader = this.#reader as ModelJsonReader;
    const next = reader.read(s, i, offset, final);
    if (reader.failure !== null) return this.#bodyFailed(next);
    if (reader.closeAt !== -1) {
      // The close came before the value ended: brackets left open are closed (a repair).
      if (!reader.finish(reader.closeAt)) return this.#bodyFailed(next);
      this.#state = State.AfterBody;
      return reader.closeAt - offset;
    }
    if (reader.done) {
      this.#state = State.AfterBody;
      return next;
    }
    if (!final) return -next - 1;
    // A sequence read to its end, only its close missing: decided as after a closed body.
    if (reader.betweenValues) {
      this.#state = State.AfterBody;
      return this.#afterBody(s, next, offset, final);
    }
    // The input ended inside the value: it is cut short, never repaired into a call.
    this.#fail('incomplete-tool-call', this.#unclosed(), this.#blockStart);
    return -s.length - 1;
  }

  #unclosed(): string {
    if (this.#form.kind === 'messages')
      return `the call was not ended with ${(this.#form.message as MessageForm).callEnd}`;
    if (this.#form.close === '' && this.#form.kind !== 'sections')
      return `the ${this.#form.open} block's JSON was not closed before the input ended`;
    const close = this.#form.kind === 'sections' ? this.#form.call?.close : this.#form.close;
    return `the ${this.#form.open} block was not closed${close ? ` with ${close}` : ''} before the input ended`;
  }

  #bodyFailed(next: number): number {
    const reader = this.#reader as ModelJsonReader;
    const failure = reader.failure ?? {
      message: 'the body is no call',
      at: this.#blockStart,
      cut: false,
    };
    // A value the input ended inside is cut short (not invalid): `incomplete-tool-call`.
    if (failure.cut) this.#fail('incomplete-tool-call', this.#unclosed(), this.#blockStart);
    else
      this.#fail(
        reader.depthExceeded ? 'max-depth-exceeded' : 'invalid-json',
        `the call is not valid JSON: ${failure.message}`,
        failure.at,
      );
    return -next - 1;
  }

  /** After the body's value: the close, or (no close) the block ends with the value. */
  #afterBody(s: string, i: number, offset: number, final: boolean): number {
    const builder = this.#builder;
    if (builder.failure !== null) {
      this.#fail(builder.failure.code, builder.failure.message, builder.failure.at);
      return -i - 1;
    }
    const form = this.#form;
    if (form.kind === 'sections') return this.#afterSectionCall(s, i, offset, final);
    if (form.kind === 'messages') return this.#afterMessageCall(s, i, offset, final);
    if (form.close === '') return this.#end(offset + i, i);
    let j = skipBlanks(s, i, s.length);
    // A fenced body: the fence's end, then the close (a fence left open is said).
    let fenceLeftOpen = false;
    const fence = form.fence;
    if (this.#fenced && fence !== undefined) {
      const fenceEnd = startsWithAt(s, j, fence.close);
      if (fenceEnd === null && !final) return -i - 1;
      if (fenceEnd === true) j = skipBlanks(s, j + fence.close.length, s.length);
      else fenceLeftOpen = true;
    }
    const close = startsWithAt(s, j, form.close);
    if (close === true) {
      if (fenceLeftOpen && fence !== undefined && this.#builder.started.length > 0) {
        this.#builder.flush();
        this.#sink.warn(
          'missing-wrapper',
          `the calls' ${fence.label} fence was not closed before ${form.close}`,
          offset + j,
          this.#builder.currentId,
        );
      }
      return this.#end(offset + j + form.close.length, j + form.close.length);
    }
    if (j >= s.length || close === null) {
      if (!final) return -i - 1;
      return this.#endedUnclosed(s, offset, form.close);
    }
    // More after the value than its close: the body is no call as written.
    this.#fail(
      'invalid-json',
      `the call's JSON is followed by more than ${form.close}`,
      offset + j,
    );
    return -j - 1;
  }

  /** The block ends at absolute `end` (`next` in the text): its last call ends with it. */
  #end(end: number, next: number): number {
    // A block of no call (`[]`, nothing between the markers) is no call: its text comes back.
    if (this.#builder.started.length === 0) {
      this.#fail(
        'missing-tool-name',
        `the ${this.#form.open} block holds no call`,
        this.#blockStart,
      );
      return -next - 1;
    }
    this.#builder.endBlock(end);
    this.#state = State.Done;
    return next;
  }

  // --- Sections: calls between tokens (DeepSeek, Kimi-K2). ---

  #between(s: string, i: number, offset: number, final: boolean): number {
    const form = this.#form;
    const call = form.call as NonNullable<BodyForm['call']>;
    const close = s.indexOf(form.close, i);
    // The next call is looked for only before the section's close: a search past it read on to
    // the next section's call, once for each section.
    const open = close === -1 ? s.indexOf(call.open, i) : indexBefore(s, call.open, i, close);
    if (close !== -1 && (open === -1 || close < open)) {
      if (this.#calls === 0) {
        this.#fail('missing-tool-name', `the ${form.open} block holds no call`, offset + close);
        return -close - 1;
      }
      // The last call's text runs to the block's end.
      return this.#end(offset + close + form.close.length, close + form.close.length);
    }
    if (open !== -1) {
      this.#header = '';
      this.#headerAt = offset + open;
      this.#state = State.CallHeader;
      return open + call.open.length;
    }
    if (final) return this.#endOfSections(s, offset);
    return -Math.min(partialSuffixStart(s, i, call.open), partialSuffixStart(s, i, form.close)) - 1;
  }

  /**
   * The input ended where only the call's or the block's close was missing (a server strips
   * its stop token, a user's stop sequence ends the reply): the complete call is a call, told.
   */
  #endedUnclosed(s: string, offset: number, close: string): number {
    this.#builder.flush();
    this.#sink.warn(
      'unclosed-call-at-end',
      `the call was complete but not closed with ${close}; it ends with the input`,
      offset + s.length,
      this.#builder.currentId,
    );
    return this.#end(offset + s.length, s.length);
  }

  /** The input ended inside a section: its complete calls are calls, if it holds any. */
  #endOfSections(s: string, offset: number): number {
    if (this.#calls > 0) return this.#endedUnclosed(s, offset, this.#form.close);
    this.#fail('incomplete-tool-call', this.#unclosed(), offset + s.length);
    return -s.length - 1;
  }

  #callHeader(s: string, i: number, final: boolean): number {
    const call = this.#form.call as NonNullable<BodyForm['call']>;
    const sep = s.indexOf(call.separator, i);
    const end = sep === -1 ? (final ? s.length : partialSuffixStart(s, i, call.separator)) : sep;
    this.#header += s.slice(i, end);
    if (this.#header.length > MAX_HEADER) {
      this.#fail('missing-tool-name', `no ${call.separator} after the call's name`, this.#headerAt);
      return -end - 1;
    }
    if (sep === -1) {
      if (final) {
        this.#fail('incomplete-tool-call', this.#unclosed(), this.#headerAt);
        return -s.length - 1;
      }
      return -end - 1;
    }
    const name = call.nameOf(this.#header.trim());
    if (name === '' && !call.nameOnNextLine) {
      this.#fail(
        'missing-tool-name',
        `write the tool's name before ${call.separator}`,
        this.#headerAt,
      );
      return -sep - 1;
    }
    this.#calls++;
    if (name === '') {
      this.#state = State.CallName;
      return sep + call.separator.length;
    }
    return this.#beginSectionCall(name, sep + call.separator.length);
  }

  /** The name on its own line, then the arguments (in the call's fence, when it has one). */
  #callName(s: string, i: number, offset: number, final: boolean): number {
    const newline = s.indexOf('\n', i);
    if (newline === -1 || newline - i > MAX_HEADER) {
      if (!final && s.length - i <= MAX_HEADER) return -i - 1;
      this.#fail('missing-tool-name', 'no name on the line after the separator', this.#headerAt);
      return -i - 1;
    }
    const name = s.slice(i, newline).trim();
    let next = newline + 1;
    const fence = (this.#form.call as NonNullable<BodyForm['call']>).fence;
    if (fence !== undefined) {
      const fenceStart = skipBlanks(s, next, s.length);
      if (fenceStart >= s.length && !final) return -i - 1;
      fence.open.lastIndex = fenceStart;
      if (fence.open.test(s)) {
        this.#fenced = true;
        next = fence.open.lastIndex;
      } else if (
        !final &&
        s.length - fenceStart <= MAX_FENCE &&
        fence.begun.test(s.slice(fenceStart))
      )
        return -i - 1;
    }
    void offset;
    return this.#beginSectionCall(name, next);
  }

  #beginSectionCall(name: string, next: number): number {
    const call = this.#form.call as NonNullable<BodyForm['call']>;
    this.#builder.startNamed(name);
    this.#newReader([call.close], true);
    this.#state = State.Body;
    return next;
  }

  /** After a section call's arguments: (its fence's end, then) its close. */
  #afterSectionCall(s: string, i: number, offset: number, final: boolean): number {
    const call = this.#form.call as NonNullable<BodyForm['call']>;
    let j = skipBlanks(s, i, s.length);
    const fence = call.fence;
    if (this.#fenced && fence !== undefined && startsWithAt(s, j, fence.close) !== false) {
      if (j + fence.close.length > s.length && !final) return -i - 1;
      if (s.startsWith(fence.close, j)) j = skipBlanks(s, j + fence.close.length, s.length);
    }
    const close = startsWithAt(s, j, call.close);
    if (final && (j >= s.length || close === null)) {
      this.#calls++;
      return this.#endedUnclosed(s, offset, call.close);
    }
    if (close === null || j >= s.length) return -i - 1;
    if (close !== true) {
      this.#fail(
        'invalid-json',
        `the call's arguments are followed by more than ${call.close}`,
        offset + j,
      );
      return -j - 1;
    }
    const end = j + call.close.length;
    this.#builder.extendEnd(offset + end);
    this.#fenced = false;
    this.#state = State.Between;
    return end;
  }

  // --- Messages: a message's header decides what it is. ---

  #message(s: string, i: number, offset: number, final: boolean): number {
    const form = this.#form.message as MessageForm;
    const headerEnd = form.headerEnd;
    this.#blockStart = offset + i;
    // Only as far as a header can reach: a flood of openings is then read in linear time.
    const window = s.slice(i, i + MAX_HEADER + headerEnd.length);
    const open = this.#form.open.length;
    const message = window.indexOf(headerEnd, open);
    const start = window.indexOf(form.start, open);
    if (message === -1 || (start !== -1 && start < message)) {
      if (
        !final &&
        start === -1 &&
        window.length < MAX_HEADER + headerEnd.length &&
        i + window.length >= s.length
      )
        return -i - 1;
      this.#fail(
        'incomplete-tool-call',
        `a ${form.name} header ends with ${headerEnd}`,
        this.#blockStart,
      );
      // What was looked at is the broken header's, up to the next message: given back as text
      // whole, not read again for openings (a flood of them costs linear time).
      return -(i + (start !== -1 ? start : window.length)) - 1;
    }
    const header = window.slice(0, message);
    const after = i + message + headerEnd.length;
    const recipient = form.recipient.exec(header);
    if (recipient !== null) {
      this.#calls++;
      this.#builder.startNamed(recipient[1]);
      this.#newReader((this.#messages as MessageEnds).closes, true);
      this.#state = State.Body;
      return after;
    }
    if (form.thinking.test(header)) {
      this.#sink.thinkingStart();
      this.#state = State.Thinking;
      return after;
    }
    // The final answer, or a message to no function: text as written.
    this.#sink.text(offset + after);
    this.#state = State.Done;
    return after;
  }

  #thinking(s: string, i: number, offset: number, final: boolean): number {
    const ends = this.#messages as MessageEnds;
    const end = ends.next(s, i);
    const stop = end !== null ? end.at : final ? s.length : ends.partial(s, i);
    this.#sink.thinking(s.slice(i, stop));
    if (end === null && !final) return -stop - 1;
    const close = end === null ? s.length : end.at + end.length;
    this.#sink.thinkingEnd(offset + close);
    this.#state = State.Done;
    return close;
  }

  /** After a call's arguments in a message: the message's end. */
  #afterMessageCall(s: string, i: number, offset: number, final: boolean): number {
    const ends = this.#messages as MessageEnds;
    const callEnd = (this.#form.message as MessageForm).callEnd;
    const j = skipBlanks(s, i, s.length);
    const end = ends.next(s, j);
    if (end !== null && end.at === j) return this.#end(offset + j + end.length, j + end.length);
    if (j >= s.length || ends.partial(s, j) === j) {
      if (!final) return -i - 1;
      return this.#endedUnclosed(s, offset, callEnd);
    }
    this.#fail(
      'invalid-json',
      `the call's arguments are followed by more than ${callEnd}`,
      offset + j,
    );
    return -j - 1;
  }

  // --- Failure. ---

  #fail(code: ParseErrorCode, message: string, offset: number): void {
    const id = this.#builder.currentId;
    const failed: BlockFailure = { code, message, format: this.#form.format, offset };
    if (id !== undefined) {
      failed.callId = id;
      failed.partial = {
        serverName: 'local',
        toolName: this.#builder.currentName,
        arguments: Object.create(null),
      };
    }
    this.#failed = failed;
    this.#state = State.Failed;
  }
}

/** Where `literal` first stands in `s` from `from`, wholly before `to`, or -1. */
function indexBefore(s: string, literal: string, from: number, to: number): number {
  const at = s.slice(from, to).indexOf(literal);
  return at === -1 ? -1 : from + at;
}

/** What ends a message, derived once per form: its ends and the next message's start. */
class MessageEnds {
  /** The ends, then the start: the closes of a call's arguments (special tokens). */
  readonly closes: readonly string[];
  /** The first characters of the closes: a chunk without them ends no thinking. */
  readonly firsts: readonly string[];
  readonly #start: string;
  /** One scan that stops at the first end: a search for each end to the end of the text is
   * quadratic in a message of many blocks that lacks one of them. */
  readonly #pattern: RegExp;

  constructor(form: MessageForm) {
    this.closes = [...form.ends, form.start];
    this.firsts = [...new Set(this.closes.map((close) => close[0]))];
    this.#start = form.start;
    this.#pattern = new RegExp(this.closes.map(escapeRegExp).join('|'), 'g');
  }

  /** The earliest end at or after `i`, with its length (a start is not consumed). */
  next(s: string, i: number): { at: number; length: number } | null {
    this.#pattern.lastIndex = i;
    const match = this.#pattern.exec(s);
    if (match === null) return null;
    return { at: match.index, length: match[0] === this.#start ? 0 : match[0].length };
  }

  /** Where a partial end may begin at the end of `s`. */
  partial(s: string, from: number): number {
    let at = s.length;
    for (const end of this.closes) at = Math.min(at, partialSuffixStart(s, from, end));
    return at;
  }
}

const messageEnds = new WeakMap<MessageForm, MessageEnds>();

function messageEndsOf(form: MessageForm): MessageEnds {
  let ends = messageEnds.get(form);
  if (ends === undefined) {
    ends = new MessageEnds(form);
    messageEnds.set(form, ends);
  }
  return ends;
}

const escapeRegExp = (literal: string) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
