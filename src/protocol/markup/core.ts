import {
  type BlockFailure,
  type BlockLimits,
  type BlockSink,
  BlockStatus,
  type BlockStream,
  Streamed,
  waitedAt,
} from '../block.js';
import { Char, isHighSurrogate } from '../chars.js';
import { END_OF_INPUT } from '../end-of-input.js';
import { LITERAL, NEED_MORE, readEntity } from '../entities.js';
import type { ArgumentPath, CallFormat, ParseErrorCode, ToolArguments } from '../events.js';
import { PartialToken } from '../partial-token.js';
import {
  type Recoveries,
  type Recovery,
  type RecoveryValues,
  recoveryMessage,
  requireRows,
} from '../recoveries.js';
import { ArgumentsTree, FrameKind } from './arguments-tree.js';
import { stepBetween, stepTrailer } from './between-calls.js';
import {
  type FormOpenings,
  type MarkupForm,
  type MarkupRecoveryKind,
  type OpeningTag,
  openingsOf,
} from './form.js';
import {
  endsAtLineStart,
  type MarkupShape,
  type OpenCall,
  State,
  skipCallBlanks,
  TEXT,
  wait,
} from './shape.js';
import { failUnreadable, stepDrain, UnreadableCall, unreadableAt } from './unreadable.js';
import type { StreamedValue } from './value-text.js';

const BETWEEN_CALLS = END_OF_INPUT['markup-between-calls'];
const CALL_COMPLETE = END_OF_INPUT['markup-call-complete'];
const CDATA = END_OF_INPUT['markup-cdata'];
const CUT = END_OF_INPUT['markup-cut'];

/**
 * Reads one block of a markup dialect (a `MarkupForm`) as it streams, from its opening to its
 * end, over the parser's buffer: `run` consumes what it can and returns where it stopped, and
 * what is left it reads again with more input, so nothing depends on how the text was cut.
 * What all forms share is here: the block, its calls, values' text, elements closed with a
 * warning, the input's end. How a call's children are written is its `MarkupShape`'s
 * (markup/xml-elements.ts, markup/literal-tags.ts), which reads and writes the members
 * without `#`.
 *
 * The sink hears, in the order of the text: a call's start at its opening, its name as soon as
 * it is read, each string value's decoded text while it is written, warnings where a mistake
 * is decided, the call at its end. Decided text of a value goes out before any other event,
 * so an event falls at the same place of the sequence whatever the chunking.
 *
 * A closing tag is decided by what follows it (blanks and newlines allowed, up to 256): a
 * value's close by an opening or a close of what encloses it; a call's close inside a value by
 * the end of its line or the next call or block close; a block's close inside a value by the
 * end of the input or a new block. Otherwise the tag is the value's text, so a value may hold
 * its own format's closing tags. Mistakes are read with a warning.
 */
export class MarkupCore implements BlockStream {
  readonly sink: BlockSink;
  readonly limits: BlockLimits;
  readonly form: MarkupForm;
  /** The readers of the form's openings (built once a form). */
  readonly openings: FormOpenings;
  readonly shape: MarkupShape;
  /** The declaration's recoveries this form's reading may make, checked when it is built. */
  readonly rows: Recoveries<MarkupRecoveryKind>;
  readonly #entities: boolean;
  state = State.Start;
  /** The text of the current run, its absolute offset, and whether the input ended. */
  s = '';
  offset = 0;
  final = false;
  blockStart = 0;
  /** How many calls the block opened. */
  calls = 0;
  call: OpenCall | null = null;
  format: CallFormat;
  /** A call whose close was read: it ends when the next call opens or the block closes. */
  #closed: OpenCall | null = null;
  #closedEnd = 0;
  args: ToolArguments | null = null;
  readonly tree: ArgumentsTree;
  /** The tree holds this call's arguments (it is started on their first element). */
  treeOpen = false;
  /** What made the open call unreadable, if anything did (markup/unreadable.ts). */
  readonly unreadableCall = new UnreadableCall();
  /** Only blanks since the last newline (or the value's start): a reopening here counts. */
  lineStart = true;
  /** The open value's text as its form reads it (literal forms), and where it began. */
  value: StreamedValue | null = null;
  valueAt = 0;
  /** Chunks of the innermost element's text were streamed and not kept: `takeOwed` brings them. */
  #owing = false;
  /** The open call was written escaped (`OpeningTag.escaped`): its values are unescaped. */
  escaped = false;
  failed: BlockFailure | null = null;
  /** The token the last run waits on, where only more of it decides (the shape sets it). */
  readonly pending = new PartialToken();
  readonly #decoded = { text: '' };
  /** Decoded value text not yet told, merged per path until another event goes out. */
  #deltaPath: ArgumentPath | null = null;
  #deltaText = '';

