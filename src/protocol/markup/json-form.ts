import { Char } from '../chars.js';
import { startsWithAt } from '../tag.js';

/** Where the JSON object of a call's deprecated JSON form (`{…}` as its body) stands after a step. */
export enum JsonFormEnd {
  /** Still inside the object. */
  Open = 0,
  /** Its closing brace was read: the call's close should follow. */
  Object = 1,
  /** The call's close came where the object was still open: the object is broken, the block ends. */
  CallClose = 2,
}

/**
 * The object of the deprecated JSON form, gathered as it streams: up to its closing brace
 * (braces and brackets counted outside strings), or up to the call's close that ends a broken
 * one (`<` cannot stand outside a JSON string). Each character is looked at once, across chunks.
 */
export class JsonFormBody {
  readonly #close: string;
  /** Absolute offset of the object's `{`. */
  start = 0;
  #pieces: string[] = [];
  #depth = 0;
  #inString = false;
  #escape = false;

  /** `close`: the call's closing tag. */
  constructor(close: string) {
    this.#close = close;
  }

  begin(start: number): void {
    this.start = start;
    this.#pieces = [];
    this.#depth = 0;
    this.#inString = false;
    this.#escape = false;
  }

  /** Reads `buf` from `i`; returns where it stopped, and in `ended` how. */
  run(buf: string, i: number, final: boolean): number {
    const n = buf.length;
    const start = i;
    this.ended = JsonFormEnd.Open;
    for (; i < n; i++) {
      const c = buf.charCodeAt(i);
      if (this.#inString) {
        if (this.#escape) this.#escape = false;
        else if (c === Char.Backslash) this.#escape = true;
        else if (c === Char.Quote) this.#inString = false;
      } else if (c === Char.Quote) this.#inString = true;
      else if (c === Char.OpenBrace || c === Char.OpenBracket) this.#depth++;
      else if (c === Char.CloseBrace || c === Char.CloseBracket) {
        this.#depth--;
        if (this.#depth === 0) {
          this.#pieces.push(buf.slice(start, i + 1));
          this.ended = JsonFormEnd.Object;
          return i + 1;
        }
      } else if (c === Char.Lt) {
        const close = startsWithAt(buf, i, this.#close);
        if (close === null && !final) break;
        if (close === true) {
          this.#pieces.push(buf.slice(start, i));
          this.ended = JsonFormEnd.CallClose;
          return i;
        }
      }
    }
    this.#pieces.push(buf.slice(start, i));
    return i;
  }

  ended = JsonFormEnd.Open;

  /** The object's text, gathered. */
  take(): string {
    const json = this.#pieces.join('');
    this.#pieces = [];
    return json;
  }
}
