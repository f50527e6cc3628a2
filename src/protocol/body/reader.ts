import {
  type BlockFailure,
  type BlockLimits,
  type BlockSink,
  BlockStatus,
  type BlockStream,
  MAX_LEADING_BLANKS,
  Streamed,
  skipBlanks,
  wait,
  waitedAt,
} from '../block.js';
import { END_OF_INPUT } from '../end-of-input.js';
import type { ParseErrorCode } from '../events.js';
import { execWithin } from '../match-within.js';
import {
  type Recoveries,
  type RecoveryValues,
  recoveryMessage,
  requireRows,
} from '../recoveries.js';
import { startsWithAt } from '../tag.js';
import { CallBuilder } from './calls.js';
import {
  BODY_KINDS,
  type BodyForm,
  type BodyRecoveryKind,
  type BodyTests,
  FENCED_BODY_KINDS,
} from './form.js';
import { type BodyHost, type BodyKind, MAX_FENCE, MAX_HEADER, State } from './kind.js';
import { MessageSteps } from './messages.js';
import { Container, ModelJsonReader } from './model-json.js';
import { SectionSteps } from './sections.js';
import { StringEnds } from './string-ends.js';

const HEADER_CUT = END_OF_INPUT['body-header-cut'];
const VALUE_CUT = END_OF_INPUT['body-value-cut'];
const CALL_COMPLETE = END_OF_INPUT['body-call-complete'];
const LIST_OPEN = END_OF_INPUT['body-list-open'];
/** What may stand open around a complete call at the end (row 'body-list-open'). */
const LIST = [Container.Array];
const ENVELOPE = [Container.Object];
const ENVELOPED_LIST = [Container.Object, Container.Array];

/**
 * Reads one block of a body dialect (a `BodyForm`) as it streams, from its opening to its end:
 * the body's value by the one model-JSON reader, turned into calls as it is read (see
 * CallBuilder). Each call starts, is named and streams its string arguments while it is
 * written; what is streamed is never taken back, and a call's arguments are what was streamed.
 * It reads the kinds `calls` and `named` itself, `sections` and `messages` through their steps
 * (sections.ts, messages.ts), which it lends what they need (`BodyHost`).
 */
export class BodyReader implements BlockStream, BodyHost {
  readonly form: BodyForm;
  readonly tests: BodyTests;
  readonly sink: BlockSink;
  readonly #limits: BlockLimits;
  /** The declaration's recoveries this form's reading may make, checked when it is built. */
  readonly #rows: Recoveries<BodyRecoveryKind>;
  state = State.Start;
  blockStart = 0;
  builder: CallBuilder;
  /** The steps of the form's kind, when it is not `calls` or `named`. */
  readonly #kind: BodyKind | null;
  #reader: ModelJsonReader | null = null;
  /** Shared by this stream's readers: what one found ahead, the next need not search for. */
  readonly #stringEnds = new StringEnds();
  #failed: BlockFailure | null = null;
  /** A fence stood before the body: its end may follow it. */
  fenced = false;
  /** What the input ended before in a list of calls, closed there (row 'body-list-open'). */
  #closersLeft = '';