  constructor(
    form: MarkupForm,
    sink: BlockSink,
    limits: BlockLimits,
    Shape: new (core: MarkupCore) => MarkupShape,
  ) {
    this.form = form;
    this.openings = openingsOf(form);
    this.format = form.format;
    this.sink = sink;
    this.limits = limits;
    this.tree = new ArgumentsTree((path, text) => this.#onDelta(path, text));
    this.shape = new Shape(this);
    this.rows = requireRows(
      form.recoveries,
      this.shape.kinds,
      form.format,
    ) as Recoveries<MarkupRecoveryKind>;
    this.#entities = this.shape.entities;
  }

  /** Ready for the next block of the same form. */
  reset(): void {
    this.state = State.Start;
    this.format = this.form.format;
    this.calls = 0;
    this.call = null;
    this.#closed = null;
    this.failed = null;
    this.#owing = false;
    this.unreadableCall.reset();
    this.#clearCall();
  }

  get status(): BlockStatus {
    if (this.state === State.Done) return BlockStatus.Done;
    return this.state === State.Failed ? BlockStatus.Failed : BlockStatus.Open;
  }

  stop(code: ParseErrorCode, message: string, offset: number): BlockFailure {
    if (this.failed === null) this.fail(code, message, offset);
    return this.failed as BlockFailure;
  }

  run(s: string, from: number, offset: number, final: boolean): number {
    this.pending.clear();
    this.s = s;
    this.offset = offset;
    this.final = final;
    let i = from;
    for (;;) {
      const next = this.#step(i);
      if (next < 0) {
        i = waitedAt(next);
        break;
      }
      i = next;
      if (this.state === State.Done || this.state === State.Failed) break;
    }
    this.#flushDelta();
    this.s = '';
    return i;
  }

  #step(i: number): number {
    switch (this.state) {
      case State.Start:
        return this.#stepStart(i);
      case State.Between:
        return stepBetween(this, i);
      case State.InCall:
        return this.#stepInCall(i);
      case State.Value:
        return this.#stepValue(i);
      case State.Trailer:
        return stepTrailer(this, i);
      case State.Drain:
        return stepDrain(this, i);
      case State.Done:
      case State.Failed:
        return wait(i);
      default:
        return this.shape.step(i);
    }
  }

  /**
   * The streaming fast path: a chunk that lies wholly inside a string value (or CDATA) and
   * holds nothing that could end it is one delta, without the state machine.
   */
  streamValue(chunk: string): Streamed {
    if (isHighSurrogate(chunk.charCodeAt(chunk.length - 1))) return Streamed.No;
    if (this.state === State.Cdata) {
      // A `]]>` can only span chunks through a trailing `]`, which the full path holds back.
      if (chunk.charCodeAt(chunk.length - 1) === Char.CloseBracket || chunk.indexOf(']]>') !== -1)
        return Streamed.No;
    } else if (this.state !== State.Value || !this.#plainInValue(chunk)) return Streamed.No;
    // A string's text as it is (XML's values, CDATA): the common case, kept short so that V8
    // inlines it into the scanner's fast path with what it calls.
    if (this.value !== null || this.tree.top.kind !== FrameKind.String)
      return this.#streamReadValue(chunk);
    return this.#owe(chunk);
  }

  /** `streamValue` for a value read as it streams (`StreamedValue`). */
  #streamReadValue(chunk: string): Streamed {
    const value = this.value;
    const asText = this.tree.top.kind === FrameKind.String;
    if (value !== null && !(asText && value.takesAsIs(chunk))) {
      // Owed text goes into the element before any that a value reading decides.
      if (this.#owing) return Streamed.No;
      this.writeValue(chunk);
      this.#flushDelta();
      return Streamed.Kept;
    }
    if (!asText) return Streamed.No;
    if (value !== null) this.lineStart = endsAtLineStart(chunk, 0, chunk.length, this.lineStart);
    return this.#owe(chunk);
  }

  /**
   * Whether `chunk` can hold nothing that ends or changes a value: no entity (where `&` is
   * one), no `<` that the shape says may end it. The shape is asked only at a `<`: this path
   * runs per chunk, and a call per chunk to a shape of either kind cost the 4-character
   * stream 5% when both kinds ran in the same program.
   */
  #plainInValue(chunk: string): boolean {
    const entities = this.#entities;
    if (chunk.length <= SHORT_CHUNK) {
      // A token or a few: one pass by hand costs less than calling `indexOf` twice.
      for (let k = 0; k < chunk.length; k++) {
        const c = chunk.charCodeAt(k);
        if (c === Char.Lt ? this.shape.mayEndValue(chunk, k) : c === Char.Amp && entities)
          return false;
      }
      return true;
    }
    if (entities && chunk.indexOf('&') !== -1) return false;
    for (let k = chunk.indexOf('<'); k !== -1; k = chunk.indexOf('<', k + 1))
      if (this.shape.mayEndValue(chunk, k)) return false;
    return true;
  }

