import { isWhitespace, JSON_ESCAPES } from '../chars.js';
import type { JsonValue, ToolArguments } from '../events.js';
import { createObject } from '../markup/arguments-tree.js';
import { sharedName } from '../names.js';
import { createPieces, joinPieces, type Pieces, pushPiece } from '../pieces.js';
import { commonPrefix, LiteralsSearch, partialSuffixStart, startsWithAt } from '../tag.js';

/**
 * The syntaxes of values a model writes in a call's body: JSON (with the repairs below),
 * Python literals and calls (`[f(a='x', n=3)]`: LFM2, OLMo 3, Llama 4), and strings between
 * a quote token (`ReaderConfig.quoteToken`: Gemma 4's `<|"|>`), holding no escapes, with bare
 * keys.
 */
export enum Syntax {
  Json = 0,
  Python = 1,
  TokenQuoted = 2,
}

export enum Container {
  Object = 0,
  Array = 1,
  /** A Python call, `name(k=v, …)`: its keyword arguments are its keys. */
  Call = 2,
}

/**
 * What the reader tells as it reads, in the order of the text. Depth 1 is the top-level
 * value (or each value of a top-level sequence).
 */
export interface ValueEvents {
  /** A container opens at `depth`; `name` is a Python call's. */
  open(depth: number, kind: Container, at: number, name: string): void;
  /** A key of the object (a keyword of the call) at `depth`, whole. */
  key(depth: number, key: string, at: number): void;
  /** Decoded text of a string value at `depth`, in order, as soon as it is certain. */
  text(depth: number, text: string): void;
  /** A value completed at `depth` (a container once it closes); `end` is just after it. */
  value(depth: number, value: JsonValue, end: number): void;
  /** A model's mistake read anyway, or a number kept as written. */
  warn(code: 'repaired-json' | 'inexact-number', message: string, at: number): void;
}

export interface ReaderConfig {
  syntax: Syntax;
  /** One value (the body is a JSON value), or values one after another (OLMo 3's calls). */
  top: 'value' | 'sequence';
  /** What may close the block (none when the value's end is the block's end). */
  closes: readonly string[];
  /** The closes are special tokens: they end the body even inside a string (cut short). */
  closeInStrings: boolean;
  maxDepth: number;
  /** The token strings stand between (`Syntax.TokenQuoted`). */
  quoteToken?: string;
}