  /** @param tests what `form`'s patterns give the engine, derived once per declaration. */
  constructor(form: BodyForm, tests: BodyTests, sink: BlockSink, limits: BlockLimits) {
    this.form = form;
    this.tests = tests;
    this.sink = sink;
    this.#limits = limits;
    this.#rows = requireRows(
      form.recoveries,
      form.fence === undefined ? BODY_KINDS : FENCED_BODY_KINDS,
      form.format,
    ) as Recoveries<BodyRecoveryKind>;
    this.builder = this.#newBuilder();
    this.#kind =
      form.kind === 'sections'
        ? new SectionSteps(this)
        : form.kind === 'messages'
          ? new MessageSteps(this)
          : null;
  }

  reset(): void {
    this.state = State.Start;
    this.builder = this.#newBuilder();
    this.#reader = null;
    this.#failed = null;
    this.fenced = false;
    this.#closersLeft = '';
    this.#kind?.reset();
  }

  get status(): BlockStatus {
    if (this.state === State.Done) return BlockStatus.Done;
    return this.state === State.Failed ? BlockStatus.Failed : BlockStatus.Open;
  }

  stop(code: ParseErrorCode, message: string, offset: number): BlockFailure {
    if (this.#failed === null) this.fail(code, message, offset);
    return this.#failed as BlockFailure;
  }

  run(s: string, from: number, offset: number, final: boolean): number {
    this.builder.reading = true;
    let i = from;
    for (;;) {
      const next = this.#step(s, i, offset, final);
      if (next < 0) {
        i = waitedAt(next);
        break;
      }
      i = next;
      if (this.state === State.Done || this.state === State.Failed) break;
    }
    this.builder.flush();
    this.builder.reading = false;
    return i;
  }

  #step(s: string, i: number, offset: number, final: boolean): number {
    switch (this.state) {
      case State.Start:
        return this.#start(i, offset);
      case State.Header:
        return this.#readHeader(s, i, final);
      case State.FenceOpen:
        return this.#fenceOpen(s, i, offset, final);
      case State.Body:
        return this.#readBody(s, i, offset, final);
      case State.AfterBody:
        return this.#afterBody(s, i, offset, final);
      default:
        return this.#kind === null ? wait(i) : this.#kind.step(s, i, offset, final);
    }
  }

  /**
   * The streaming fast path: a chunk inside a string of the body that holds nothing that could
   * end or change it is that string's text, without the reader's steps.
   */
  streamValue(chunk: string): Streamed {
    if (this.state === State.Body)
      return this.#reader?.appendToString(chunk) ? Streamed.Kept : Streamed.No;
    return this.#kind === null ? Streamed.No : this.#kind.streamValue(chunk);
  }

  #newBuilder(): CallBuilder {
    const form = this.form;
    return new CallBuilder(
      this.#rows,
      this.sink,
      this.#limits,
      form.kind === 'calls' ? 'calls' : 'arguments',
      form.format,
      form.bareObject === true,
      form.nameKeyed === true,
      form.argumentsKey,
      form.nameSuffix,
      form.envelope,
      form.envelopeEmpty,
    );
  }

  newReader(closes: readonly string[], closeInStrings: boolean): void {
    const form = this.form;
    this.#reader = new ModelJsonReader(
      {
        syntax: form.syntax,
        top: form.sequence ? 'sequence' : 'value',
        closes,
        closeInStrings,
        maxDepth: this.#limits.maxDepth,
        quoteToken: form.quoteToken,
      },
      this.builder,
      this.#stringEnds,
    );
  }

  #start(i: number, offset: number): number {
    const form = this.form;
    this.blockStart = offset + i;
    const next = form.openIsBody ? i : i + form.open.length;
    if (form.missingWrapper !== undefined)
      this.builder.wrappedWrongly(form.missingWrapper, this.blockStart);
    return this.#kind === null ? this.#begin(next) : this.#kind.begin(i, next);
  }

  /** The opening of calls or of a named call was read (`next` is after it). */
  #begin(next: number): number {
    const form = this.form;
    if (form.kind === 'named') {
      this.state = State.Header;
      return next;
    }
    if (form.fence !== undefined) {
      // The fence's end closes the calls too, outside strings only (code may hold it).
      this.newReader([form.fence.close, form.close], false);
      this.state = State.FenceOpen;
      return next;
    }
    if (form.close === '') this.newReader(form.cutBy ?? [], form.cutBy !== undefined);
    else this.newReader([form.close], form.closeIsToken === true);
    this.state = State.Body;
    return next;
  }

  // --- A fenced body: its fence line, then its calls. ---

  #fenceOpen(s: string, i: number, offset: number, final: boolean): number {
    const j = skipBlanks(s, i, s.length);
    if (j >= s.length) {
      if (!final) return wait(j);
      // No fence line before the end: the body's value is cut (row 'body-value-cut').
      this.state = State.Body;
      return j;
    }
    const fence = this.form.fence as NonNullable<BodyForm['fence']>;
    // Within what chunks would hold (MAX_FENCE, then the character that decides).
    if (execWithin(fence.open, s, j, MAX_FENCE + 1) !== null) {
      this.fenced = true;
      this.state = State.Body;
      return fence.open.lastIndex;
    }
    const begun = this.tests.fenceBegun as NonNullable<BodyTests['fenceBegun']>;
    if (!final && s.length - j <= MAX_FENCE && begun(s, j)) return wait(j);
    this.#recover('missing-fence', offset + j, undefined, {
      open: this.form.open,
      fence: fence.label,
    });
    this.state = State.Body;
    return j;
  }

  // --- Named bodies: the header, then the arguments. ---

  #readHeader(s: string, i: number, final: boolean): number {
    const header = this.form.header as NonNullable<BodyForm['header']>;
    // Within what chunks would hold (MAX_HEADER, then the character that decides).
    const match = execWithin(header, s, i, MAX_HEADER + 1);
    if (match === null) {
      const begun = this.tests.headerBegun as NonNullable<BodyTests['headerBegun']>;
      const partial = s.length - i <= MAX_HEADER && begun(s, i);
      if (!final && partial) return wait(i);
      if (partial) this.fail(HEADER_CUT.code, this.unclosed(), this.blockStart);
      else
        this.fail(
          'missing-tool-name',
          `write the tool's name after ${this.form.open}`,
          this.blockStart,
        );
      return wait(i);
    }
    this.builder.startNamed(match[1]);
    const close = this.form.close;
    this.newReader(close === '' ? [] : [close], this.form.closeIsToken === true);
    this.state = State.Body;
    return header.lastIndex;
  }

  // --- The body's value. ---

  #readBody(s: string, i: number, offset: number, final: boolean): number {
    const reader = this.#reader as ModelJsonReader;
    const next = reader.read(s, i, offset, final);
    if (reader.failure !== null) return this.#bodyFailed(next);
    if (reader.closeAt !== -1) {
      // The close came before the value ended: brackets left open are closed (a repair).
      if (!reader.finish(reader.closeAt)) return this.#bodyFailed(next);
      this.state = State.AfterBody;
      return reader.closeAt - offset;
    }
    if (reader.done) {
      this.state = State.AfterBody;
      return next;
    }
    if (!final) return wait(next);
    // A sequence read to its end, only its close missing: decided as after a closed body.
    if (reader.betweenValues) {
      this.state = State.AfterBody;
      return this.#afterBody(s, next, offset, final);
    }
    // A list of calls (or its envelope) complete but for its closers: closed where the input
    // ended, told (row 'body-list-open'); a comma after its last value promised another, so it
    // is cut.
    const closers = this.#closersAfterCall(reader);
    if (closers !== null) {
      reader.closeOpen(offset + s.length);
      this.#closersLeft = closers;
      this.state = State.AfterBody;
      return this.#afterBody(s, next, offset, final);
    }
    // The input ended inside the value: it is cut short, never repaired into a call.
    this.fail(VALUE_CUT.code, this.unclosed(), this.blockStart);
    return wait(s.length);
  }

  /** The closers still open around a complete call: its list's, its envelope's, or null. */
  #closersAfterCall(reader: ModelJsonReader): string | null {
    if (this.form.kind !== 'calls') return null;
    if (this.form.envelope === undefined) return reader.closersAfterValue(LIST);
    return reader.closersAfterValue(ENVELOPED_LIST) ?? reader.closersAfterValue(ENVELOPE);
  }

  /** Why a block the input ended inside is cut short. */
  unclosed(): string {
    if (this.#kind !== null) return this.#kind.unclosed();
    const form = this.form;
    if (form.close === '')
      return `the ${form.open} block's JSON was not closed before the input ended`;
    return `the ${form.open} block was not closed with ${form.close} before the input ended`;
  }

  #bodyFailed(next: number): number {
    const reader = this.#reader as ModelJsonReader;
    const failure = reader.failure ?? {
      message: 'the body is no call',
      at: this.blockStart,
      cut: false,
    };
    // A value the input ended inside is cut short (not invalid): row 'body-value-cut'.
    if (failure.cut) this.fail(VALUE_CUT.code, this.unclosed(), this.blockStart);
    else
      this.fail(
        reader.depthExceeded ? 'max-depth-exceeded' : 'invalid-json',
        `the call is not valid JSON: ${failure.message}`,
        failure.at,
      );
    return wait(next);
  }

  /** After the body's value: the close, or (no close) the block ends with the value. */
  #afterBody(s: string, i: number, offset: number, final: boolean): number {
    const builder = this.builder;
    if (builder.failure !== null) {
      this.fail(builder.failure.code, builder.failure.message, builder.failure.at);
      return wait(i);
    }
    return this.#kind === null
      ? this.#afterCalls(s, i, offset, final)
      : this.#kind.afterValue(s, i, offset, final);
  }

  /** After a call's value, read without failure: the block's close, or its end with the value. */
  #afterCalls(s: string, i: number, offset: number, final: boolean): number {
    const form = this.form;
    if (form.close === '') {
      if (this.#closersLeft !== '') return this.endedUnclosed(s, offset, '');
      const joined = this.#joinedCall(s, i, final);
      if (joined === null) return wait(i);
      if (joined === -1) return this.end(offset + i, i);
      this.newReader(form.cutBy ?? [], form.cutBy !== undefined);
      this.state = State.Body;
      return joined;
    }
    let j = skipBlanks(s, i, s.length);
    // A fenced body: the fence's end, then the close (a fence left open is said).
    let fenceLeftOpen = false;
    const fence = form.fence;
    if (this.fenced && fence !== undefined) {
      const fenceEnd = startsWithAt(s, j, fence.close);
      if (fenceEnd === null && !final) return wait(i);
      if (fenceEnd === true) j = skipBlanks(s, j + fence.close.length, s.length);
      else fenceLeftOpen = true;
    }
    const close = startsWithAt(s, j, form.close);
    if (close === true) {
      if (fenceLeftOpen && fence !== undefined && this.builder.started.length > 0) {
        this.builder.flush();
        this.#recover('unclosed-fence', offset + j, this.builder.currentId, {
          fence: fence.label,
          close: form.close,
        });
      }
      return this.end(offset + j + form.close.length, j + form.close.length);
    }
    if (j >= s.length || close === null) {
      if (!final) return wait(i);
      return this.endedUnclosed(s, offset, form.close);
    }
    // More after the value than its close: the body is no call as written.
    this.fail('invalid-json', `the call's JSON is followed by more than ${form.close}`, offset + j);
    return wait(j);
  }

  /**
   * After a call object of a body with no close: where the next call object begins when the
   * form's `separator` joins one to it on the same line (`{…}; {…}`), -1 when the block ends
   * with the value, or null while more input must decide. Blanks on either side are looked
   * through up to MAX_LEADING_BLANKS, so a flood of them decides instead of holding the call.
   */
  #joinedCall(s: string, i: number, final: boolean): number | null {
    const separator = this.form.separator;
    const value = (this.#reader as ModelJsonReader).result;
    if (separator === undefined || value === null || typeof value !== 'object') return -1;
    if (Array.isArray(value)) return -1;
    const spaces = (from: number) => {
      const limit = Math.min(s.length, from + MAX_LEADING_BLANKS);
      while (from < limit && (s[from] === ' ' || s[from] === '\t')) from++;
      return from;
    };
    const j = spaces(i);
    if (j >= s.length) return final ? -1 : null;
    const joined = startsWithAt(s, j, separator);
    if (joined === null) return final ? -1 : null;
    if (joined === false) return -1;
    const k = spaces(j + separator.length);
    if (k >= s.length) return final ? -1 : null;
    return s[k] === '{' ? k : -1;
  }

  /** The block ends at absolute `end` (`next` in the text): its last call ends with it. */
  end(end: number, next: number): number {
    // A block of no call (`[]`, nothing between the markers) is no call: its text comes back.
    if (this.builder.started.length === 0) {
      this.fail('missing-tool-name', `the ${this.form.open} block holds no call`, this.blockStart);
      return wait(next);
    }
    this.builder.endBlock(end);
    this.state = State.Done;
    return next;
  }

  /**
   * The input ended where only the call's or the block's close was missing (a server strips
   * its stop token, a user's stop sequence ends the reply): the complete call is a call, told
   * (row 'body-call-complete'; row 'body-list-open' when its list's `]` was missing too).
   */
  endedUnclosed(s: string, offset: number, close: string): number {
    this.builder.flush();
    const row = this.#closersLeft === '' ? CALL_COMPLETE : LIST_OPEN;
    this.#recover(row.recovery, offset + s.length, this.builder.currentId, {
      close: this.#closersLeft + close,
    });
    return this.end(offset + s.length, s.length);
  }

  /** A recovery at absolute `at`: the warning of the declaration's row for `kind`. */
  #recover<K extends BodyRecoveryKind>(
    kind: K,
    at: number,
    id: string | undefined,
    values: RecoveryValues<K>,
  ): void {
    const row = this.#rows[kind];
    this.sink.warn(row.code, recoveryMessage(row, values), at, id);
  }

  // --- Failure. ---

  fail(code: ParseErrorCode, message: string, offset: number): void {
    const id = this.builder.currentId;
    const failed: BlockFailure = { code, message, format: this.form.format, offset };
    if (id !== undefined) {
      failed.callId = id;
      failed.partial = {
        serverName: 'local',
        toolName: this.builder.currentName,
        arguments: Object.create(null),
      };
    }
    this.#failed = failed;
    this.state = State.Failed;
  }
}