  /**
   * The chunk is the delta (nothing is pending here: every run flushes its own); the element
   * gets the run's text back in one piece before the next run.
   */
  #owe(chunk: string): Streamed {
    this.sink.delta((this.call as OpenCall).id, this.tree.topPath(), chunk);
    this.#owing = true;
    return Streamed.Owed;
  }

  continues(chunk: string): boolean {
    return this.pending.continuedBy(chunk);
  }

  takeOwed(text: string): void {
    this.tree.appendString(text);
    this.#owing = false;
  }

  // --- Events: decided value text always goes out before anything else. ---

  #onDelta(path: ArgumentPath, text: string): void {
    if (path !== this.#deltaPath) {
      this.#flushDelta();
      this.#deltaPath = path;
    }
    this.#deltaText += text;
  }

  #flushDelta(): void {
    if (this.#deltaPath !== null && this.#deltaText !== '' && this.call !== null)
      this.sink.delta(this.call.id, this.#deltaPath, this.#deltaText);
    this.#deltaPath = null;
    this.#deltaText = '';
  }

  /** A recovery at absolute `offset`: the warning of the declaration's row for `kind`. */
  recover<K extends MarkupRecoveryKind>(kind: K, offset: number, values?: RecoveryValues<K>): void {
    this.warnAs(this.rows[kind], offset, values);
  }

  /** The warning of a row the declaration handed over (an opening's, a wrapper's). */
  warnAs(row: Recovery, offset: number, values?: Readonly<Record<string, string>>): void {
    this.#flushDelta();
    this.sink.warn(row.code, recoveryMessage(row, values), offset, this.call?.id);
  }

  /** The block fails here; the failure (`failed`) says why. */
  fail(code: ParseErrorCode, message: string, offset: number): BlockFailure {
    this.#flushDelta();
    this.endClosed();
    const failed: BlockFailure = { code, message, format: this.format, offset };
    const call = this.call;
    if (call !== null) {
      if (this.value !== null) this.closeValueText();
      failed.callId = call.id;
      failed.partial = {
        serverName: call.server,
        toolName: call.name === '' ? undefined : call.name,
        arguments: this.args ?? (this.treeOpen ? this.tree.snapshot() : Object.create(null)),
      };
    }
    this.failed = failed;
    this.state = State.Failed;
    return failed;
  }

  // --- Calls. ---

  #clearCall(): void {
    this.args = null;
    this.escaped = false;
    this.treeOpen = false;
    this.unreadableCall.clearCall();
    this.value = null;
    this.#deltaPath = null;
    this.#deltaText = '';
    this.shape.clearCall();
  }

  openCall(opening: OpeningTag, lt: number): void {
    this.endClosed();
    const name = opening.name.trim();
    // A name written as a self-closing tag's (`<name/>`), or an opening its form reads as
    // closing itself: a call without arguments and without a closing tag.
    const slashInName = name.endsWith('/');
    const selfClosing = opening.selfClosing === true || slashInName;
    const toolName = slashInName ? name.slice(0, -1).trim() : name;
    this.#clearCall();
    this.calls++;
    const fields = this.form.fields !== undefined;
    const call: OpenCall = {
      id: this.sink.start(),
      name: toolName,
      server: fields ? undefined : 'local',
    };
    this.call = call;
    if (opening.escaped === true) this.escaped = true;
    if (opening.stray !== undefined) this.warnAs(opening.stray, this.offset + lt);
    if (toolName !== '') this.sink.name(call.id, toolName);
    this.lineStart = false;
    this.state = State.InCall;
    if (this.form.missingWrapper !== undefined)
      this.warnAs(this.form.missingWrapper, this.blockStart);
    if (selfClosing) this.closeCall(this.offset + lt + opening.length);
  }

  /** The open call's close was read; its text ends at absolute `end`. */
  closeCall(end: number): void {
    const call = this.call as OpenCall;
    if (call.name === '') {
      this.fail('missing-tool-name', this.form.call.unnamed, this.#closedEndOf(end));
      return;
    }
    if (this.unreadableCall.swallowedAt !== -1) {
      failUnreadable(this, this.unreadableCall.swallowedAt);
      return;
    }
    this.#flushDelta();
    this.args ??= this.treeOpen ? this.tree.finish() : Object.create(null);
    this.#closed = call;
    this.#closedEnd = end;
    this.call = null;
    if (this.form.wrapper !== null) this.state = State.Between;
    else if (this.form.orphanClose !== undefined) this.state = State.Trailer;
    else {
      this.endClosed();
      this.state = State.Done;
    }
  }

  /** Where a call without a name is pointed at: its JSON's close, or its block's start. */
  #closedEndOf(end: number): number {
    return this.format === 'json' ? end - this.form.call.close.length : this.blockStart;
  }

  endClosed(end: number = this.#closedEnd): void {
    const closed = this.#closed;
    if (closed === null) return;
    this.#closed = null;
    this.sink.end(
      closed.id,
      closed.name,
      this.args as ToolArguments,
      this.format,
      end,
      closed.server ?? 'local',
    );
  }

  startTree(): ArgumentsTree {
    if (!this.treeOpen) {
      const name = this.call?.name ?? '';
      this.tree.reset(
        name === '' ? undefined : this.limits.schemas?.[name],
        this.form.repeated === 'warn',
      );
      this.treeOpen = true;
    }
    return this.tree;
  }

  // --- Steps between calls and between a call's children. ---

  #stepStart(i: number): number {
    this.blockStart = this.offset + i;
    const wrapper = this.form.wrapper;
    if (wrapper !== null) {
      this.state = State.Between;
      return i + wrapper.open.length;
    }
    const opening = this.openings.call(this.s, i, this.final);
    if (opening === 'partial') return wait(i);
    if (opening === null) {
      this.fail('missing-tool-name', this.form.call.unnamed, this.offset + i);
      return i;
    }
    this.openCall(opening, i);
    return i + opening.length;
  }

  /** Whether the call being read lacks only its close: named, no value or container open. */
  #completeButOpen(): boolean {
    const call = this.call;
    if (this.state !== State.InCall || call === null || call.name === '') return false;
    return this.shape.argumentsClosed();
  }

  /** Between a call's children: what the shape reads there (fields, arguments, the close). */
  #stepInCall(i: number): number {
    const s = this.s;
    const n = s.length;
    const k = skipCallBlanks(s, i, this.escaped);
    if (k === -1) return this.final ? unreadableAt(this, n - 1) : wait(n - 1);
    if (k > i) this.lineStart = this.lineStart || endsAtLineStart(s, i, k, false);
    if (k >= n) return this.final ? this.endOfInput(n) : wait(k);
    return this.shape.inCall(k);
  }

  // --- A value's text, and elements closed. ---

  /** Writes value text: decided text goes to the tree (and out as a delta) at once. */
  writeValue(text: string): void {
    if (text === '') return;
    const value = this.value;
    if (value === null) {
      this.tree.text(text);
      return;
    }
    value.write(text);
    this.lineStart = endsAtLineStart(text, 0, text.length, this.lineStart);
    const decided = value.text();
    if (decided !== '') this.tree.text(decided);
  }

  /** A literal form's value ends: what its reading held back, then the element closes. */
  closeValueText(): void {
    const rest = (this.value as StreamedValue).close();
    if (rest !== '') this.tree.text(rest);
    this.unreadableCall.valueEnded(false);
    // An empty value is still a string: the tree decided it at open.
    this.tree.close();
    this.value = null;
    this.lineStart = false;
  }

  /**
   * Closes open elements down to and including the one at `depth` (0: all of them), each one
   * inside it with an `unclosed-element` warning: it ends where `ending` (at `at`) stands.
   */
  closeTo(depth: number, at: number, ending: string): void {
    const tree = this.tree;
    // The innermost value ends here: unclosed when it is deeper than `depth`.
    this.unreadableCall.valueEnded(tree.depth > depth);
    while (tree.depth > depth) {
      if (this.value !== null) {
        this.recover('unclosed-value', this.valueAt, { ending });
        this.closeValueText();
        continue;
      }
      this.recover('unclosed-element', at, { name: tree.top.name });
      tree.close();
    }
    if (depth > 0) {
      if (this.value !== null) this.closeValueText();
      else tree.close();
    }
  }

  /** In a string value: runs of text, references (XML), and what the shape reads at a `<`. */
  #stepValue(i: number): number {
    const s = this.s;
    const n = s.length;
    const entities = this.#entities;
    let from = i;
    let at = i;
    for (;;) {
      let j = at;
      if (entities) {
        while (j < n) {
          const c = s.charCodeAt(j);
          if (c === Char.Lt || c === Char.Amp) break;
          j++;
        }
      } else {
        j = s.indexOf('<', at);
        if (j === -1) j = n;
      }
      if (j >= n) {
        if (this.final) {
          this.writeValue(s.slice(from, n));
          return this.endOfInput(n);
        }
        // A high surrogate at the end waits for its pair: no delta splits a code point.
        const end = n > from && isHighSurrogate(s.charCodeAt(n - 1)) ? n - 1 : n;
        this.writeValue(s.slice(from, end));
        return wait(end);
      }
      if (s.charCodeAt(j) === Char.Amp) {
        const length = readEntity(s, j, this.final, this.#decoded);
        if (length === NEED_MORE) {
          this.writeValue(s.slice(from, j));
          return wait(j);
        }
        if (length !== LITERAL) {
          this.writeValue(s.slice(from, j));
          this.writeValue(this.#decoded.text);
          from = j + length;
        }
        at = length === LITERAL ? j + 1 : j + length;
        continue;
      }
      const next = this.shape.valueEnd(j, from);
      if (next !== TEXT) return next;
      at = j + 1;
    }
  }

  /** The value's text before `lt` is decided; the `<` at `lt` waits for more input. */
  valueWait(from: number, lt: number): number {
    this.writeValue(this.s.slice(from, lt));
    return wait(lt);
  }

  /**
   * Nothing more in the text: wait for input, or decide what the end of the input leaves, by
   * its row of the end-of-input table (every step of a markup block ends here at the end).
   */
  endOfInput(at: number, parameterCut = false): number {
    if (!this.final) return wait(at);
    const end = this.offset + at;
    if (this.state === State.Between && this.calls > 0 && this.form.wrapper !== null) {
      this.recover(BETWEEN_CALLS.recovery, end, { close: this.form.wrapper.close });
      this.endClosed(end);
      this.state = State.Done;
      return at;
    }
    // A parameter's opening cut by the end is an argument the model began: not a complete call.
    if (!parameterCut && this.#completeButOpen()) {
      // A server stripped its stop token, or a stop sequence ended the reply: the call, with
      // every value closed (and the arguments' container where the form has one), is a call.
      if (this.unreadableCall.swallowedAt === -1)
        this.recover(CALL_COMPLETE.recovery, end, { close: this.form.call.close });
      this.closeCall(end);
      // Unless it failed, or drains what is left (`stepDrain` decides that at once).
      if (this.state !== State.Failed && this.state !== State.Drain) {
        this.endClosed(end);
        this.state = State.Done;
      }
      return at;
    }
    const row = this.state === State.Cdata ? CDATA : CUT;
    const { wrapper, call } = this.form;
    const message = row.message(wrapper?.open ?? call.start, wrapper?.close ?? call.close);
    this.fail(row.code, message, this.blockStart);
    return at;
  }
}

/** Chunks up to this long are searched by hand in the streaming fast path. */
const SHORT_CHUNK = 16;
