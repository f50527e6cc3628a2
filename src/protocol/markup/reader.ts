import {
  type BlockFailure,
  type BlockLimits,
  type BlockSink,
  BlockStatus,
  type BlockStream,
  Streamed,
} from '../block.js';
import { CDATA_OPEN, unwrapCdata } from '../cdata.js';
import { Char, isHighSurrogate, isWhitespace } from '../chars.js';
import { decodeEntities, LITERAL, NEED_MORE, readEntity } from '../entities.js';
import type {
  ArgumentPath,
  CallFormat,
  ParseErrorCode,
  ParseWarningCode,
  ToolArguments,
} from '../events.js';
import { readJsonCall } from '../json-call.js';
import { JsonFormBody, JsonFormEnd } from '../json-form.js';
import { createPieces, joinPieces, type Pieces, pushPiece } from '../pieces.js';
import { isTagFor, readTag, startsWithAt, type Tag, TagKind } from '../tag.js';
import { ArgumentsTree, FrameKind, Repeat } from './arguments-tree.js';
import {
  afterBlanks,
  confirmsBlockCloseInValue,
  confirmsCallClose,
  confirmsValueClose,
} from './confirm.js';
import type { MarkupForm, OpeningTag } from './form.js';
import { StreamedValue } from './value-text.js';

enum State {
  Start = 0,
  /** Inside the wrapper, between calls. */
  Between = 1,
  /** Inside a call, between its children. */
  InCall = 2,
  /** In a field that names the call (`<tool_name>`). */
  Field = 3,
  /** In the arguments' container or an element that holds elements (or may). */
  Children = 4,
  /** In a value's text. */
  Value = 5,
  Cdata = 6,
  /** The deprecated JSON form's object. */
  Json = 7,
  JsonTail = 8,
  /** After a call written without its wrapper: the wrapper's orphan close may follow. */
  Trailer = 9,
  Done = 10,
  Failed = 11,
}

/** `run`'s steps return where they got to, or `wait(i)` (< 0) when `i` needs more input. */
const wait = (i: number) => -i - 1;
/** What a value's `<` step answers when the `<` is the value's own text (no `wait` is this). */
const TEXT = Number.MIN_SAFE_INTEGER;

interface OpenCall {
  id: string;
  name: string;
  server: string | undefined;
}

/**
 * Reads one block of a markup dialect (a `MarkupForm`) as it streams, from its opening to its
 * end, over the parser's buffer: `run` consumes what it can and returns where it stopped, and
 * what is left it reads again with more input, so nothing depends on how the text was cut.
 *
 * The sink hears, in the order of the text: a call's start at its opening, its name as soon as
 * it is read, each string value's decoded text while it is written, warnings where a mistake
 * is decided, the call at its end. Decided text of a value goes out before any other event,
 * so an event falls at the same place of the sequence whatever the chunking.
 *
 * A closing tag is decided by what follows it (blanks and newlines allowed, up to 256): a
 * value's close by an opening or a close of what encloses it; a call's close inside a value by
 * the end of its line (`</tool>`) or the next call or block close; a block's close inside a
 * value by the end of the input or a new block. Otherwise the tag is the value's text, so a
 * value may hold its own format's closing tags. Mistakes are read with a warning.
 */
export class MarkupReader implements BlockStream {
  readonly #sink: BlockSink;
  readonly #limits: BlockLimits;
  #form: MarkupForm;
  #state = State.Start;
  /** The text of the current run, its absolute offset, and whether the input ended. */
  #s = '';
  #offset = 0;
  #final = false;
  #blockStart = 0;
  #calls = 0;
  #call: OpenCall | null = null;
  #format: CallFormat;
  /** A call whose close was read: it ends when the next call opens or the block closes. */
  #closed: OpenCall | null = null;
  #closedEnd = 0;
  #args: ToolArguments | null = null;
  readonly #tree: ArgumentsTree;
  /** The tree holds this call's arguments (it is started on their first element). */
  #treeOpen = false;
  /** `<arguments>` was opened explicitly (not implied by an argument written outside it). */
  #containerOpen = false;
  #sawChild = false;
  #strayWarned = false;
  #outsideWarned = false;
  /** Arguments were written outside `<arguments>`, which they imply: its close may follow. */
  #implied = false;
  /** Only blanks since the last newline (or the value's start): a reopening here counts. */
  #lineStart = true;
  /** The open value's text as its form reads it (literal forms), and where it began. */
  #value: StreamedValue | null = null;
  /** Chunks of the innermost element's text were streamed and not kept: `takeOwed` brings them. */
  #owing = false;
  /** The open call was written escaped (`OpeningTag.escaped`): its values are unescaped. */
  #escaped = false;
  #valueAt = 0;
  #field = '';
  #fieldAt = 0;
  #fieldText: Pieces = createPieces();
  readonly #json = new JsonFormBody();
  #failed: BlockFailure | null = null;
  readonly #tag: Tag = { kind: TagKind.None, name: '', length: 0 };
  readonly #decoded = { text: '' };
  /** Decoded value text not yet told, merged per path until another event goes out. */
  #deltaPath: ArgumentPath | null = null;
  #deltaText = '';

  constructor(form: MarkupForm, sink: BlockSink, limits: BlockLimits) {
    this.#form = form;
    this.#format = form.format;
    this.#sink = sink;
    this.#limits = limits;
    this.#tree = new ArgumentsTree((path, text) => this.#onDelta(path, text));
  }

