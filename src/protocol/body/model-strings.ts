import { wait } from '../block.js';
import { isWhitespace, JSON_ESCAPES } from '../chars.js';
import type { JsonValue, ToolArguments } from '../events.js';
import { LOOKAHEAD } from '../lookahead.js';
import { createPieces, joinPieces, type Pieces, pushPiece } from '../pieces.js';
import { commonPrefix, partialSuffixStart, startsWithAt } from '../tag.js';
import { indexOrEnd, isEscaped, StringEnds } from './string-ends.js';
import {
  Container,
  type ReaderConfig,
  type ReadFailure,
  Syntax,
  type ValueEvents,
  type ValueRepairKind,
} from './value-events.js';

export enum Mode {
  Value = 0,
  Key = 1,
  Colon = 2,
  After = 3,
  String = 4,
  /** The top-level value is complete (`top: 'value'`). */
  Done = 5,
  Failed = 6,
  /** The block's close stands at `closeAt` (outside strings, or a special token anywhere). */
  Closed = 7,
}

export interface Frame {
  kind: Container;
  value: ToolArguments | JsonValue[];
  /** The key whose value is being read (objects and calls). */
  key: string;
  /** A comma was read and no value after it yet. */
  afterComma: boolean;
  /** A Python call's name. */
  name: string;
}

/** How far past a string's quote, and the comma after it, the reader looks to decide it closes. */
const MAX_LOOK = LOOKAHEAD.jsonToken.value;