enum Mode {
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

interface Frame {
  kind: Container;
  value: ToolArguments | JsonValue[];
  /** The key whose value is being read (objects and calls). */
  key: string;
  /** A comma was read and no value after it yet. */
  afterComma: boolean;
  /** A Python call's name. */
  name: string;
}

/** How far past a quote, a comma or a word the reader looks to decide what it is. */
const MAX_LOOK = 256;

/** A newline, return or tab: a repair when it stands raw in a JSON string (`RAW_CONTROLS`). */
const isRawControl = (c: number) => c === 0x0a || c === 0x0d || c === 0x09;
const isWordStart = (c: number) =>
  (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x24;
const isWordChar = (c: number) =>
  isWordStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2d;
const WORD = /[A-Za-z_$][\w$.-]*/y;
const NUMBER = /[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?/y;

const PYTHON_ESCAPES: Record<string, string> = {
  ...JSON_ESCAPES,
  "'": "'",
  '0': '\0',
  a: '\x07',
  v: '\v',
  '\n': '',
};

/** Literal words: JSON's, and Python's (a repair in JSON). */
const WORDS: Record<string, { value: JsonValue; python: boolean }> = {
  true: { value: true, python: false },
  false: { value: false, python: false },
  null: { value: null, python: false },
  True: { value: true, python: true },
  False: { value: false, python: true },
  None: { value: null, python: true },
};

/**
 * Reads a value a model wrote, as it streams, in one pass with bounded look-ahead, so its
 * cost is linear in its length however it is cut. Strict JSON is read exactly as
 * `JSON.parse` reads it (a property test holds it to that), but a number JavaScript cannot
 * hold exactly, kept as its written string with `inexact-number`. What models get wrong is
 * read as they meant it, each with `repaired-json` (once a value): raw newlines and tabs in
 * strings, a quote inside a string that what follows shows is no close (`"He said "hi" to
 * me"`), single-quoted strings, unquoted keys, trailing and missing commas, comments, Python's
 * `True`/`False`/`None`, an invalid escape (kept as written), brackets left open before the
 * block's close. A decision is never taken back: the text of a string is told as soon as it
 * is certain, and the value built is exactly what was told.
 *
 * `read` consumes what it can and returns where it stopped; what is left it reads again with
 * more input. `finish` ends the value at the block's close or the end of the input.
 */
export class ModelJsonReader {
  readonly #config: ReaderConfig;
  readonly #events: ValueEvents;
  #mode = Mode.Value;
  readonly #stack: Frame[] = [];
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
  readonly #stringEnds: StringEnds;
  /** The top-level value, once complete. */
  #result: JsonValue | undefined = undefined;
  #offset = 0;

  /**
   * `ends` may be shared by the readers of one stream (a block's calls, one after another in
   * the same text), so that what one found ahead is not searched for again by the next.
   */
  constructor(config: ReaderConfig, events: ValueEvents, ends = new StringEnds()) {
    this.#config = config;
    this.#events = events;
    this.#stringEnds = ends;
    if (config.closeInStrings && config.closes.length > 0) {
      const first = commonPrefix(config.closes);
      this.#closeFirst = first === '' ? MIXED_FIRSTS : first.charCodeAt(0);
    }
  }

  /** The first character of the closes a string cannot hold (-1: none; see MIXED_FIRSTS). */
  readonly #closeFirst: number = -1;

  get failure(): ReadFailure | null {
    return this.#failure;
  }

  /** The top-level value is complete (and, for a value body, the body too). */
  get done(): boolean {
    return this.#mode === Mode.Done;
  }

  /** A sequence's reader between two complete top-level values: nothing is left open. */
  get betweenValues(): boolean {
    return this.#stack.length === 0 && this.#mode === Mode.Value && this.#result !== undefined;
  }

  /** Where the block's close was met, or -1. */
  get closeAt(): number {
    return this.#closeAt;
  }

  /** In a string (a close met now is inside it, unless it is a special token). */
  get inString(): boolean {
    return this.#mode === Mode.String;
  }

  get result(): JsonValue | undefined {
    return this.#result;
  }

  /**
   * Reads `s` from `from` (`offset` is the absolute offset of `s[0]`); returns how far it
   * read. It stops at the end of the top-level value, at the block's close, at a failure, or
   * where more input must decide.
   */
  read(s: string, from: number, offset: number, final: boolean): number {
    this.#offset = offset;
    this.#stringEnds.reset(s);
    let i = from;
    while (i <= s.length) {
      let next: number;
      switch (this.#mode) {
        case Mode.Value:
          next = this.#readValue(s, i, final);
          break;
        case Mode.Key:
          next = this.#readKey(s, i, final);
          break;
        case Mode.Colon:
          next = this.#readColon(s, i, final);
          break;
        case Mode.After:
          next = this.#readAfter(s, i, final);
          break;
        case Mode.String:
          next = this.#readString(s, i, final);
          break;
        default:
          return i;
      }
      if (next < 0) return -next - 1;
      i = next;
    }
    return s.length;
  }

  /**
   * The block ends at absolute `at` (its close, or the end of the input): open containers
   * close (a repair), or the value is cut short (a failure). Returns whether it reads.
   */
  finish(at: number): boolean {
    if (this.#mode === Mode.Failed) return false;
    if (this.#mode === Mode.Done) return true;
    if (this.#mode === Mode.String) {
      this.#fail(
        'the input ends inside a string: the value is cut short',
        this.#stringAt - this.#offset,
        true,
      );
      return false;
    }
    const stack = this.#stack;
    const top = stack.at(-1);
    if (
      this.#mode === Mode.Colon ||
      (this.#mode === Mode.Value && top !== undefined && top.kind !== Container.Array)
    ) {
      this.#fail('a key has no value', at - this.#offset);
      return false;
    }
    if (stack.length === 0) {
      if (this.#config.top === 'sequence' || this.#result !== undefined) {
        this.#mode = Mode.Done;
        return true;
      }
      this.#fail('no value before the end', at - this.#offset);
      return false;
    }
    this.#repair(`${stack.length} bracket(s) left open`, at - this.#offset);
    while (stack.length > 0) this.#closeContainer(at);
    this.#mode = Mode.Done;
    return true;
  }

  /**
   * The streaming fast path: `chunk` follows what was read, inside a string, and holds nothing
   * that could end it or needs the steps (no quote, no close, no escape but a whole one of one
   * character, nothing a repair is said for): taken as that string's text, decoded, without the
   * steps. False when it needs them.
   */
  appendToString(chunk: string): boolean {
    if (this.#mode !== Mode.String) return false;
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
    const raw = !this.#repaired && this.#config.syntax === Syntax.Json;
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
    for (const close of this.#config.closes)
      if (startsWithAt(chunk, k, close) !== false) return true;
    return false;
  }

  /** Whether a chunk holds nothing that would stop a string's text (searched for each). */
  #holdsNoStop(chunk: string): boolean {
    if (chunk.indexOf(this.#quote) !== -1 || chunk.indexOf('\\') !== -1) return false;
    if (this.#config.closeInStrings)
      for (const close of this.#config.closes) if (chunk.indexOf(close[0]) !== -1) return false;
    return !(!this.#repaired && this.#config.syntax === Syntax.Json && /[\n\r\t]/.test(chunk));
  }

  // --- Steps. Each returns where it got to, or `-(where it waits) - 1`. ---

  #readValue(s: string, i: number, final: boolean): number {
    const j = this.#skip(s, i, final);
    if (j < 0 || j >= s.length) return j < 0 ? j : -j - 1;
    const close = this.#atClose(s, j, final);
    if (close !== false) return close === null ? -j - 1 : this.#closeHere(j);
    const c = s.charCodeAt(j);
    const syntax = this.#config.syntax;
    if (c === 0x7b) return this.#openContainer(Container.Object, j, j + 1, '');
    if (c === 0x5b || (c === 0x28 && syntax === Syntax.Python))
      return this.#openContainer(Container.Array, j, j + 1, '');
    if (c === 0x22 || c === 0x27) return this.#beginString(s[j], false, j, j + 1);
    if (syntax === Syntax.TokenQuoted) {
      const token = this.#config.quoteToken as string;
      const quote = startsWithAt(s, j, token);
      if (quote === null && !final) return -j - 1;
      if (quote === true) return this.#beginString(token, false, j, j + token.length);
    }
    if (c === 0x2d || c === 0x2b || c === 0x2e || (c >= 0x30 && c <= 0x39))
      return this.#readNumber(s, j, final);
    if (isWordStart(c)) return this.#readWord(s, j, final);
    const frame = this.#stack.at(-1);
    if (frame !== undefined && frame.kind === Container.Array && this.#closes(frame, c)) {
      // `[]`, or `[1, 2,]`: a trailing comma before the close.
      if (frame.afterComma) this.#repair('a trailing comma', j);
      return this.#closeAt_(j);
    }
    this.#fail(`a value cannot begin with ${JSON.stringify(s[j])}`, j);
    return -j - 1;
  }

  #readKey(s: string, i: number, final: boolean): number {
    const j = this.#skip(s, i, final);
    if (j < 0 || j >= s.length) return j < 0 ? j : -j - 1;
    const close = this.#atClose(s, j, final);
    if (close !== false) return close === null ? -j - 1 : this.#closeHere(j);
    const c = s.charCodeAt(j);
    const frame = this.#top();
    if (
      (c === 0x7d && frame.kind === Container.Object) ||
      (c === 0x29 && frame.kind === Container.Call)
    ) {
      if (frame.afterComma) this.#repair('a trailing comma', j);
      return this.#closeAt_(j);
    }
    if (frame.kind === Container.Object && (c === 0x22 || c === 0x27))
      return this.#beginString(s[j], true, j, j + 1);
    if (frame.kind === Container.Object && this.#config.syntax === Syntax.TokenQuoted) {
      const token = this.#config.quoteToken as string;
      const quote = startsWithAt(s, j, token);
      if (quote === null && !final) return -j - 1;
      if (quote === true) return this.#beginString(token, true, j, j + token.length);
    }
    if (isWordStart(c)) {
      WORD.lastIndex = j;
      const word = WORD.exec(s);
      const end = word === null ? j : WORD.lastIndex;
      if (end >= s.length && !final) return -j - 1;
      if (frame.kind === Container.Object && this.#config.syntax === Syntax.Json)
        this.#repair('an unquoted key', j);
      this.#setKey((word as RegExpExecArray)[0], j);
      return end;
    }
    this.#fail(`a key cannot begin with ${JSON.stringify(s[j])}`, j);
    return -j - 1;
  }

  #readColon(s: string, i: number, final: boolean): number {
    const j = this.#skip(s, i, final);
    if (j < 0 || j >= s.length) return j < 0 ? j : -j - 1;
    const c = s.charCodeAt(j);
    const wanted = this.#top().kind === Container.Call ? 0x3d : 0x3a;
    if (c !== wanted) {
      this.#fail(
        `${JSON.stringify(this.#top().key)} is not followed by ${String.fromCharCode(wanted)}`,
        this.#keyAt - this.#offset,
      );
      return -j - 1;
    }
    this.#mode = Mode.Value;
    return j + 1;
  }

  #readAfter(s: string, i: number, final: boolean): number {
    const j = this.#skip(s, i, final);
    const skipped = j < 0 ? -j - 1 : j;
    // Remembered across reads: the blanks before a value may come in an earlier chunk.
    if (skipped > i && s.slice(i, skipped).includes('\n')) this.#newlineAfter = true;
    if (j < 0 || j >= s.length) return j < 0 ? j : -j - 1;
    const close = this.#atClose(s, j, final);
    if (close !== false) return close === null ? -j - 1 : this.#closeHere(j);
    const c = s.charCodeAt(j);
    const frame = this.#top();
    if (c === 0x2c) {
      frame.afterComma = true;
      this.#mode = frame.kind === Container.Array ? Mode.Value : Mode.Key;
      return j + 1;
    }
    if (this.#closes(frame, c)) return this.#closeAt_(j);
    // A closer of an enclosing container: the inner ones were left open.
    if (c === 0x5d || c === 0x7d || c === 0x29) {
      const outer = this.#stack.findLastIndex((f) => this.#closes(f, c));
      // Brackets left open inside, not a call: `f(x=1]` is no call a model meant.
      const calls = this.#stack.slice(outer + 1).some((f) => f.kind === Container.Call);
      if (outer !== -1 && !calls) {
        this.#repair(`${JSON.stringify(s[j])} closes what was left open`, j);
        while (this.#stack.length > outer + 1) this.#closeContainer(this.#offset + j);
        return this.#closeAt_(j);
      }
    }
    // No comma between two values: one was forgotten (Python calls may stand one a line).
    if (frame.kind === Container.Array || c === 0x22 || c === 0x27 || isWordStart(c)) {
      if (!(this.#newlineAfter && this.#config.syntax === Syntax.Python))
        this.#repair('a missing comma', j);
      frame.afterComma = true;
      this.#mode = frame.kind === Container.Array ? Mode.Value : Mode.Key;
      return j;
    }
    this.#fail(`${JSON.stringify(s[j])} stands where a comma or a closing bracket belongs`, j);
    return -j - 1;
  }

  /** In a string: its text up to the next quote or escape, told as it is decided. */
  #readString(s: string, i: number, final: boolean): number {
    if (i === this.#stringAt - this.#offset + this.#quote.length && this.#strictStrings) {
      const next = this.#wholeString(s, i, final);
      if (next !== -1) return next;
    }
    const quote = this.#quote;
    const tokenQuoted = this.#tokenQuoted;
    const specials = this.#config.closeInStrings ? this.#config.closes : NONE;
    const ends = this.#stringEnds;
    ends.within(tokenQuoted ? quote[0] : quote);
    for (;;) {
      // Raw newlines and tabs are a repair in JSON: each is told where it stands.
      const checksRaw = this.#config.syntax === Syntax.Json && !this.#repaired;
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
        k = c === this.#closeFirst ? at : s.length;
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
        this.#repair('a raw newline or tab in a string', raw);
        i = raw;
        continue;
      }
      this.#stringText(s.slice(i, end));
      if (k < s.length && k <= stop) {
        this.#closeAt = this.#offset + k;
        this.#fail("the string is cut short by the block's close", this.#stringAt - this.#offset);
        return -k - 1;
      }
      if (stop >= s.length) {
        this.#flushRun();
        return -end - 1;
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
          return -stop - 1;
        }
        // A `<` that may still begin the block's close: more input decides, as whole input would.
        if (!final && specials.some((special) => startsWithAt(s, stop, special) === null)) {
          this.#flushRun();
          return -stop - 1;
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
        return -stop - 1;
      }
      if (closes) return this.#endString(stop + 1);
      this.#repair('a quote inside a string that was not escaped', stop);
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
    const ends = this.#stringEnds;
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
    const json = this.#config.syntax === Syntax.Json;
    if (!escaped && json && !this.#repaired && this.#rawIn(s, i, end)) return -1;
    const specials = this.#config.closeInStrings ? this.#config.closes : NONE;
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
      this.#setKey(text, this.#stringAt - this.#offset);
      return next;
    }
    if (text !== '') this.#events.text(this.#stack.length + 1, text);
    return this.#completeValue(text, next);
  }

  /**
   * Whether a raw newline, return or tab stands in `s` from `i` to `end`. A short string is
   * looked at character by character: a search for a control the text lacks runs to the text's
   * end, and three of them over every message were a tenth of a JSON family's whole reading.
   */
  #rawIn(s: string, i: number, end: number): boolean {
    if (end - i > SHORT_CHUNK) return this.#stringEnds.raw(i) < end;
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

  #beginString(quote: string, isKey: boolean, at: number, next: number): number {
    if (quote === "'" && this.#config.syntax === Syntax.Json)
      this.#repair('a single-quoted string', at);
    this.#quote = quote;
    this.#tokenQuoted = quote === this.#config.quoteToken;
    this.#isKey = isKey;
    this.#text = createPieces();
    this.#stringAt = this.#offset + at;
    this.#mode = Mode.String;
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
    if (!this.#isKey) this.#events.text(this.#stack.length + 1, out);
  }

  #endString(next: number): number {
    this.#flushRun();
    const text = joinPieces(this.#text) + this.#highSurrogate;
    if (this.#highSurrogate !== '' && !this.#isKey)
      this.#events.text(this.#stack.length + 1, this.#highSurrogate);
    this.#highSurrogate = '';
    this.#text = createPieces();
    if (this.#isKey) {
      this.#setKey(text, this.#stringAt - this.#offset);
      return next;
    }
    return this.#completeValue(text, next);
  }

  /**
   * Whether the quote just before `at` closes its string: what follows it (blanks skipped)
   * must fit. A key's close is followed by `:` (`=` in a call); a value's by `,` (and then
   * something that can follow a comma), a closing bracket, the block's close or the end.
   * Python's and a quote token's strings close at their quote: their writers escape.
   */
  #quoteCloses(s: string, at: number, final: boolean): boolean | null {
    // Python's and a quote token's writers escape; a key holds no quote.
    if (this.#config.syntax !== Syntax.Json || this.#isKey) return true;
    const j = blanksEnd(s, at);
    if (j - at > MAX_LOOK) return false;
    if (j >= s.length) return final ? true : null;
    const close = this.#atClose(s, j, final);
    if (close !== false) return close;
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
    const inObject = this.#stack.at(-1)?.kind === Container.Object;
    // A string, a close (a trailing comma), a comment: all can follow a comma.
    if (d === 0x22 || d === 0x27 || d === 0x7d || d === 0x5d || d === 0x2f) return true;
    if (!inObject)
      return d === 0x7b || d === 0x5b || d === 0x2d || (d >= 0x30 && d <= 0x39) || isWordStart(d);
    if (!isWordStart(d)) return false;
    // An unquoted key: a word, then `:`.
    WORD.lastIndex = k;
    if (WORD.exec(s) === null) return false;
    const colon = blanksEnd(s, WORD.lastIndex);
    if (colon >= s.length) return final ? false : colon - at > MAX_LOOK ? false : null;
    return s.charCodeAt(colon) === 0x3a;
  }

  /** The escape at `at` (a backslash): its decoded text; where the string goes on. */
  #readEscape(s: string, at: number, final: boolean): number {
    if (at + 1 >= s.length) return final ? this.#badEscape(s, at) : -at - 1;
    const e = s[at + 1];
    const python = this.#config.syntax === Syntax.Python;
    if (e === 'u' || (python && (e === 'x' || e === 'U'))) {
      const digits = e === 'u' ? 4 : e === 'x' ? 2 : 8;
      if (at + 2 + digits > s.length) return final ? this.#badEscape(s, at) : -at - 1;
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
      this.#repair('an escaped single quote', at);
      this.#stringText("'");
      return at + 2;
    }
    return this.#badEscape(s, at);
  }

  /** What `\` and `e` decode to, when that is one character's escape of the syntax. */
  #oneCharEscape(e: string): string | undefined {
    const table = this.#config.syntax === Syntax.Python ? PYTHON_ESCAPES : JSON_ESCAPES;
    return Object.hasOwn(table, e) ? table[e] : undefined;
  }

  /** An escape that means nothing: kept as written (Python does the same). */
  #badEscape(s: string, at: number): number {
    if (this.#config.syntax === Syntax.Json) this.#repair('an invalid escape, kept as written', at);
    this.#stringText(s.slice(at, at + 2));
    return Math.min(at + 2, s.length);
  }

  // --- Scalars. ---

  #readNumber(s: string, j: number, final: boolean): number {
    NUMBER.lastIndex = j;
    const match = NUMBER.exec(s);
    if (match === null && !final && /^[-+]?\.?$/.test(s.slice(j))) return -j - 1;
    if (match === null) {
      this.#fail(`a value cannot begin with ${JSON.stringify(s[j])}`, j);
      return -j - 1;
    }
    const end = NUMBER.lastIndex;
    // It may go on in the next chunk: digits, or an exponent or fraction begun (`1e`, `2.`).
    if (!final && (end >= s.length || /^(?:[eE][-+]?|\.)$/.test(s.slice(end)))) return -j - 1;
    if (end < s.length && isWordChar(s.charCodeAt(end))) {
      this.#fail(`${JSON.stringify(s.slice(j, end + 1))} is no number`, j);
      return -j - 1;
    }
    let text = match[0];
    if (!isStrictNumber(text)) {
      if (this.#config.syntax === Syntax.Json) this.#repair(`the number ${text}`, j);
      text = text.replace(/_/g, '');
    }
    const value = Number(text);
    const exact = Number.isFinite(value) && (/[.eE]/.test(text) || Number.isSafeInteger(value));
    if (!exact) {
      this.#events.warn(
        'inexact-number',
        `the number ${match[0].length > 40 ? `${match[0].slice(0, 40)}…` : match[0]} cannot be held exactly; it is kept as written, as a string`,
        this.#offset + j,
      );
      return this.#completeValue(match[0], end);
    }
    return this.#completeValue(value, end);
  }

  #readWord(s: string, j: number, final: boolean): number {
    WORD.lastIndex = j;
    const match = WORD.exec(s) as RegExpExecArray;
    const end = WORD.lastIndex;
    if (end >= s.length && !final) return -j - 1;
    const word = match[0];
    if (this.#config.syntax === Syntax.Python) {
      const paren = blanksEnd(s, end);
      if (paren >= s.length && !final && paren - end <= MAX_LOOK) return -j - 1;
      if (s.charCodeAt(paren) === 0x28)
        return this.#openContainer(Container.Call, j, paren + 1, word);
    }
    const literal = Object.hasOwn(WORDS, word) ? WORDS[word] : undefined;
    if (literal === undefined) {
      // `tr` at the very end may be `true` cut short.
      const cut = end >= s.length && Object.keys(WORDS).some((w) => w.startsWith(word));
      this.#fail(`${JSON.stringify(word)} is no value (strings are quoted)`, j, cut);
      return -j - 1;
    }
    if (literal.python && this.#config.syntax === Syntax.Json) this.#repair(`Python's ${word}`, j);
    return this.#completeValue(literal.value, end);
  }

  // --- Containers. ---

  #openContainer(kind: Container, at: number, next: number, name: string): number {
    if (this.#stack.length >= this.#config.maxDepth) {
      this.#fail(`the value nests deeper than ${this.#config.maxDepth} levels`, at);
      this.#depthExceeded = true;
      return -at - 1;
    }
    this.#noteValueStart();
    const value = kind === Container.Array ? [] : createObject();
    this.#stack.push({ kind, value, key: '', afterComma: false, name });
    this.#events.open(this.#stack.length, kind, this.#offset + at, name);
    this.#mode = kind === Container.Array ? Mode.Value : Mode.Key;
    return next;
  }

  /** The value nested deeper than `maxDepth` (a failure of its own code). */
  #depthExceeded = false;
  get depthExceeded(): boolean {
    return this.#depthExceeded;
  }

  #closeAt_(j: number): number {
    this.#closeContainer(this.#offset + j + 1);
    return j + 1;
  }

  #closeContainer(end: number): void {
    const frame = this.#stack.pop() as Frame;
    this.#finishValue(
      frame.kind === Container.Call ? callValue(frame) : (frame.value as JsonValue),
      end,
    );
  }

  #completeValue(value: JsonValue, next: number): number {
    this.#noteValueStart();
    this.#finishValue(value, this.#offset + next);
    return next;
  }

  /** A value begins in the container on top (or at the top level). */
  #noteValueStart(): void {
    const frame = this.#stack.at(-1);
    if (frame !== undefined) frame.afterComma = false;
  }

  #finishValue(value: JsonValue, end: number): void {
    const depth = this.#stack.length + 1;
    const frame = this.#stack.at(-1);
    if (frame === undefined) {
      this.#events.value(depth, value, end);
      this.#result = value;
      this.#mode = this.#config.top === 'value' ? Mode.Done : Mode.Value;
      return;
    }
    if (frame.kind === Container.Array) (frame.value as JsonValue[]).push(value);
    else (frame.value as ToolArguments)[frame.key] = value;
    this.#events.value(depth, value, end);
    this.#mode = Mode.After;
    this.#newlineAfter = false;
  }

  #keyAt = 0;
  /** Whether a newline stood between the last value and what follows it (Python's calls). */
  #newlineAfter = false;

  #setKey(written: string, at: number): void {
    // The property key the value is stored under (see names.ts).
    const key = sharedName(written);
    const frame = this.#top();
    frame.key = key;
    frame.afterComma = false;
    this.#keyAt = this.#offset + at;
    this.#events.key(this.#stack.length, key, this.#offset + at);
    this.#mode = Mode.Colon;
  }

  #closes(frame: Frame, c: number): boolean {
    return (
      (c === 0x7d && frame.kind === Container.Object) ||
      (c === 0x5d && frame.kind === Container.Array) ||
      (c === 0x29 && (frame.kind === Container.Call || frame.kind === Container.Array))
    );
  }