  /** Ready for the next block of the same form. */
  reset(): void {
    this.#state = State.Start;
    this.#format = this.#form.format;
    this.#calls = 0;
    this.#call = null;
    this.#closed = null;
    this.#failed = null;
    this.#owing = false;
    this.#clearCall();
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
    this.#s = s;
    this.#offset = offset;
    this.#final = final;
    let i = from;
    for (;;) {
      const next = this.#step(i);
      if (next < 0) {
        i = -next - 1;
        break;
      }
      i = next;
      if (this.#state === State.Done || this.#state === State.Failed) break;
    }
    this.#flushDelta();
    this.#s = '';
    return i;
  }

  #step(i: number): number {
    switch (this.#state) {
      case State.Start:
        return this.#stepStart(i);
      case State.Between:
        return this.#stepBetween(i);
      case State.InCall:
        return this.#stepInCall(i);
      case State.Field:
        return this.#stepField(i);
      case State.Children:
        return this.#stepChildren(i);
      case State.Value:
        return this.#stepValue(i);
      case State.Cdata:
        return this.#stepCdata(i);
      case State.Json:
        return this.#stepJson(i);
      case State.JsonTail:
        return this.#stepJsonTail(i);
      case State.Trailer:
        return this.#stepTrailer(i);
      default:
        return wait(i);
    }
  }

  /**
   * The streaming fast path: a chunk that lies wholly inside a string value (or CDATA) and
   * holds nothing that could end it is one delta, without the state machine.
   */
  streamValue(chunk: string): Streamed {
    if (isHighSurrogate(chunk.charCodeAt(chunk.length - 1))) return Streamed.No;
    if (this.#state === State.Cdata) {
      // A `]]>` can only span chunks through a trailing `]`, which the full path holds back.
      if (chunk.charCodeAt(chunk.length - 1) === Char.CloseBracket || chunk.indexOf(']]>') !== -1)
        return Streamed.No;
    } else if (this.#state !== State.Value || !this.#plainInValue(chunk)) return Streamed.No;
    // A string's text as it is (XML's values, CDATA): the common case, kept short so that V8
    // inlines it into the scanner's fast path with what it calls.
    if (this.#value !== null || this.#tree.top.kind !== FrameKind.String)
      return this.#streamReadValue(chunk);
    this.#owe(chunk);
    return Streamed.Owed;
  }

  /** `streamValue` for a literal form's value, read as it streams (`StreamedValue`). */
  #streamReadValue(chunk: string): Streamed {
    const value = this.#value;
    const asText = this.#tree.top.kind === FrameKind.String;
    if (value !== null && !(asText && value.takesAsIs(chunk))) {
      // Owed text goes into the element before any that a value reading decides.
      if (this.#owing) return Streamed.No;
      this.#writeValue(chunk);
      this.#flushDelta();
      return Streamed.Kept;
    }
    if (!asText) return Streamed.No;
    if (value !== null) this.#lineStart = endsAtLineStart(chunk, 0, chunk.length, this.#lineStart);
    this.#owe(chunk);
    return Streamed.Owed;
  }

  /**
   * The chunk is the delta (nothing is pending here: every run flushes its own); the element
   * gets the run's text back in one piece before the next run.
   */
  #owe(chunk: string): void {
    this.#sink.delta((this.#call as OpenCall).id, this.#tree.topPath(), chunk);
    this.#owing = true;
  }

  takeOwed(text: string): void {
    this.#tree.appendString(text);
    this.#owing = false;
  }

  /** Whether `chunk` can hold nothing that ends or changes a value (no `<` that may, no entity). */
  #plainInValue(chunk: string): boolean {
    const literal = this.#form.tags === 'literal';
    if (chunk.length <= SHORT_CHUNK) {
      // A token or a few: one pass by hand costs less than calling `indexOf` twice.
      for (let k = 0; k < chunk.length; k++) {
        const c = chunk.charCodeAt(k);
        if (c === Char.Lt ? this.#mayEndValue(chunk, k) : c === Char.Amp && !literal) return false;
      }
      return true;
    }
    if (!literal && chunk.indexOf('&') !== -1) return false;
    for (let k = chunk.indexOf('<'); k !== -1; k = chunk.indexOf('<', k + 1))
      if (this.#mayEndValue(chunk, k)) return false;
    return true;
  }

  /**
   * Whether the `<` at `lt` may begin what ends or changes a value (unknown at the end of `s`):
   * any tag, CDATA or close in XML; in literal values only a `</`, the parameter's reopening
   * (`<p…`) or a new block (`<t…`), so `a < b` is text.
   */
  #mayEndValue(s: string, lt: number): boolean {
    if (this.#form.tags === 'xml') return startsMarkup(s, lt);
    if (lt + 1 >= s.length) return true;
    const c = s.charCodeAt(lt + 1);
    const { parameter, wrapper } = this.#form;
    return (
      c === Char.Slash ||
      c === (parameter.reopens?.charCodeAt(1) ?? -1) ||
      c === (wrapper?.open.charCodeAt(1) ?? -1)
    );
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
    if (this.#deltaPath !== null && this.#deltaText !== '' && this.#call !== null)
      this.#sink.delta(this.#call.id, this.#deltaPath, this.#deltaText);
    this.#deltaPath = null;
    this.#deltaText = '';
  }

  #warn(code: ParseWarningCode, message: string, offset: number): void {
    this.#flushDelta();
    this.#sink.warn(code, message, offset, this.#call?.id);
  }

  #fail(code: ParseErrorCode, message: string, offset: number): void {
    this.#flushDelta();
    this.#endClosed();
    const failed: BlockFailure = { code, message, format: this.#format, offset };
    const call = this.#call;
    if (call !== null) {
      if (this.#value !== null) this.#closeValueText();
      failed.callId = call.id;
      failed.partial = {
        serverName: call.server,
        toolName: call.name === '' ? undefined : call.name,
        arguments: this.#args ?? (this.#treeOpen ? this.#tree.snapshot() : Object.create(null)),
      };
    }
    this.#failed = failed;
    this.#state = State.Failed;
  }

  // --- Calls. ---

  #clearCall(): void {
    this.#args = null;
    this.#escaped = false;
    this.#treeOpen = false;
    this.#containerOpen = false;
    this.#sawChild = false;
    this.#strayWarned = false;
    this.#outsideWarned = false;
    this.#implied = false;
    this.#value = null;
    this.#deltaPath = null;
    this.#deltaText = '';
    this.#fieldText = createPieces();
  }

  #openCall(opening: OpeningTag, lt: number): void {
    this.#endClosed();
    const name = opening.name.trim();
    // `<function=get_time/>`: a call without arguments and without a closing tag.
    const selfClosing = name.endsWith('/');
    const toolName = selfClosing ? name.slice(0, -1).trim() : name;
    this.#clearCall();
    this.#calls++;
    const fields = this.#form.fields !== undefined;
    const call: OpenCall = {
      id: this.#sink.start(),
      name: toolName,
      server: fields ? undefined : 'local',
    };
    this.#call = call;
    if (opening.escaped === true) this.#escaped = true;
    if (opening.stray !== undefined) this.#warn('stray-text', opening.stray, this.#offset + lt);
    if (toolName !== '') this.#sink.name(call.id, toolName);
    this.#lineStart = false;
    this.#state = State.InCall;
    if (this.#form.missingWrapper !== undefined)
      this.#warn('missing-wrapper', this.#form.missingWrapper, this.#blockStart);
    if (selfClosing) this.#closeCall(this.#offset + lt + opening.length);
  }

  /** The open call's close was read; its text ends at absolute `end`. */
  #closeCall(end: number): void {
    const call = this.#call as OpenCall;
    if (call.name === '') {
      this.#fail('missing-tool-name', this.#form.call.unnamed, this.#closedEndOf(end));
      return;
    }
    this.#flushDelta();
    this.#args ??= this.#treeOpen ? this.#tree.finish() : Object.create(null);
    this.#closed = call;
    this.#closedEnd = end;
    this.#call = null;
    if (this.#form.wrapper !== null) this.#state = State.Between;
    else if (this.#form.orphanClose !== undefined) this.#state = State.Trailer;
    else {
      this.#endClosed();
      this.#state = State.Done;
    }
  }

  /** Where a call without a name is pointed at: its JSON's close, or its block's start. */
  #closedEndOf(end: number): number {
    return this.#format === 'json' ? end - this.#form.call.close.length : this.#blockStart;
  }

  #endClosed(end: number = this.#closedEnd): void {
    const closed = this.#closed;
    if (closed === null) return;
    this.#closed = null;
    this.#sink.end(
      closed.id,
      closed.name,
      this.#args as ToolArguments,
      this.#format,
      end,
      closed.server ?? 'local',
    );
  }

