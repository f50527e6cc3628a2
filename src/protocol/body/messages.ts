import { Streamed, skipBlanks, wait } from '../block.js';
import { partialSuffixStart } from '../tag.js';
import type { MessageForm } from './form.js';
import { type BodyHost, type BodyKind, MAX_HEADER, State } from './kind.js';

/**
 * Reads a block of the kind `messages` (`MessageForm`): a message's header decides what it is,
 * a call to the recipient it names (its arguments follow), thinking, or text.
 */
export class MessageSteps implements BodyKind {
  readonly #host: BodyHost;
  readonly #message: MessageForm;
  readonly #ends: MessageEnds;

  constructor(host: BodyHost) {
    this.#host = host;
    this.#message = host.form.message as MessageForm;
    this.#ends = messageEndsOf(this.#message);
  }

  reset(): void {}

  begin(at: number, _next: number): number {
    this.#host.state = State.Message;
    return at;
  }

  step(s: string, i: number, offset: number, final: boolean): number {
    if (this.#host.state === State.Message) return this.#readHeader(s, i, offset, final);
    if (this.#host.state === State.Thinking) return this.#thinking(s, i, offset, final);
    return wait(i);
  }

  /** Thinking streams as it comes, up to what may end it. */
  streamValue(chunk: string): Streamed {
    if (this.#host.state !== State.Thinking) return Streamed.No;
    for (const first of this.#ends.firsts) if (chunk.indexOf(first) !== -1) return Streamed.No;
    this.#host.sink.thinking(chunk);
    return Streamed.Kept;
  }

  unclosed(): string {
    return `the call was not ended with ${this.#message.callEnd}`;
  }

  #readHeader(s: string, i: number, offset: number, final: boolean): number {
    const form = this.#message;
    const headerEnd = form.headerEnd;
    this.#host.blockStart = offset + i;
    // Only as far as a header can reach: a flood of openings is then read in linear time.
    const window = s.slice(i, i + MAX_HEADER + headerEnd.length);
    const open = this.#host.form.open.length;
    const message = window.indexOf(headerEnd, open);
    const start = window.indexOf(form.start, open);
    if (message === -1 || (start !== -1 && start < message)) {
      // At the end of the input, row 'message-header-cut' (as a header the next message cuts).
      if (
        !final &&
        start === -1 &&
        window.length < MAX_HEADER + headerEnd.length &&
        i + window.length >= s.length
      )
        return wait(i);
      this.#host.fail(
        'incomplete-tool-call',
        `a ${form.name} header ends with ${headerEnd}`,
        this.#host.blockStart,
      );
      // What was looked at is the broken header's, up to the next message: given back as text
      // whole, not read again for openings (a flood of them costs linear time).
      return wait(i + (start !== -1 ? start : window.length));
    }
    const header = window.slice(0, message);
    const after = i + message + headerEnd.length;
    const recipient = form.recipient.exec(header);
    if (recipient !== null) {
      this.#host.builder.startNamed(recipient[1]);
      this.#host.newReader(this.#ends.closes, true);
      this.#host.state = State.Body;
      return after;
    }
    if (form.thinking.test(header)) {
      this.#host.sink.thinkingStart();
      this.#host.state = State.Thinking;
      return after;
    }
    // The answer: its header is a marker, its words text. A message to no function: text as
    // written.
    if (form.answer?.test(header) === true) this.#host.sink.marker(offset + after);
    else this.#host.sink.text(offset + after);
    this.#host.state = State.Done;
    return after;
  }

  #thinking(s: string, i: number, offset: number, final: boolean): number {
    const ends = this.#ends;
    const end = ends.next(s, i);
    // Row 'message-thinking' of the end-of-input table: at the end, the thinking ends there.
    const stop = end !== null ? end.at : final ? s.length : ends.partial(s, i);
    this.#host.sink.thinking(s.slice(i, stop));
    if (end === null && !final) return wait(stop);
    const close = end === null ? s.length : end.at + end.length;
    this.#host.sink.thinkingEnd(offset + close);
    this.#host.state = State.Done;
    return close;
  }

  /** After a call's arguments in a message: the message's end. */
  afterValue(s: string, i: number, offset: number, final: boolean): number {
    const ends = this.#ends;
    const callEnd = this.#message.callEnd;
    const j = skipBlanks(s, i, s.length);
    const end = ends.next(s, j);
    if (end !== null && end.at === j)
      return this.#host.end(offset + j + end.length, j + end.length);
    if (j >= s.length || ends.partial(s, j) === j) {
      if (!final) return wait(i);
      return this.#host.endedUnclosed(s, offset, callEnd);
    }
    this.#host.fail(
      'invalid-json',
      `the call's arguments are followed by more than ${callEnd}`,
      offset + j,
    );
    return wait(j);
  }
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