/** A newline, return or tab: a repair when it stands raw in a JSON string (`RAW_CONTROLS`). */
const isRawControl = (c: number) => c === 0x0a || c === 0x0d || c === 0x09;
export const isWordStart = (c: number) =>
  (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x24;
export const WORD = /[A-Za-z_$][\w$.-]*/y;

const PYTHON_ESCAPES: Record<string, string> = {
  ...JSON_ESCAPES,
  "'": "'",
  '0': '\0',
  a: '\x07',
  v: '\v',
  '\n': '',
};

export const NONE: readonly string[] = [];
/** The closes a string cannot hold begin with different characters. */
const MIXED_FIRSTS = -2;
/** A chunk, or a rest of text, this short is looked at character by character for its stops. */
const SHORT_CHUNK = 32;
/** The most decoded text gathered before it is handed on. */
const RUN_FLUSH = 4096;

/**
 * The strings of a value a model wrote, read as they stream (see ModelJsonReader, which reads
 * the rest of the value on this): their quotes, escapes and repairs, their text told as soon
 * as it is certain, a whole string taken in one piece where it can be, and the streaming fast
 * path for a chunk inside one. Also what the value's reading shares: its mode and stack, the
 * block's close, the repairs and the failure.
 */
export abstract class ModelStringReader {
  protected readonly config: ReaderConfig;
  protected readonly events: ValueEvents;
  protected mode = Mode.Value;
  protected readonly stack: Frame[] = [];
  /** The string being read: its quote ('"', "'", or the quote token), whether it is a key. */
  #quote = '';
  /** The string stands between quote tokens: it holds no escapes. */
  #tokenQuoted = false;
  #isKey = false;
  /** The string's decoded text, in pieces flattened as they grow (see pieces.ts). */
  #text: Pieces = createPieces();
  #stringAt = 0;
  /** A high surrogate decoded last, held until its pair (or not) comes. */
  #highSurrogate = '';
  #repaired = false;
  #failure: ReadFailure | null = null;
  #closeAt = -1;
  /** Decoded string text not yet handed on. */
  #run = '';
  protected readonly stringEnds: StringEnds;
  protected offset = 0;

  /** The first character of the closes a string cannot hold (-1: none; see MIXED_FIRSTS). */
  readonly #closeFirst: number = -1;

  /**
   * `ends` may be shared by the readers of one stream (a block's calls, one after another in
   * the same text), so that what one found ahead is not searched for again by the next.
   */
  constructor(config: ReaderConfig, events: ValueEvents, ends = new StringEnds()) {
    this.config = config;
    this.events = events;
    this.stringEnds = ends;
    if (config.closeInStrings && config.closes.length > 0) {
      const first = commonPrefix(config.closes);
      this.#closeFirst = first === '' ? MIXED_FIRSTS : first.charCodeAt(0);
    }
  }

  /** The input ends inside a string: the value is cut short (a failure). */
  protected failInString(): void {
    this.fail(
      'the input ends inside a string: the value is cut short',
      this.#stringAt - this.offset,
      true,
    );
  }

  /** A key was read whole (a string's, or a bare word). */
  protected abstract setKey(written: string, at: number): void;
  /** A scalar value was read; `next` is where the text goes on. */
  protected abstract completeValue(value: JsonValue, next: number): number;

  get failure(): ReadFailure | null {
    return this.#failure;
  }

  /** Where the block's close was met, or -1. */
  get closeAt(): number {
    return this.#closeAt;
  }

  /** In a string (a close met now is inside it, unless it is a special token). */
  get inString(): boolean {
    return this.mode === Mode.String;
  }

  /**
   * The streaming fast path: `chunk` follows what was read, inside a string, and holds nothing
   * that could end it or needs the steps (no quote, no close, no escape but a whole one of one
   * character, nothing a repair is said for): taken as that string's text, decoded, without the
   * steps. False when it needs them.
   */
  appendToString(chunk: string): boolean {
    if (this.mode !== Mode.String) return false;
    let text: string | null;
    // A token's strings hold no escapes: a chunk without the token's first character cannot end one.
    if (this.#tokenQuoted) text = chunk.indexOf(this.#quote[0]) === -1 ? chunk : null;
    else if (chunk.length <= SHORT_CHUNK && this.#closeFirst !== MIXED_FIRSTS)
      text = this.#shortChunkText(chunk);
    else text = this.#holdsNoStop(chunk) ? chunk : null;
    if (text === null) return false;
    this.#stringText(text);
    this.#flushRun();
    return true;
  }

  /**
   * A stream's few characters, one look at each (not a search of the chunk for each stop):
   * their decoded text, escapes of one character included (code escapes every line), or null
   * when something in them needs the steps.
   */
  #shortChunkText(chunk: string): string | null {
    const raw = !this.#repaired && this.config.syntax === Syntax.Json;
    const quote = this.#quote.charCodeAt(0);
    const close = this.#closeFirst;
    let text = '';
    let from = 0;
    for (let k = 0; k < chunk.length; k++) {
      const c = chunk.charCodeAt(k);
      if (c === 0x5c) {
        const decoded = k + 1 < chunk.length ? this.#oneCharEscape(chunk[k + 1]) : undefined;
        if (decoded === undefined) return null;
        text += chunk.slice(from, k) + decoded;
        from = k + 2;
        k++;
      } else if (c === quote || (c === close && this.#closeMayStart(chunk, k))) return null;
      else if (raw && isRawControl(c)) return null;
    }
    return from === 0 ? chunk : text + chunk.slice(from);
  }

  /**
   * Whether one of the closes starts at `k` of `chunk`, or may (the chunk ends first): a `<`
   * that the chunk's next character shows to be no close is the string's text.
   */
  #closeMayStart(chunk: string, k: number): boolean {
    for (const close of this.config.closes)
      if (startsWithAt(chunk, k, close) !== false) return true;
    return false;
  }

  /** Whether a chunk holds nothing that would stop a string's text (searched for each). */
  #holdsNoStop(chunk: string): boolean {
    if (chunk.indexOf(this.#quote) !== -1 || chunk.indexOf('\\') !== -1) return false;
    if (this.config.closeInStrings)
      for (const close of this.config.closes) if (chunk.indexOf(close[0]) !== -1) return false;
    return !(!this.#repaired && this.config.syntax === Syntax.Json && /[\n\r\t]/.test(chunk));
  }

  /** In a string: its text up to the next quote or escape, told as it is decided. */
  protected readString(s: string, i: number, final: boolean): number {
    if (i === this.#stringAt - this.offset + this.#quote.length && this.#strictStrings) {
      const next = this.#wholeString(s, i, final);
      if (next !== -1) return next;
    }
    const quote = this.#quote;
    const tokenQuoted = this.#tokenQuoted;
    const specials = this.config.closeInStrings ? this.config.closes : NONE;
    const ends = this.stringEnds;
    ends.within(tokenQuoted ? quote[0] : quote);
    for (;;) {
      // Raw newlines and tabs are a repair in JSON: each is told where it stands.
      const checksRaw = this.config.syntax === Syntax.Json && !this.#repaired;
      let quoteAt: number;
      let stop: number;
      let k: number;
      let raw: number;
      if (!tokenQuoted && s.length - i <= SHORT_CHUNK && this.#closeFirst !== MIXED_FIRSTS) {
        // A stream's few characters: one look at each, for the four searches below.
        const at = this.#firstStop(s, i, checksRaw, specials);
        const c = s.charCodeAt(at);
        quoteAt = c === quote.charCodeAt(0) ? at : s.length;
        stop = quoteAt === at || c === 0x5c ? at : s.length;
        // A close's first character may be a raw newline that begins no close (a repair).
        k =
          c === this.#closeFirst && specials.some((close) => s.startsWith(close, at))
            ? at
            : s.length;
        raw = at < s.length && stop === s.length && k === s.length ? at : s.length;
      } else {
        quoteAt = ends.quote(i);
        stop = tokenQuoted ? quoteAt : Math.min(quoteAt, ends.backslash(i));
        k = specials.length === 0 ? s.length : ends.special(specials, i);
        raw = checksRaw ? ends.raw(i) : s.length;
      }
      let end = Math.min(stop, k);
      if (end >= s.length && !final) {
        // Hold what may be the start of the special close, or of the quote token.
        for (const special of specials) end = Math.min(end, partialSuffixStart(s, i, special));
        if (tokenQuoted) end = Math.min(end, partialSuffixStart(s, i, quote));
      }
      if (raw < end) {
        this.#stringText(s.slice(i, raw));
        this.repair('raw-control-in-string', raw);
        i = raw;
        continue;
      }
      this.#stringText(s.slice(i, end));
      if (k < s.length && k <= stop) {
        this.#closeAt = this.offset + k;
        this.fail("the string is cut short by the block's close", this.#stringAt - this.offset);
        return wait(k);
      }
      if (stop >= s.length) {
        this.#flushRun();
        return wait(end);
      }
      if (stop !== quoteAt) {
        const next = this.#readEscape(s, stop, final);
        if (next < 0) {
          this.#flushRun();
          return next;
        }
        i = next;
        continue;
      }
      if (tokenQuoted) {
        const closes = startsWithAt(s, stop, quote);
        if (closes === null && !final) {
          this.#flushRun();
          return wait(stop);
        }
        // A `<` that may still begin the block's close: more input decides, as whole input would.
        if (!final && specials.some((special) => startsWithAt(s, stop, special) === null)) {
          this.#flushRun();
          return wait(stop);
        }
        if (closes !== true) {
          this.#stringText(quote[0]);
          i = stop + 1;
          continue;
        }
        return this.#endString(stop + quote.length);
      }
      const closes = this.#quoteCloses(s, stop + 1, final);
      if (closes === null) {
        this.#flushRun();
        return wait(stop);
      }
      if (closes) return this.#endString(stop + 1);
      this.repair('unescaped-quote', stop);
      this.#stringText(quote);
      i = stop + 1;
    }
  }

  /**
   * A string whose close stands in this text, read from its start, that holds nothing the
   * steps would tell apart (a repair, a special close): taken in one piece (its slice, or
   * `JSON.parse` of it when it holds escapes) instead of run by run and escape by escape (most
   * of a body dialect's time). What it tells, one text and then the value, is what the steps
   * tell. -1 when it is no such string: the steps read it.
   */
  #wholeString(s: string, i: number, final: boolean): number {
    const quote = this.#quote;
    const ends = this.stringEnds;
    let end: number;
    let escaped = false;
    if (this.#tokenQuoted)
      end = indexOrEnd(s, quote, i); // a token's strings hold no escapes
    else {
      ends.within(quote);
      end = ends.quote(i);
      escaped = ends.backslash(i) < end;
      // The first quote no backslash escapes: an even run of them before it.
      while (escaped && end < s.length && isEscaped(s, end, i)) end = ends.quote(end + 1);
      // JSON.parse decodes only JSON's own strings.
      if (escaped && quote !== '"') return -1;
    }
    if (end >= s.length) return -1;
    // A raw newline or tab: a repair in JSON (told where it stands), and no JSON string. An
    // escaped string's is found by `JSON.parse` below, which rejects it.
    const json = this.config.syntax === Syntax.Json;
    if (!escaped && json && !this.#repaired && this.#rawIn(s, i, end)) return -1;
    const specials = this.config.closeInStrings ? this.config.closes : NONE;
    if (specials.length > 0 && ends.special(specials, i) < end) return -1;
    const next = end + quote.length;
    if (json && this.#quoteCloses(s, next, final) !== true) return -1;
    // A quote token where the block's close may yet stand: more input decides.
    if (!final && specials.some((special) => startsWithAt(s, end, special) === null)) return -1;
    let text = s.slice(i, end);
    if (escaped) {
      try {
        text = JSON.parse(s.slice(i - 1, next));
      } catch {
        // A raw newline or tab: the steps tell its repair. An escape JSON lacks (a repair, or
        // Python's own): the steps read this reader's strings.
        if (!this.#rawIn(s, i, end)) this.#strictStrings = false;
        return -1;
      }
    }
    if (this.#isKey) {
      this.setKey(text, this.#stringAt - this.offset);
      return next;
    }
    if (text !== '') this.events.text(this.stack.length + 1, text);
    return this.completeValue(text, next);
  }

  /**
   * Whether a raw newline, return or tab stands in `s` from `i` to `end`. A short string is
   * looked at character by character: a search for a control the text lacks runs to the text's
   * end, and three of them over every message were a tenth of a JSON family's whole reading.
   */
  #rawIn(s: string, i: number, end: number): boolean {
    if (end - i > SHORT_CHUNK) return this.stringEnds.raw(i) < end;
    for (let p = i; p < end; p++) if (isRawControl(s.charCodeAt(p))) return true;
    return false;
  }

  /** No string so far held an escape `JSON.parse` rejects (see #wholeString). */
  #strictStrings = true;

  /**
   * In a short rest of text: where the first thing that stops a string's run stands (its
   * quote, a backslash, a whole special close, a raw control while it is a repair), or the
   * text's end.
   */
  #firstStop(s: string, i: number, checksRaw: boolean, specials: readonly string[]): number {
    const quote = this.#quote.charCodeAt(0);
    const close = this.#closeFirst;
    for (let p = i; p < s.length; p++) {
      const c = s.charCodeAt(p);
      if (c === quote || c === 0x5c) return p;
      if (c === close && specials.some((special) => s.startsWith(special, p))) return p;
      if (checksRaw && isRawControl(c)) return p;
    }
    return s.length;
  }

  // --- Strings. ---

  protected beginString(quote: string, isKey: boolean, at: number, next: number): number {
    if (quote === "'" && this.config.syntax === Syntax.Json)
      this.repair('single-quoted-string', at);
    this.#quote = quote;
    this.#tokenQuoted = quote === this.config.quoteToken;
    this.#isKey = isKey;
    this.#text = createPieces();
    this.#stringAt = this.offset + at;
    this.mode = Mode.String;
    return next;
  }

  /**
   * Decoded text of the string: gathered, and handed on once per read (see #flushRun) or per
   * 4 KiB: a rope of a whole megabyte string's pieces kept alive to the end is what the
   * garbage collector traverses again and again (3.9x per doubling at 4 MB).
   */
  #stringText(text: string): void {
    this.#run += text;
    if (this.#run.length >= RUN_FLUSH) this.#flushRun();
  }

  /**
   * Hands on the text gathered since the last flush: one piece and one delta per read of a
   * string, not one per escape. Flushed before anything else is told (a repair, a failure,
   * the string's end) and whenever a read stops, so the order is the same whatever the split.
   */
  #flushRun(): void {
    if (this.#run === '') return;
    let out = this.#highSurrogate + this.#run;
    this.#run = '';
    this.#highSurrogate = '';
    const last = out.charCodeAt(out.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.#highSurrogate = out.slice(-1);
      out = out.slice(0, -1);
    }
    if (out === '') return;
    pushPiece(this.#text, out);
    if (!this.#isKey) this.events.text(this.stack.length + 1, out);
  }

  #endString(next: number): number {
    this.#flushRun();
    const text = joinPieces(this.#text) + this.#highSurrogate;
    if (this.#highSurrogate !== '' && !this.#isKey)
      this.events.text(this.stack.length + 1, this.#highSurrogate);
    this.#highSurrogate = '';
    this.#text = createPieces();
    if (this.#isKey) {
      this.setKey(text, this.#stringAt - this.offset);
      return next;
    }
    return this.completeValue(text, next);
  }

  /**
   * Whether the quote just before `at` closes its string: what follows it (blanks skipped)
   * must fit. A key's close is followed by `:` (`=` in a call); a value's by `,` (and then
   * something that can follow a comma), a closing bracket, the block's close or the end.
   * Python's and a quote token's strings close at their quote: their writers escape.
   */
  #quoteCloses(s: string, at: number, final: boolean): boolean | null {
    // Python's and a quote token's writers escape; a key holds no quote.
    if (this.config.syntax !== Syntax.Json || this.#isKey) return true;
    const j = blanksEnd(s, at);
    if (j - at > MAX_LOOK) return false;
    if (j >= s.length) return final ? true : null;
    const close = this.atClose(s, j, final);
    // A close the input ended inside confirms the quote, as the end of the input does.
    if (close !== false) return close === CUT_CLOSE ? true : close;
    const c = s.charCodeAt(j);
    // A key is followed by its colon (or, broken, by what ends it: the reading fails there).
    if (this.#isKey) return c === 0x3a || c === 0x2c || c === 0x7d || c === 0x5d;
    if (c === 0x7d || c === 0x5d) return true;
    // `"a" "b"`: a comma forgotten between two strings; `""` right after is the value's text
    // (code writes `x = ""`).
    if (c === 0x22 || c === 0x27) return j > at;
    if (c !== 0x2c) return false;
    // After the comma: what a comma can lead to in this container.
    const k = blanksEnd(s, j + 1);
    if (k - j > MAX_LOOK) return false;
    if (k >= s.length) return final ? true : null;
    const d = s.charCodeAt(k);
    const inObject = this.stack.at(-1)?.kind === Container.Object;
    // A string, a close (a trailing comma), a comment: all can follow a comma.
    if (d === 0x22 || d === 0x27 || d === 0x7d || d === 0x5d || d === 0x2f) return true;
    if (!inObject)
      return d === 0x7b || d === 0x5b || d === 0x2d || (d >= 0x30 && d <= 0x39) || isWordStart(d);
    if (!isWordStart(d)) return false;
    // An unquoted key: a word, then `:`.
    WORD.lastIndex = k;
    if (WORD.exec(s) === null) return false;
    // A colon further than chunks would look for it confirms nothing, whole as in chunks.
    const colon = blanksEnd(s, WORD.lastIndex);
    if (colon - at > MAX_LOOK) return false;
    if (colon >= s.length) return final ? false : null;
    return s.charCodeAt(colon) === 0x3a;
  }

  /** The escape at `at` (a backslash): its decoded text; where the string goes on. */
  #readEscape(s: string, at: number, final: boolean): number {
    if (at + 1 >= s.length) return final ? this.#badEscape(s, at) : wait(at);
    const e = s[at + 1];
    const python = this.config.syntax === Syntax.Python;
    if (e === 'u' || (python && (e === 'x' || e === 'U'))) {
      const digits = e === 'u' ? 4 : e === 'x' ? 2 : 8;
      if (at + 2 + digits > s.length) return final ? this.#badEscape(s, at) : wait(at);
      const hex = s.slice(at + 2, at + 2 + digits);
      if (!/^[\da-fA-F]+$/.test(hex)) return this.#badEscape(s, at);
      const code = Number.parseInt(hex, 16);
      if (code > 0x10ffff) return this.#badEscape(s, at);
      this.#stringText(e === 'U' ? String.fromCodePoint(code) : String.fromCharCode(code));
      return at + 2 + digits;
    }
    const decoded = this.#oneCharEscape(e);
    if (decoded !== undefined) {
      this.#stringText(decoded);
      return at + 2;
    }
    // `\'` in JSON: what the model meant is the quote.
    if (e === "'" && !python) {
      this.repair('escaped-single-quote', at);
      this.#stringText("'");
      return at + 2;
    }
    return this.#badEscape(s, at);
  }

  /** What `\` and `e` decode to, when that is one character's escape of the syntax. */
  #oneCharEscape(e: string): string | undefined {
    const table = this.config.syntax === Syntax.Python ? PYTHON_ESCAPES : JSON_ESCAPES;
    return Object.hasOwn(table, e) ? table[e] : undefined;
  }

  /** An escape that means nothing: kept as written (Python does the same). */
  #badEscape(s: string, at: number): number {
    if (this.config.syntax === Syntax.Json) this.repair('invalid-escape', at);
    this.#stringText(s.slice(at, at + 2));
    return Math.min(at + 2, s.length);
  }

  /**
   * Whether a close of the block stands at `j`: null while the input ends inside one, and at
   * the end of the input `CUT_CLOSE`, a close cut short: the input ended there (row
   * 'body-close-partial').
   */
  protected atClose(s: string, j: number, final: boolean): boolean | null | typeof CUT_CLOSE {
    let inside = false;
    for (const close of this.config.closes) {
      if (s.charCodeAt(j) !== close.charCodeAt(0)) continue;
      const at = startsWithAt(s, j, close);
      if (at === true) return true;
      if (at === null) inside = true;
    }
    return inside ? (final ? CUT_CLOSE : null) : false;
  }

  protected closeHere(j: number): number {
    this.#closeAt = this.offset + j;
    this.mode = Mode.Closed;
    return wait(j);
  }

  // --- Mistakes. ---

  protected repair(
    kind: ValueRepairKind,
    at: number,
    values?: Readonly<Record<string, string>>,
  ): void {
    if (this.#repaired) return;
    this.#flushRun();
    this.#repaired = true;
    this.events.repaired(kind, this.offset + at, values);
  }

  protected fail(message: string, at: number, cut = false): void {
    this.#flushRun();
    if (this.#failure === null) this.#failure = { message, at: this.offset + at, cut };
    this.mode = Mode.Failed;
  }
}

/** `atClose`'s answer where the input ends inside a close: what is left of it is the close's. */
export const CUT_CLOSE = 2;

export function blanksEnd(s: string, i: number): number {
  while (i < s.length && isWhitespace(s.charCodeAt(i))) i++;
  return i;
}