  #top(): Frame {
    return this.#stack[this.#stack.length - 1];
  }

  // --- Around values: blanks, comments, the block's close. ---

  /** Past blanks and comments; `-(where) - 1` when more input must decide. */
  #skip(s: string, i: number, final: boolean): number {
    for (;;) {
      i = blanksEnd(s, i);
      if (i >= s.length) return i;
      const c = s.charCodeAt(i);
      const python = this.#config.syntax === Syntax.Python;
      if (c === 0x23 && python) {
        const nl = s.indexOf('\n', i);
        if (nl === -1) return final ? s.length : -i - 1;
        i = nl + 1;
        continue;
      }
      if (c !== 0x2f || python) return i;
      const next = s.charCodeAt(i + 1);
      if (i + 1 >= s.length) return final ? i : -i - 1;
      if (next === 0x2f) {
        const nl = s.indexOf('\n', i);
        if (nl === -1) return final ? s.length : -i - 1;
        this.#repair('a comment', i);
        i = nl + 1;
      } else if (next === 0x2a) {
        const end = s.indexOf('*/', i + 2);
        if (end === -1) return final ? s.length : -i - 1;
        this.#repair('a comment', i);
        i = end + 2;
      } else return i;
    }
  }

  /** Whether a close of the block stands at `j`: null while the input ends inside one. */
  #atClose(s: string, j: number, final: boolean): boolean | null {
    let waiting = false;
    for (const close of this.#config.closes) {
      if (s.charCodeAt(j) !== close.charCodeAt(0)) continue;
      const at = startsWithAt(s, j, close);
      if (at === true) return true;
      if (at === null && !final) waiting = true;
    }
    return waiting ? null : false;
  }

  #closeHere(j: number): number {
    this.#closeAt = this.#offset + j;
    this.#mode = Mode.Closed;
    return -j - 1;
  }

  // --- Mistakes. ---

  #repair(what: string, at: number): void {
    if (this.#repaired) return;
    this.#flushRun();
    this.#repaired = true;
    this.#events.warn(
      'repaired-json',
      `the JSON is not strict (${what}); it was read as meant, write strict JSON`,
      this.#offset + at,
    );
  }

  #fail(message: string, at: number, cut = false): void {
    this.#flushRun();
    if (this.#failure === null) this.#failure = { message, at: this.#offset + at, cut };
    this.#mode = Mode.Failed;
  }
}

