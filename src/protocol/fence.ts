import { isLineEnd, isSpaceOrTab } from './chars.js';

/**
 * Markdown fences (``` or ~~~ lines) as the parser meets them line by line: a construct in a
 * fence is text, except that a fence holding only calls and blank lines so far is read as
 * calls (models fence their calls). A marker line is looked at only so far (`lookahead`):
 * past that it is content.
 */
export class Fence {
  /** Inside a fence. */
  open = false;
  /** The fence holds only calls and blank lines so far: a `<tool>` line in it is a call. */
  callable = false;
  #char = 0;
  #length = 0;

  constructor(private readonly lookahead: number) {}

  /**
   * A line of `s` that starts at `i` with a backtick or tilde `c`: true when it opens or
   * closes a fence, false when it is content, null when the input ends before that is decided.
   */
  line(s: string, i: number, c: number, final: boolean): boolean | null {
    const n = s.length;
    let k = i;
    const limit = i + this.lookahead;
    while (k < n && k < limit && s.charCodeAt(k) === c) k++;
    if (k >= limit) return false;
    // Row 'fence-line' of the end-of-input table: decided at the end, the line is text either way.
    if (k >= n && !final) return null;
    const run = k - i;
    if (run < 3) return false;
    if (!this.open) {
      this.open = true;
      this.#char = c;
      this.#length = run;
      this.callable = true;
      return true;
    }
    if (c !== this.#char || run < this.#length) return false;
    while (k < n && k < limit && isSpaceOrTab(s.charCodeAt(k))) k++;
    if (k >= limit) return false;
    if (k >= n && !final) return null;
    if (k < n && !isLineEnd(s.charCodeAt(k))) return false;
    this.open = false;
    return true;
  }

  reset(): void {
    this.open = false;
    this.callable = false;
  }
}