  #startTree(): ArgumentsTree {
    if (!this.#treeOpen) {
      const name = this.#call?.name ?? '';
      this.#tree.reset(
        name === '' ? undefined : this.#limits.schemas?.[name],
        this.#form.repeated === 'warn',
      );
      this.#treeOpen = true;
    }
    return this.#tree;
  }

  // --- Steps between calls and between a call's children. ---

  #stepStart(i: number): number {
    this.#blockStart = this.#offset + i;
    const wrapper = this.#form.wrapper;
    if (wrapper !== null) {
      this.#state = State.Between;
      return i + wrapper.open.length;
    }
    const opening = this.#form.call.read(this.#s, i, this.#final);
    if (opening === 'partial') return wait(i);
    if (opening === null) {
      this.#fail('missing-tool-name', this.#form.call.unnamed, this.#offset + i);
      return i;
    }
    this.#openCall(opening, i);
    return i + opening.length;
  }

  #stepBetween(i: number): number {
    const s = this.#s;
    const { call, wrapper } = this.#form;
    const lt = s.indexOf('<', i);
    if (lt === -1) return this.#endOfInput(s.length);
    const opening = call.read(s, lt, this.#final);
    if (opening === 'partial') return wait(lt);
    if (opening !== null) {
      this.#openCall(opening, lt);
      return lt + opening.length;
    }
    if (startsWithAt(s, lt, call.start) === true) {
      this.#fail('missing-tool-name', call.unnamed, this.#offset + lt);
      return lt;
    }
    const { open, close } = wrapper as { open: string; close: string };
    const closes = startsWithAt(s, lt, close);
    const reopens = startsWithAt(s, lt, open);
    if ((closes === null || reopens === null) && !this.#final) return wait(lt);
    // The opening written twice, before any call: the block goes on.
    if (reopens === true && this.#calls === 0) return lt + open.length;
    // The block's close, or a new block's opening: this one was left open, and ends here.
    if (closes === true || reopens === true) {
      const end = closes === true ? lt + close.length : lt;
      if (this.#calls === 0) this.#fail('missing-tool-name', this.#form.empty, this.#blockStart);
      else {
        if (reopens === true)
          this.#warn(
            'unclosed-element',
            `the block was not closed with ${close}; it ends at the next ${open}`,
            this.#offset + lt,
          );
        this.#endClosed(this.#offset + end);
        this.#state = State.Done;
      }
      return end;
    }
    return lt + 1;
  }

  /** After a call written without its wrapper: the wrapper's close, if it follows, is its own. */
  #stepTrailer(i: number): number {
    const s = this.#s;
    const orphan = this.#form.orphanClose as string;
    const j = afterBlanks(s, i);
    const closes = j === -1 ? false : startsWithAt(s, j, orphan);
    if (closes === true) {
      this.#endClosed(this.#offset + j + orphan.length);
      this.#state = State.Done;
      return j + orphan.length;
    }
    // Blanks up to the end of the input, or a partial close: more input decides.
    if (!this.#final && (closes === null || j >= s.length)) return wait(i);
    this.#endClosed();
    this.#state = State.Done;
    return i;
  }

  /** Whether the call being read lacks only its close: named, no value or container open. */
  #completeButOpen(): boolean {
    const call = this.#call;
    if (this.#state !== State.InCall || call === null || call.name === '') return false;
    return this.#form.container === undefined || (this.#treeOpen && !this.#containerOpen);
  }

  /** Between a call's children: fields, the arguments, parameters, the call's close. */
  #stepInCall(i: number): number {
    const s = this.#s;
    const n = s.length;
    let k = i;
    while (k < n && isWhitespace(s.charCodeAt(k))) k++;
    if (k > i) this.#lineStart = this.#lineStart || endsAtLineStart(s, i, k, false);
    if (k >= n) return this.#final ? this.#endOfInput(n) : wait(k);
    if (s.charCodeAt(k) !== Char.Lt) return this.#strayInCall(k);
    return this.#form.tags === 'xml' ? this.#xmlInCall(k) : this.#literalInCall(k);
  }

  /** Text where a call's children stand: the JSON form's object, or stray text. */
  #strayInCall(k: number): number {
    const s = this.#s;
    if (this.#form.jsonForm && !this.#sawChild && s.charCodeAt(k) === Char.OpenBrace) {
      this.#format = 'json';
      this.#json.begin(this.#offset + k);
      this.#state = State.Json;
      return k;
    }
    // Only the first thing in the call can open the JSON form, however the text is chunked.
    this.#sawChild = true;
    this.#stray(k);
    const lt = s.indexOf('<', k);
    const end = lt === -1 ? s.length : lt;
    this.#lineStart = endsAtLineStart(s, k, end, false);
    return end;
  }

  #stray(k: number): void {
    if (this.#strayWarned) return;
    this.#strayWarned = true;
    this.#warn(
      'stray-text',
      'text between the elements of a tool block is ignored',
      this.#offset + k,
    );
  }

  #xmlInCall(lt: number): number {
    const tag = readTag(this.#s, lt, this.#final, this.#tag);
    if (tag.kind === TagKind.NeedMore) return wait(lt);
    const form = this.#form;
    const at = this.#offset + lt;
    this.#sawChild = true;
    if (tag.kind === TagKind.None) {
      this.#stray(lt);
      return lt + 1;
    }
    if (tag.kind === TagKind.Close) {
      // The arguments' close after arguments written outside them closes what they implied.
      if (tag.name === form.container && this.#implied) {
        this.#endArguments(at);
        return lt + tag.length;
      }
      if (!isTagFor(form.call.close, tag.name, true))
        this.#warn('mismatched-close-tag', `</${tag.name}> read as ${form.call.close}`, at);
      this.#closeCall(at + tag.length);
      return lt + tag.length;
    }
    const empty = tag.kind === TagKind.Empty;
    if (form.call.reopenFails && isTagFor(form.call.start, tag.name, false)) {
      this.#failReopened();
      return lt;
    }
    const fields = form.fields;
    if (fields !== undefined && (tag.name === fields.tool || tag.name === fields.server)) {
      this.#field = tag.name;
      this.#fieldAt = at;
      if (empty) this.#finishField();
      else this.#state = State.Field;
      return lt + tag.length;
    }
    if (tag.name === form.container) {
      this.#startTree();
      if (!empty) {
        this.#containerOpen = true;
        this.#state = State.Children;
      }
      return lt + tag.length;
    }
    // One mistake, one warning: the arguments after it were written the same way.
    if (!this.#outsideWarned)
      this.#warn(
        'argument-outside-arguments',
        `<${tag.name}> stands outside <${form.container}>; read as an argument`,
        at,
      );
    this.#outsideWarned = true;
    this.#implied = true;
    this.#startTree();
    if (!this.#openElement(tag.name, empty, at)) return lt;
    return lt + tag.length;
  }

  #literalInCall(lt: number): number {
    const s = this.#s;
    const final = this.#final;
    const { call, parameter, wrapper } = this.#form;
    const opening = parameter.read(s, lt, final);
    if (opening === 'partial') return wait(lt);
    if (opening !== null) {
      if (opening.stray !== undefined) this.#warn('stray-text', opening.stray, this.#offset + lt);
      if (opening.escaped === true) this.#escaped = true;
      this.#openParameter(opening.name, this.#offset + lt);
      return lt + opening.length;
    }
    const close = startsWithAt(s, lt, call.close);
    if (close === null && !final) return wait(lt);
    if (close === true) {
      const end = lt + call.close.length;
      const confirmed = confirmsCallClose(s, end, final, this.#form, false);
      if (confirmed === null) return wait(lt);
      if (confirmed) {
        this.#closeCall(this.#offset + end);
        return end;
      }
    }
    if (wrapper !== null) {
      const blockClose = startsWithAt(s, lt, wrapper.close);
      if (blockClose === null && !final) return wait(lt);
      if (blockClose === true) {
        this.#warnUnclosedCall(wrapper.close, lt);
        this.#closeCall(this.#offset + lt);
        return lt;
      }
      if (this.#lineStart) {
        const next = call.read(s, lt, final);
        if (next === 'partial') return wait(lt);
        const block = startsWithAt(s, lt, wrapper.open);
        if (block === null && !final) return wait(lt);
        // The next call, or a new block: this call (and block) was left open.
        if (next !== null || block === true) {
          this.#warnUnclosedCall(`the next ${next !== null ? call.start : wrapper.open}`, lt);
          this.#closeCall(this.#offset + lt);
          return lt;
        }
      }
    }
    this.#lineStart = false;
    return lt + 1;
  }

  #warnUnclosedCall(ending: string, lt: number): void {
    this.#warn(
      'unclosed-element',
      `${this.#form.call.unclosed}; it ends at ${ending}`,
      this.#offset + lt,
    );
  }

  /** The call's own opening inside it: this call never closed, and a new block opens there. */
  #failReopened(): void {
    const start = this.#form.call.start;
    this.#fail(
      'incomplete-tool-call',
      `a new ${start} began before this one was closed with ${this.#form.call.close}`,
      this.#blockStart,
    );
    (this.#failed as BlockFailure).reopen = true;
  }

  // --- Fields (the `<tool>` protocol's `<tool_name>`, `<server_name>`). ---

  #stepField(i: number): number {
    const s = this.#s;
    const n = s.length;
    while (i < n) {
      const lt = s.indexOf('<', i);
      const end = lt === -1 ? n : lt;
      if (end > i) pushPiece(this.#fieldText, s.slice(i, end));
      i = end;
      if (i >= n) return this.#final ? this.#endOfInput(n) : wait(n);
      const tag = readTag(s, i, this.#final, this.#tag);
      if (tag.kind === TagKind.NeedMore) return wait(i);
      if (tag.kind === TagKind.Close && tag.name === this.#field) {
        this.#finishField();
        this.#state = State.InCall;
        return i + tag.length;
      }
      pushPiece(this.#fieldText, '<');
      i++;
    }
    return this.#final ? this.#endOfInput(n) : wait(n);
  }

  #finishField(): void {
    const raw = joinPieces(this.#fieldText);
    this.#fieldText = createPieces();
    const value = decodeEntities(raw.indexOf('<') === -1 ? raw : unwrapCdata(raw)).trim();
    const call = this.#call as OpenCall;
    const fields = this.#form.fields as { tool: string; server: string };
    const isTool = this.#field === fields.tool;
    if ((isTool ? call.name : call.server) !== (isTool ? '' : undefined))
      this.#warn(
        'duplicate-field',
        `<${this.#field}> is given twice; the last one counts`,
        this.#fieldAt,
      );
    if (isTool) call.name = value;
    else call.server = value;
    if (call.name !== '') this.#sink.name(call.id, call.name, call.server ?? 'local');
  }

  // --- Arguments. ---

  #openElement(name: string, empty: boolean, at: number): boolean {
    const tree = this.#tree;
    if (tree.depth >= this.#limits.maxDepth) {
      this.#fail(
        'max-depth-exceeded',
        `arguments nest deeper than ${this.#limits.maxDepth} elements; flatten the arguments`,
        at,
      );
      return false;
    }
    tree.open(name);
    if (empty) tree.close();
    this.#state = this.#valueState();
    return true;
  }

  /** A literal form's parameter: a text value of the call's arguments. */
  #openParameter(written: string, at: number): void {
    const key = this.#form.key(written);
    const tree = this.#startTree();
    const repeat = tree.open(key, true);
    if (repeat !== Repeat.None)
      this.#warn(
        'duplicate-field',
        `parameter ${JSON.stringify(key)} is given more than once; ${repeat === Repeat.List ? 'its values make a list' : 'the last is kept, as the tool takes one'}`,
        at,
      );
    const text = this.#form.text;
    this.#value = new StreamedValue(text === 'xml' ? 'verbatim' : text(key), this.#escaped);
    this.#valueAt = at;
    this.#lineStart = true;
    this.#state = State.Value;
  }

  /** The state for the innermost element: its text, or its children. */
  #valueState(): State {
    if (!this.#treeOpen) return State.InCall;
    const tree = this.#tree;
    if (tree.depth === 0) return this.#containerOpen ? State.Children : State.InCall;
    return tree.top.kind === FrameKind.String ? State.Value : State.Children;
  }

  /** Writes value text: decided text goes to the tree (and out as a delta) at once. */
  #writeValue(text: string): void {
    if (text === '') return;
    const value = this.#value;
    if (value === null) {
      this.#tree.text(text);
      return;
    }
    value.write(text);
    this.#lineStart = endsAtLineStart(text, 0, text.length, this.#lineStart);
    const decided = value.text();
    if (decided !== '') this.#tree.text(decided);
  }

  /** A literal form's value ends: what its reading held back, then the element closes. */
  #closeValueText(): void {
    const rest = (this.#value as StreamedValue).close();
    if (rest !== '') this.#tree.text(rest);
    // An empty value is still a string: the tree decided it at open.
    this.#tree.close();
    this.#value = null;
    this.#lineStart = false;
  }

  /**
   * Closes open elements down to and including the one at `depth` (0: all of them), each one
   * inside it with an `unclosed-element` warning: it ends where `ending` (at `at`) stands.
   */
  #closeTo(depth: number, at: number, ending: string): void {
    const tree = this.#tree;
    while (tree.depth > depth) {
      if (this.#value !== null) {
        this.#warn(
          'unclosed-element',
          `${this.#form.parameter.unclosed}; it ends at ${ending}`,
          this.#valueAt,
        );
        this.#closeValueText();
        continue;
      }
      this.#warn(
        'unclosed-element',
        `<${tree.top.name}> was not closed before an enclosing closing tag`,
        at,
      );
      tree.close();
    }
    if (depth > 0) {
      if (this.#value !== null) this.#closeValueText();
      else tree.close();
    }
  }

  /** Ends the arguments (`</arguments>`, the call's close): inner open elements close with a warning. */
  #endArguments(at: number): void {
    if (this.#treeOpen) this.#closeTo(0, at, this.#form.call.close);
    this.#containerOpen = false;
    this.#implied = false;
  }

  // --- An element that holds elements (or may), and a value's text. ---

  /** In the arguments, or in an element whose content is not yet known or is elements. */
  #stepChildren(i: number): number {
    const s = this.#s;
    const n = s.length;
    const tree = this.#tree;
    const top = tree.top;
    const start = i;
    while (i < n && isWhitespace(s.charCodeAt(i))) i++;
    if (i > start && top.kind === FrameKind.Undecided) tree.whitespace(s.slice(start, i));
    if (i >= n) return this.#final ? this.#endOfInput(n) : wait(i);
    if (s.charCodeAt(i) !== Char.Lt) {
      if (top.kind === FrameKind.Undecided) {
        tree.text('');
        this.#state = State.Value;
        return i;
      }
      this.#stray(i);
      const next = s.indexOf('<', i);
      return next === -1 ? n : next;
    }
    const cdata = startsWithAt(s, i, CDATA_OPEN);
    if (cdata === null && !this.#final) return wait(i);
    if (cdata === true) {
      if (top.kind === FrameKind.Undecided) tree.text('');
      else this.#stray(i);
      this.#state = State.Cdata;
      return i + CDATA_OPEN.length;
    }
    const tag = readTag(s, i, this.#final, this.#tag);
    switch (tag.kind) {
      case TagKind.NeedMore:
        return wait(i);
      case TagKind.Open:
      case TagKind.Empty:
        if (!this.#openElement(tag.name, tag.kind === TagKind.Empty, this.#offset + i)) return i;
        return i + tag.length;
      case TagKind.Close:
        return this.#closeInChildren(i, tag);
      default:
        if (top.kind === FrameKind.Undecided) {
          tree.text('<');
          this.#state = State.Value;
        } else this.#stray(i);
        return i + 1;
    }
  }

  /** A closing tag among elements: the element's own, an enclosing one's, or a mistake. */
  #closeInChildren(i: number, tag: Tag): number {
    const tree = this.#tree;
    const at = this.#offset + i;
    const end = i + tag.length;
    const form = this.#form;
    if (tree.depth > 0 && tag.name === tree.top.name) {
      tree.close();
      this.#state = this.#valueState();
      return end;
    }
    if (isTagFor(form.call.close, tag.name, true)) {
      if (this.#containerOpen)
        this.#warn(
          'unclosed-element',
          `<${form.container}> was not closed before ${form.call.close}`,
          at,
        );
      this.#endArguments(at);
      this.#closeCall(at + tag.length);
      return end;
    }
    const depth = tree.depthOf(tag.name);
    if (depth > 0) {
      this.#closeTo(depth, at, `</${tag.name}>`);
      this.#state = this.#valueState();
      return end;
    }
    if (tag.name === form.container || tree.depth === 0) {
      if (tag.name !== form.container)
        this.#warn(
          'mismatched-close-tag',
          `</${tag.name}> closes nothing here; read as </${form.container}>`,
          at,
        );
      this.#endArguments(at);
      this.#state = State.InCall;
      return end;
    }
    if (tree.top.kind === FrameKind.Undecided) {
      tree.text(this.#s.slice(i, end));
      this.#state = State.Value;
      return end;
    }
    this.#warn('mismatched-close-tag', `</${tag.name}> closes no open element and is ignored`, at);
    return end;
  }

  /** In a string value: runs of text, references (XML), CDATA, and candidate closing tags. */
  #stepValue(i: number): number {
    const s = this.#s;
    const n = s.length;
    const xml = this.#form.tags === 'xml';
    let from = i;
    let at = i;
    for (;;) {
      let j = at;
      if (xml) {
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
        if (this.#final) {
          this.#writeValue(s.slice(from, n));
          return this.#endOfInput(n);
        }
        // A high surrogate at the end waits for its pair: no delta splits a code point.
        const end = n > from && isHighSurrogate(s.charCodeAt(n - 1)) ? n - 1 : n;
        this.#writeValue(s.slice(from, end));
        return wait(end);
      }
      if (s.charCodeAt(j) === Char.Amp) {
        const length = readEntity(s, j, this.#final, this.#decoded);
        if (length === NEED_MORE) {
          this.#writeValue(s.slice(from, j));
          return wait(j);
        }
        if (length !== LITERAL) {
          this.#writeValue(s.slice(from, j));
          this.#writeValue(this.#decoded.text);
          from = j + length;
        }
        at = length === LITERAL ? j + 1 : j + length;
        continue;
      }
      const next = xml ? this.#xmlValueEnd(j, from) : this.#literalValueEnd(j, from);
      if (next !== TEXT) return next;
      at = j + 1;
    }
  }

  /** The `<` at `lt` in an XML value: TEXT, or (the text before it written) where to go on. */
  #xmlValueEnd(lt: number, from: number): number {
    const s = this.#s;
    const final = this.#final;
    const cdata = startsWithAt(s, lt, CDATA_OPEN);
    if (cdata === null && !final) return this.#valueWait(from, lt);
    if (cdata === true) {
      this.#writeValue(s.slice(from, lt));
      this.#state = State.Cdata;
      return lt + CDATA_OPEN.length;
    }
    const tag = readTag(s, lt, final, this.#tag);
    if (tag.kind === TagKind.NeedMore) return this.#valueWait(from, lt);
    if (tag.kind !== TagKind.Close) return TEXT;
    const form = this.#form;
    const tree = this.#tree;
    const end = lt + tag.length;
    // An open element of the name closes first; then the arguments, then the call.
    let depth = tree.depthOf(tag.name);
    if (depth < 0 && tag.name === form.container) depth = 0;
    if (depth < 0) {
      if (!isTagFor(form.call.close, tag.name, true)) return TEXT;
      const confirmed = confirmsCallClose(s, end, final, form, true);
      if (confirmed === null) return this.#valueWait(from, lt);
      if (!confirmed) return TEXT;
      this.#writeValue(s.slice(from, lt));
      this.#endArguments(this.#offset + lt);
      this.#closeCall(this.#offset + end);
      return end;
    }
    const confirmed = confirmsValueClose(s, end, final, form, tree, depth);
    if (confirmed === null) return this.#valueWait(from, lt);
    if (!confirmed) return TEXT;
    this.#writeValue(s.slice(from, lt));
    if (depth === 0) {
      this.#endArguments(this.#offset + lt);
      this.#state = State.InCall;
    } else {
      this.#closeTo(depth, this.#offset + lt, `</${tag.name}>`);
      this.#state = this.#valueState();
    }
    return end;
  }

  /** The `<` at `lt` in a literal form's value: TEXT, or where to go on (see xmlValueEnd). */
  #literalValueEnd(lt: number, from: number): number {
    const s = this.#s;
    const final = this.#final;
    const { call, parameter, wrapper } = this.#form;
    if (!this.#mayEndValue(s, lt)) return TEXT;
    const close = parameter.close(this.#tree.top.name);
    const closes = startsWithAt(s, lt, close);
    if (closes === null && !final) return this.#valueWait(from, lt);
    if (closes === true) {
      const end = lt + close.length;
      const confirmed = confirmsValueClose(s, end, final, this.#form, this.#tree, 1);
      if (confirmed === null) return this.#valueWait(from, lt);
      if (confirmed) {
        this.#writeValue(s.slice(from, lt));
        this.#closeValueText();
        this.#state = State.InCall;
        return end;
      }
    }
    if (endsAtLineStart(s, from, lt, this.#lineStart)) {
      // A parameter's or a new block's opening on a line of its own: the value was left open.
      for (const opening of [parameter.reopens, wrapper?.open]) {
        if (opening == null) continue;
        const opens = startsWithAt(s, lt, opening);
        if (opens === null && !final) return this.#valueWait(from, lt);
        if (opens !== true) continue;
        if (opening === parameter.reopens && this.#form.repeated === 'warn') {
          // A parameter the call already has, opened inside a value, is the value's text (code
          // that writes the format: a file holding `<parameter=path>`), not a left-open value.
          const tag = parameter.read(s, lt, final);
          if (tag === 'partial') return this.#valueWait(from, lt);
          if (tag !== null && this.#tree.has(this.#form.key(tag.name))) continue;
        }
        return this.#leaveValue(from, lt, `the next ${opening}`, lt);
      }
    }
    const callClose = startsWithAt(s, lt, call.close);
    if (callClose === null && !final) return this.#valueWait(from, lt);
    if (callClose === true) {
      const end = lt + call.close.length;
      const confirmed = confirmsCallClose(s, end, final, this.#form, true);
      if (confirmed === null) return this.#valueWait(from, lt);
      if (confirmed) {
        this.#leaveValue(from, lt, call.close, end);
        this.#closeCall(this.#offset + end);
        return end;
      }
    }
    if (wrapper !== null) {
      const blockClose = startsWithAt(s, lt, wrapper.close);
      if (blockClose === null && !final) return this.#valueWait(from, lt);
      if (blockClose === true) {
        const confirmed = confirmsBlockCloseInValue(
          s,
          lt + wrapper.close.length,
          final,
          this.#form,
        );
        if (confirmed === null) return this.#valueWait(from, lt);
        if (confirmed) return this.#leaveValue(from, lt, wrapper.close, lt);
      }
    }
    return TEXT;
  }

  /** The value's text before `lt` is decided; the `<` at `lt` waits for more input. */
  #valueWait(from: number, lt: number): number {
    this.#writeValue(this.#s.slice(from, lt));
    return wait(lt);
  }

  /** A value left open ends at `lt`, where `ending` begins: a warning, and the call goes on. */
  #leaveValue(from: number, lt: number, ending: string, next: number): number {
    this.#writeValue(this.#s.slice(from, lt));
    this.#closeTo(0, this.#offset + lt, ending);
    this.#state = State.InCall;
    // It is left where a line starts (or at the call's or block's close).
    this.#lineStart = true;
    return next;
  }

  #stepCdata(i: number): number {
    const s = this.#s;
    const close = s.indexOf(']]>', i);
    if (close !== -1) {
      this.#writeValue(s.slice(i, close));
      // Back to what holds it: a string's text, or (stray CDATA) the elements around it.
      this.#state = this.#valueState();
      return close + 3;
    }
    if (this.#final) {
      this.#writeValue(s.slice(i));
      return this.#endOfInput(s.length);
    }
    // Hold back a possible `]]` or `]` that the next chunk may complete into `]]>`.
    let end = s.length;
    if (end > i && s.charCodeAt(end - 1) === Char.CloseBracket) end--;
    if (end > i && s.charCodeAt(end - 1) === Char.CloseBracket) end--;
    if (end > i && isHighSurrogate(s.charCodeAt(end - 1))) end--;
    this.#writeValue(s.slice(i, end));
    return wait(end);
  }

  #stepJson(i: number): number {
    const json = this.#json;
    const next = json.run(this.#s, i, this.#final);
    if (json.ended === JsonFormEnd.Object) this.#state = State.JsonTail;
    else if (json.ended === JsonFormEnd.ToolClose) {
      this.#finishJson(this.#offset + next);
      return next + this.#form.call.close.length;
    } else return this.#final ? this.#endOfInput(next) : wait(next);
    return next;
  }

  #stepJsonTail(i: number): number {
    const s = this.#s;
    const n = s.length;
    while (i < n && isWhitespace(s.charCodeAt(i))) i++;
    if (i >= n) return this.#final ? this.#endOfInput(n) : wait(i);
    const close = this.#form.call.close;
    const closes = startsWithAt(s, i, close);
    if (closes === null && !this.#final) return wait(i);
    if (closes === true) {
      this.#finishJson(this.#offset + i);
      return i + close.length;
    }
    this.#stray(i);
    const next = s.indexOf('<', i + 1);
    return next === -1 ? n : next;
  }

  #finishJson(closeAt: number): void {
    const json = this.#json.take();
    const start = this.#json.start;
    const result = readJsonCall(json, this.#limits.maxDepth);
    if (!result.ok) {
      this.#fail(
        result.code,
        `the JSON inside ${this.#form.call.start} is invalid (${result.message}); write the call as XML elements`,
        start + Math.min(result.position, json.length),
      );
      return;
    }
    const call = this.#call as OpenCall;
    call.name = result.toolName ?? '';
    call.server = result.serverName;
    this.#args = result.arguments;
    if (call.name !== '') this.#sink.name(call.id, call.name, call.server ?? 'local');
    this.#warn(
      'deprecated-json-format',
      `the JSON form of ${this.#form.call.start} is deprecated; write XML elements`,
      start,
    );
    for (const warning of result.warnings)
      this.#warn(warning.code, warning.message, start + warning.at);
    this.#closeCall(closeAt + this.#form.call.close.length);
  }

  /** Nothing more in the text: wait for input, or decide what the end of the input leaves. */
  #endOfInput(at: number): number {
    if (!this.#final) return wait(at);
    const end = this.#offset + at;
    if (this.#state === State.Between && this.#calls > 0 && this.#form.wrapper !== null) {
      this.#warn(
        'unclosed-call-at-end',
        `the block was not closed with ${this.#form.wrapper.close}; it ends with the input`,
        end,
      );
      this.#endClosed(end);
      this.#state = State.Done;
      return at;
    }
    if (this.#completeButOpen()) {
      // A server stripped its stop token, or a stop sequence ended the reply: the call, with
      // every value closed (and `</arguments>` read where the form has it), is a call.
      this.#warn(
        'unclosed-call-at-end',
        `the call was complete but not closed with ${this.#form.call.close}; it ends with the input`,
        end,
      );
      this.#closeCall(end);
      if (this.#state !== State.Failed) {
        this.#endClosed(end);
        this.#state = State.Done;
      }
      return at;
    }
    const message =
      this.#state === State.Cdata
        ? 'a CDATA section was not closed with ]]> before the input ended'
        : `the ${this.#form.wrapper?.open ?? this.#form.call.start} block was not closed with ${this.#form.wrapper?.close ?? this.#form.call.close} before the input ended`;
    this.#fail('incomplete-tool-call', message, this.#blockStart);
    return at;
  }
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

/** Chunks up to this long are searched by hand in the streaming fast path. */
const SHORT_CHUNK = 16;

/**
 * Whether the `<` at `k` may start a tag, CDATA or a closing tag, or is the chunk's last
 * character: `a < b`, `i<=n`, `x<3` start none.
 */
function startsMarkup(chunk: string, k: number): boolean {
  if (k + 1 >= chunk.length) return true;
  const next = chunk.charCodeAt(k + 1);
  return next === Char.Slash || next === Char.Bang || isTagStart(next);
}

/** A character that can begin a tag's name (ASCII letters, `_`, `:`, or beyond ASCII). */
function isTagStart(c: number): boolean {
  return (
    c > 0x7f || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x3a
  );
}