/** Why a value is none, where; `cut` when the input ended inside it (it was cut short). */
export interface ReadFailure {
  message: string;
  at: number;
  cut: boolean;
}

/** A Python call, as the JSON call object it means. */
function callValue(frame: Frame): JsonValue {
  const call = createObject();
  call.name = frame.name;
  call.arguments = frame.value as ToolArguments;
  return call;
}

const NONE: readonly string[] = [];
/** The closes a string cannot hold begin with different characters. */
const MIXED_FIRSTS = -2;
/** A chunk, or a rest of text, this short is looked at character by character for its stops. */
const SHORT_CHUNK = 32;
/** The most decoded text gathered before it is handed on. */
const RUN_FLUSH = 4096;

/** Where a literal next stands in a text, found once and kept while it stands ahead. */
class Search {
  #from = 0;
  #at = -1;

  clear(): void {
    this.#at = -1;
  }

  /** The first `literal` at or after `i` in `text` (`text.length` when none). */
  next(text: string, literal: string, i: number): number {
    if (this.#at < i || this.#from > i) {
      this.#from = i;
      this.#at = indexOrEnd(text, literal, i);
    }
    return this.#at;
  }
}

/**
 * Where, in one text, what ends a run of a string's literal text next stands: its quote, a
 * backslash, a special close, a raw newline or tab. Searching again at each escape or quote
 * is quadratic in a string of them, and searching at each string for a character the text
 * lacks is quadratic in a text of strings: each search is kept for the text while it stands
 * ahead, across reads (a whole message is one text read once per call).
 */
