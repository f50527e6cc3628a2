import { Char } from './chars.js';

/** `match` could not decide yet: more input is needed. */
export const UNDECIDED = -1;
/** No `]` closes the bracket within the span. */
export const UNMATCHED = -2;

/**
 * Finds the `]` that matches a `[` (brackets nest), looking at most `maxSpan` characters ahead.
 *
 * One matcher serves a whole stream and remembers every pair it has read: when a `[` turns out
 * not to be thinking, the parser goes on just after it and asks again for the next line-start
 * `[`, which usually lies inside the span already read. Re-reading that span per bracket would
 * cost O(n · maxSpan) on input like `[\n[\n[\n…`; remembering keeps it O(n).
 */
export class BracketMatcher {
  readonly #maxSpan: number;
  /** Absolute offset up to which brackets have been read. */
  #scanned = 0;
  /** Offsets of `[` read and not yet closed, ascending; entries below `#base` no longer matter. */
  #open: number[] = NO_OPEN;
  #base = 0;
  /**
   * Close offset of every `[` paired since the last restart; made at the first pair (a parser
   * that never meets a line-start `[` keeps no table: a class, and these made when needed,
   * took the matcher from 5 closures and a context to one object a parser).
   */
  #closes: Map<number, number> | null = null;

  constructor(maxSpan: number) {
    this.#maxSpan = maxSpan;
  }

  /**
   * Reads `text` (which starts at absolute offset `textStart`) far enough to decide the `[` at
   * offset `at`. Returns the offset of its `]`, `UNDECIDED`, or `UNMATCHED`.
   * Calls come in ascending order of `at`.
   */
  match(at: number, text: string, textStart: number): number {
    const known = this.#closes?.get(at);
    if (known !== undefined) return known;
    const index = at < this.#scanned ? this.#findOpen(at) : -1;
    if (index === -1) this.#restartAt(at);
    else this.#base = index;
    const limit = at + this.#maxSpan;
    const end = Math.min(textStart + text.length, limit + 1);
    for (let i = Math.max(this.#scanned, textStart); i < end; i++) {
      const c = text.charCodeAt(i - textStart);
      if (c === Char.OpenBracket) {
        if (this.#open === NO_OPEN) this.#open = [];
        this.#open.push(i);
      } else if (c === Char.CloseBracket && this.#open.length > this.#base) {
        const opener = this.#open.pop() as number;
        this.#closes ??= new Map();
        this.#closes.set(opener, i);
        if (opener === at) {
          this.#scanned = i + 1;
          return i;
        }
      }
    }
    if (end > this.#scanned) this.#scanned = end;
    return this.#scanned > limit ? UNMATCHED : UNDECIDED;
  }

  reset(): void {
    this.#restartAt(0);
  }

  #restartAt(at: number): void {
    this.#scanned = at;
    if (this.#open.length > 0) this.#open = NO_OPEN;
    this.#base = 0;
    // Clearing a map makes it a new table even when it is empty (about 120 ns): once a reply.
    if (this.#closes !== null && this.#closes.size > 0) this.#closes.clear();
  }

  /** Index of `at` in `#open` (sorted), or -1. */
  #findOpen(at: number): number {
    const open = this.#open;
    let lo = this.#base;
    let hi = open.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (open[mid] === at) return mid;
      if (open[mid] < at) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

/** No `[` open: shared, never written (the first `[` makes a list of the matcher's own). */
const NO_OPEN: number[] = [];
