/**
 * Where, in one text, what ends a run of a string's literal text next stands: the searches a
 * string reader keeps across reads (see StringEnds).
 */
import { LiteralsSearch } from '../tag.js';

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
export function isEscaped(s: string, at: number, from: number): boolean {
  let k = at;
  while (k > from && s.charCodeAt(k - 1) === 0x5c) k--;
  return (at - k) % 2 === 1;
}

/** Where `c` next stands in `s` from `i`, or the length of `s`. */
export function indexOrEnd(s: string, c: string, i: number): number {
  const at = s.indexOf(c, i);
  return at === -1 ? s.length : at;
}
