import { wait, waitedAt } from '../block.js';
import type { JsonValue, ToolArguments } from '../events.js';
import { LOOKAHEAD } from '../lookahead.js';
import { createObject } from '../markup/arguments-tree.js';
import { sharedName } from '../names.js';
import { startsWithAt } from '../tag.js';
import {
  blanksEnd,
  type CUT_CLOSE,
  type Frame,
  isWordStart,
  Mode,
  ModelStringReader,
  NONE,
  WORD,
} from './model-strings.js';
import { Container, Syntax, type ValueRepair } from './value-events.js';

/** How many blanks may stand between a Python call's name and its `(`. */
const MAX_PAREN_LOOK = LOOKAHEAD.pythonCallParen.value;

/** What a reader of values is given and tells: its API, with the reader's. */
export {
  Container,
  type ReaderConfig,
  type ReadFailure,
  Syntax,
  type ValueEvents,
} from './value-events.js';

const isWordChar = (c: number) =>
  isWordStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2d;
const NUMBER = /[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?/y;

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
export class ModelJsonReader extends ModelStringReader {
  /** The top-level value, once complete. */
  #result: JsonValue | undefined = undefined;

  /** The top-level value is complete (and, for a value body, the body too). */
  get done(): boolean {
    return this.mode === Mode.Done;
  }

  /** A sequence's reader between two complete top-level values: nothing is left open. */
  get betweenValues(): boolean {
    return this.stack.length === 0 && this.mode === Mode.Value && this.#result !== undefined;
  }

  /**
   * The closers a value still needs where one was just read (no comma after it), innermost
   * first, when what is open is exactly `open` (outermost first): where row 'body-list-open'
   * of the end of the input reads calls. Null when anything else is open.
   */
  closersAfterValue(open: readonly Container[]): string | null {
    const stack = this.stack;
    if (this.mode !== Mode.After || stack.length !== open.length) return null;
    if (stack.some((frame, i) => frame.kind !== open[i])) return null;
    return open
      .map((kind) => (kind === Container.Array ? ']' : '}'))
      .reverse()
      .join('');
  }

  /** Closes what is open where the input ended: no repair, the end of the input tells it. */
  closeOpen(at: number): void {
    while (this.stack.length > 0) this.#closeContainer(at);
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
    this.offset = offset;
    this.stringEnds.reset(s);
    let i = from;
    while (i <= s.length) {
      let next: number;
      switch (this.mode) {
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
          next = this.readString(s, i, final);
          break;
        default:
          return i;
      }
      if (next < 0) return waitedAt(next);
      i = next;
    }
    return s.length;
  }

  /**
   * The block ends at absolute `at` (its close, or the end of the input): open containers
   * close (a repair), or the value is cut short (a failure). Returns whether it reads.
   */
  finish(at: number): boolean {
    if (this.mode === Mode.Failed) return false;
    if (this.mode === Mode.Done) return true;
    if (this.mode === Mode.String) {
      this.failInString();
      return false;
    }
    const stack = this.stack;
    const top = stack.at(-1);
    if (
      this.mode === Mode.Colon ||
      (this.mode === Mode.Value && top !== undefined && top.kind !== Container.Array)
    ) {
      this.fail('a key has no value', at - this.offset);
      return false;
    }
    if (stack.length === 0) {
      if (this.config.top === 'sequence' || this.#result !== undefined) {
        this.mode = Mode.Done;
        return true;
      }
      this.fail('no value before the end', at - this.offset);
      return false;
    }
    this.repair('brackets-left-open', at - this.offset, { count: `${stack.length}` });
    while (stack.length > 0) this.#closeContainer(at);
    this.mode = Mode.Done;
    return true;
  }

  // --- Steps. Each returns where it got to, or `-(where it waits) - 1`. ---

  #readValue(s: string, i: number, final: boolean): number {
    const j = this.#skip(s, i, final);
    if (j < 0 || j >= s.length) return j < 0 ? j : wait(j);
    const close = this.atClose(s, j, final);
    if (close !== false) return this.#atCloseStep(s, j, close);
    const c = s.charCodeAt(j);
    const syntax = this.config.syntax;
    if (c === 0x7b) return this.#openContainer(Container.Object, j, j + 1, '');
    if (c === 0x5b || (c === 0x28 && syntax === Syntax.Python))
      return this.#openContainer(Container.Array, j, j + 1, '');
    if (c === 0x22 || c === 0x27) return this.beginString(s[j], false, j, j + 1);
    if (syntax === Syntax.TokenQuoted) {
      const token = this.config.quoteToken as string;
      const quote = startsWithAt(s, j, token);
      if (quote === null && !final) return wait(j);
      if (quote === true) return this.beginString(token, false, j, j + token.length);
    }
    if (c === 0x2d || c === 0x2b || c === 0x2e || (c >= 0x30 && c <= 0x39))
      return this.#readNumber(s, j, final);
    if (isWordStart(c)) return this.#readWord(s, j, final);
    const frame = this.stack.at(-1);
    if (frame !== undefined && frame.kind === Container.Array && this.#closes(frame, c)) {
      // `[]`, or `[1, 2,]`: a trailing comma before the close.
      if (frame.afterComma) this.repair('trailing-comma', j);
      return this.#closeAt_(j);
    }
    this.fail(`a value cannot begin with ${JSON.stringify(s[j])}`, j);
    return wait(j);
  }

  #readKey(s: string, i: number, final: boolean): number {
    const j = this.#skip(s, i, final);
    if (j < 0 || j >= s.length) return j < 0 ? j : wait(j);
    const close = this.atClose(s, j, final);
    if (close !== false) return this.#atCloseStep(s, j, close);
    const c = s.charCodeAt(j);
    const frame = this.#top();
    if (
      (c === 0x7d && frame.kind === Container.Object) ||
      (c === 0x29 && frame.kind === Container.Call)
    ) {
      if (frame.afterComma) this.repair('trailing-comma', j);
      return this.#closeAt_(j);
    }
    if (frame.kind === Container.Object && (c === 0x22 || c === 0x27))
      return this.beginString(s[j], true, j, j + 1);
    if (frame.kind === Container.Object && this.config.syntax === Syntax.TokenQuoted) {
      const token = this.config.quoteToken as string;
      const quote = startsWithAt(s, j, token);
      if (quote === null && !final) return wait(j);
      if (quote === true) return this.beginString(token, true, j, j + token.length);
    }
    if (isWordStart(c)) {
      WORD.lastIndex = j;
      const word = WORD.exec(s);
      const end = word === null ? j : WORD.lastIndex;
      if (end >= s.length && !final) return wait(j);
      if (frame.kind === Container.Object && this.config.syntax === Syntax.Json)
        this.repair('unquoted-key', j);
      this.setKey((word as RegExpExecArray)[0], j);
      return end;
    }
    this.fail(`a key cannot begin with ${JSON.stringify(s[j])}`, j);
    return wait(j);
  }

  #readColon(s: string, i: number, final: boolean): number {
    const j = this.#skip(s, i, final);
    if (j < 0 || j >= s.length) return j < 0 ? j : wait(j);
    const c = s.charCodeAt(j);
    const wanted = this.#top().kind === Container.Call ? 0x3d : 0x3a;
    if (c !== wanted) {
      this.fail(
        `${JSON.stringify(this.#top().key)} is not followed by ${String.fromCharCode(wanted)}`,
        this.#keyAt - this.offset,
      );
      return wait(j);
    }
    this.mode = Mode.Value;
    return j + 1;
  }

  #readAfter(s: string, i: number, final: boolean): number {
    const j = this.#skip(s, i, final);
    const skipped = j < 0 ? waitedAt(j) : j;
    // Remembered across reads: the blanks before a value may come in an earlier chunk.
    if (skipped > i && s.slice(i, skipped).includes('\n')) this.#newlineAfter = true;
    if (j < 0 || j >= s.length) return j < 0 ? j : wait(j);
    const close = this.atClose(s, j, final);
    if (close !== false) return this.#atCloseStep(s, j, close);
    const c = s.charCodeAt(j);
    const frame = this.#top();
    if (c === 0x2c) {
      frame.afterComma = true;
      this.mode = frame.kind === Container.Array ? Mode.Value : Mode.Key;
      return j + 1;
    }
    if (this.#closes(frame, c)) return this.#closeAt_(j);
    // A closer of an enclosing container: the inner ones were left open.
    if (c === 0x5d || c === 0x7d || c === 0x29) {
      const outer = this.stack.findLastIndex((f) => this.#closes(f, c));
      // Brackets left open inside, not a call: `f(x=1]` is no call a model meant.
      const calls = this.stack.slice(outer + 1).some((f) => f.kind === Container.Call);
      if (outer !== -1 && !calls) {
        this.repair('mismatched-bracket', j, { bracket: JSON.stringify(s[j]) });
        while (this.stack.length > outer + 1) this.#closeContainer(this.offset + j);
        return this.#closeAt_(j);
      }
    }
    // No comma between two values: one was forgotten (Python calls may stand one a line).
    if (frame.kind === Container.Array || c === 0x22 || c === 0x27 || isWordStart(c)) {
      if (!(this.#newlineAfter && this.config.syntax === Syntax.Python))
        this.repair('missing-comma', j);
      frame.afterComma = true;
      this.mode = frame.kind === Container.Array ? Mode.Value : Mode.Key;
      return j;
    }
    this.fail(`${JSON.stringify(s[j])} stands where a comma or a closing bracket belongs`, j);
    return wait(j);
  }

  // --- Scalars. ---

  #readNumber(s: string, j: number, final: boolean): number {
    NUMBER.lastIndex = j;
    const match = NUMBER.exec(s);
    if (match === null && !final && /^[-+]?\.?$/.test(s.slice(j))) return wait(j);
    if (match === null) {
      this.fail(`a value cannot begin with ${JSON.stringify(s[j])}`, j);
      return wait(j);
    }
    const end = NUMBER.lastIndex;
    // It may go on in the next chunk: digits, or an exponent or fraction begun (`1e`, `2.`).
    if (!final && (end >= s.length || /^(?:[eE][-+]?|\.)$/.test(s.slice(end)))) return wait(j);
    if (end < s.length && isWordChar(s.charCodeAt(end))) {
      this.fail(`${JSON.stringify(s.slice(j, end + 1))} is no number`, j);
      return wait(j);
    }
    let text = match[0];
    if (!isStrictNumber(text)) {
      if (this.config.syntax === Syntax.Json) this.repair('loose-number', j, { number: text });
      text = text.replace(/_/g, '');
    }
    const value = Number(text);
    const exact = Number.isFinite(value) && (/[.eE]/.test(text) || Number.isSafeInteger(value));
    if (!exact) {
      const shown = match[0].length > 40 ? `${match[0].slice(0, 40)}…` : match[0];
      this.events.repaired('inexact-number', this.offset + j, { number: shown });
      return this.completeValue(match[0], end);
    }
    return this.completeValue(value, end);
  }

  /** What a step does where `atClose` found (the start of) a close at `j`. */
  #atCloseStep(s: string, j: number, close: true | null | typeof CUT_CLOSE): number {
    if (close === true) return this.closeHere(j);
    // Inside a close the input ended in: read to its end, where the end of the input decides.
    return close === null ? wait(j) : wait(s.length);
  }

  #readWord(s: string, j: number, final: boolean): number {
    WORD.lastIndex = j;
    const match = WORD.exec(s) as RegExpExecArray;
    const end = WORD.lastIndex;
    if (end >= s.length && !final) return wait(j);
    const word = match[0];
    // At the end of the input a word is what it is: a literal cut short, or in Python a call's
    // name cut before its `(`, is cut (row 'body-value-cut'), any other is no value (row
    // 'body-word-at-end').
    if (this.config.syntax === Syntax.Python) {
      // Blanks past the bound end the look, whole as in chunks: the word is then no call.
      const paren = blanksEnd(s, end);
      if (paren - end <= MAX_PAREN_LOOK) {
        if (paren >= s.length && !final) return wait(j);
        if (s.charCodeAt(paren) === 0x28)
          return this.#openContainer(Container.Call, j, paren + 1, word);
      }
    }
    const literal = Object.hasOwn(WORDS, word) ? WORDS[word] : undefined;
    if (literal === undefined) {
      // `tr` at the very end may be `true` cut short.
      const cut =
        end >= s.length &&
        (this.config.syntax === Syntax.Python ||
          Object.keys(WORDS).some((w) => w.startsWith(word)));
      this.fail(`${JSON.stringify(word)} is no value (strings are quoted)`, j, cut);
      return wait(j);
    }
    if (literal.python && this.config.syntax === Syntax.Json)
      this.repair('python-literal', j, { word });
    return this.completeValue(literal.value, end);
  }

  // --- Containers. ---

  #openContainer(kind: Container, at: number, next: number, name: string): number {
    if (this.stack.length >= this.config.maxDepth) {
      this.fail(`the value nests deeper than ${this.config.maxDepth} levels`, at);
      this.#depthExceeded = true;
      return wait(at);
    }
    this.#noteValueStart();
    const value = kind === Container.Array ? [] : createObject();
    this.stack.push({ kind, value, key: '', afterComma: false, name });
    this.events.open(this.stack.length, kind, this.offset + at, name);
    this.mode = kind === Container.Array ? Mode.Value : Mode.Key;
    return next;
  }

  /** The value nested deeper than `maxDepth` (a failure of its own code). */
  #depthExceeded = false;
  get depthExceeded(): boolean {
    return this.#depthExceeded;
  }

  #closeAt_(j: number): number {
    this.#closeContainer(this.offset + j + 1);
    return j + 1;
  }

  #closeContainer(end: number): void {
    const frame = this.stack.pop() as Frame;
    this.#finishValue(
      frame.kind === Container.Call ? callValue(frame) : (frame.value as JsonValue),
      end,
    );
  }

  protected completeValue(value: JsonValue, next: number): number {
    this.#noteValueStart();
    this.#finishValue(value, this.offset + next);
    return next;
  }

  /** A value begins in the container on top (or at the top level). */
  #noteValueStart(): void {
    const frame = this.stack.at(-1);
    if (frame !== undefined) frame.afterComma = false;
  }

  #finishValue(value: JsonValue, end: number): void {
    const depth = this.stack.length + 1;
    const frame = this.stack.at(-1);
    if (frame === undefined) {
      this.events.value(depth, value, end);
      this.#result = value;
      this.mode = this.config.top === 'value' ? Mode.Done : Mode.Value;
      return;
    }
    if (frame.kind === Container.Array) (frame.value as JsonValue[]).push(value);
    else (frame.value as ToolArguments)[frame.key] = value;
    this.events.value(depth, value, end);
    this.mode = Mode.After;
    this.#newlineAfter = false;
  }

  #keyAt = 0;
  /** Whether a newline stood between the last value and what follows it (Python's calls). */
  #newlineAfter = false;

  protected setKey(written: string, at: number): void {
    // The property key the value is stored under (see names.ts).
    const key = sharedName(written);
    const frame = this.#top();
    frame.key = key;
    frame.afterComma = false;
    this.#keyAt = this.offset + at;
    this.events.key(this.stack.length, key, this.offset + at);
    this.mode = Mode.Colon;
  }

  #closes(frame: Frame, c: number): boolean {
    return (
      (c === 0x7d && frame.kind === Container.Object) ||
      (c === 0x5d && frame.kind === Container.Array) ||
      (c === 0x29 && (frame.kind === Container.Call || frame.kind === Container.Array))
    );
  }

  #top(): Frame {
    return this.stack[this.stack.length - 1];
  }

  // --- Around values: blanks, comments, the block's close. ---

  /** Past blanks and comments; `-(where) - 1` when more input must decide. */
  #skip(s: string, i: number, final: boolean): number {
    for (;;) {
      i = blanksEnd(s, i);
      if (i >= s.length) return i;
      const c = s.charCodeAt(i);
      const python = this.config.syntax === Syntax.Python;
      if (c === 0x23 && python) {
        const nl = s.indexOf('\n', i);
        if (nl === -1) return final ? s.length : wait(i);
        i = nl + 1;
        continue;
      }
      if (c !== 0x2f || python) return i;
      const next = s.charCodeAt(i + 1);
      if (i + 1 >= s.length) return final ? i : wait(i);
      if (next === 0x2f) {
        const nl = s.indexOf('\n', i);
        if (nl === -1) return final ? s.length : wait(i);
        this.repair('comment', i);
        i = nl + 1;
      } else if (next === 0x2a) {
        const end = s.indexOf('*/', i + 2);
        if (end === -1) return final ? s.length : wait(i);
        this.repair('comment', i);
        i = end + 2;
      } else return i;
    }
  }
}

/** A Python call, as the JSON call object it means. */
function callValue(frame: Frame): JsonValue {
  const call = createObject();
  call.name = frame.name;
  call.arguments = frame.value as ToolArguments;
  return call;
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
      warnings: ValueRepair[];
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
  const warnings: ValueRepair[] = [];
  const reader = new ModelJsonReader(
    { syntax, top: 'value', closes: NONE, closeInStrings: false, maxDepth },
    {
      open() {},
      key() {},
      text() {},
      value() {},
      repaired(kind, at, values) {
        warnings.push(values === undefined ? { kind, at } : { kind, at, values });
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
