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
export function createBracketMatcher(maxSpan: number) {
  /** Absolute offset up to which brackets have been read. */
  let scanned = 0;
  /** Offsets of `[` read and not yet closed, ascending; entries below `base` no longer matter. */
  let open: number[] = [];
  let base = 0;
  /** Close offset of every `[` paired since the last restart. */
  const closes = new Map<number, number>();

  function restartAt(at: number): void {
    scanned = at;
    if (open.length > 0) open = [];
    base = 0;
    // Clearing a map makes it a new table even when it is empty (about 120 ns): once a reply.
    if (closes.size > 0) closes.clear();
  }

  /** Index of `at` in `open` (sorted), or -1. */
  function findOpen(at: number): number {
    let lo = base;
    let hi = open.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (open[mid] === at) return mid;
      if (open[mid] < at) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  return {
    /**
     * Reads `text` (which starts at absolute offset `textStart`) far enough to decide the `[` at
     * offset `at`. Returns the offset of its `]`, `UNDECIDED`, or `UNMATCHED`.
     * Calls come in ascending order of `at`.
     */
    match(at: number, text: string, textStart: number): number {
      const known = closes.get(at);
      if (known !== undefined) return known;
      const index = at < scanned ? findOpen(at) : -1;
      if (index === -1) restartAt(at);
      else base = index;
      const limit = at + maxSpan;
      const end = Math.min(textStart + text.length, limit + 1);
      for (let i = Math.max(scanned, textStart); i < end; i++) {
        const c = text.charCodeAt(i - textStart);
        if (c === Char.OpenBracket) open.push(i);
        else if (c === Char.CloseBracket && open.length > base) {
          const opener = open.pop() as number;
          closes.set(opener, i);
          if (opener === at) {
            scanned = i + 1;
            return i;
          }
        }
      }
      if (end > scanned) scanned = end;
      return scanned > limit ? UNMATCHED : UNDECIDED;
    },
    reset(): void {
      restartAt(0);
    },
  };
}

export type BracketMatcher = ReturnType<typeof createBracketMatcher>;