export class StringEnds {
  #text = '';
  #quoteChar = '';
  #specialsOf: readonly string[] = [];
  /** The search for those closes: harmony's four ends are one search for `<|`, not four. */
  #specials = new LiteralsSearch([]);
  readonly #quote = new Search();
  readonly #backslash = new Search();
  /** The first close at or after `#specialFrom`: a close the text lacks is searched for once. */
  #specialFrom = 0;
  #specialAt = -1;
  readonly #raw = RAW_CONTROLS.map(() => new Search());

  /** The text the next searches are in. */
  reset(text: string): void {
    if (this.#text === text) return;
    this.#text = text;
    this.#quote.clear();
    this.#backslash.clear();
    this.#specialAt = -1;
    for (const search of this.#raw) search.clear();
  }

  /** The quote of the string being read (Python mixes `'` and `"`). */
  within(quoteChar: string): void {
    if (this.#quoteChar !== quoteChar) this.#quote.clear();
    this.#quoteChar = quoteChar;
  }

  quote(i: number): number {
    return this.#quote.next(this.#text, this.#quoteChar, i);
  }

  backslash(i: number): number {
    return this.#backslash.next(this.#text, '\\', i);
  }

  /**
   * The first of the block's closes. Their common beginning is searched for, and each place it
   * stands is checked: each close searched for on its own cost a pass over the rest of the text
   * each (a fifth of gpt-oss's time).
   */
  special(specials: readonly string[], i: number): number {
    if (!sameLiterals(specials, this.#specialsOf)) {
      this.#specialsOf = specials;
      this.#specials = new LiteralsSearch(specials);
      this.#specialAt = -1;
    }
    if (this.#specialAt >= i && this.#specialFrom <= i) return this.#specialAt;
    const found = this.#specials.first(this.#text, i);
    const at = found === -1 ? this.#text.length : found;
    this.#specialFrom = i;
    this.#specialAt = at;
    return at;
  }

  raw(i: number): number {
    let first = this.#text.length;
    for (let c = 0; c < RAW_CONTROLS.length; c++)
      first = Math.min(first, this.#raw[c].next(this.#text, RAW_CONTROLS[c], i));
    return first;
  }
}
const RAW_CONTROLS = ['\n', '\r', '\t'];

function sameLiterals(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** Whether the quote at `at` is escaped: an odd run of backslashes (after `from`) before it. */
function isEscaped(s: string, at: number, from: number): boolean {
  let k = at;
  while (k > from && s.charCodeAt(k - 1) === 0x5c) k--;
  return (at - k) % 2 === 1;
}

/** Where `c` next stands in `s` from `i`, or the length of `s`. */
function indexOrEnd(s: string, c: string, i: number): number {
  const at = s.indexOf(c, i);
  return at === -1 ? s.length : at;
}

function blanksEnd(s: string, i: number): number {
  while (i < s.length && isWhitespace(s.charCodeAt(i))) i++;
  return i;
}

/** JSON's number grammar exactly: no `+`, no leading zeros, no bare dot, no `_`. */
function isStrictNumber(text: string): boolean {
  return /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?$/.test(text);
}

export type ModelValue =
  | {
      ok: true;
      value: JsonValue;
      /** Warnings, in the order of the text, at offsets in it. */
      warnings: Array<{ code: 'repaired-json' | 'inexact-number'; message: string; at: number }>;
    }
  | { ok: false; code: 'invalid-json' | 'max-depth-exceeded'; message: string; at: number };

/**
 * A whole text read as one value (the deprecated `<tool>` JSON form, `arguments` written as a
 * JSON string, a tool's argument written as JSON text): what the streaming reader reads.
 */
export function readModelValue(
  text: string,
  syntax: Syntax = Syntax.Json,
  maxDepth = 32,
): ModelValue {
  const warnings: Array<{ code: 'repaired-json' | 'inexact-number'; message: string; at: number }> =
    [];
  const reader = new ModelJsonReader(
    { syntax, top: 'value', closes: NONE, closeInStrings: false, maxDepth },
    {
      open() {},
      key() {},
      text() {},
      value() {},
      warn(code, message, at) {
        warnings.push({ code, message, at });
      },
    },
  );
  const read = reader.read(text, 0, 0, true);
  const rest = text.slice(read).trim();
  if (reader.failure === null && (!reader.done || rest === '') && !reader.finish(text.length))
    void 0;
  const failure = reader.failure;
  if (failure !== null)
    return {
      ok: false,
      code: reader.depthExceeded ? 'max-depth-exceeded' : 'invalid-json',
      message: failure.message,
      at: failure.at,
    };
  if (rest !== '' && reader.done)
    return { ok: false, code: 'invalid-json', message: 'text follows the value', at: read };
  return { ok: true, value: reader.result as JsonValue, warnings };
}
