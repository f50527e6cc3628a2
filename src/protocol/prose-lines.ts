import { Char, isLineEnd, isSpaceOrTab } from './chars.js';
import type { Fence } from './fence.js';
import type { OpeningTable } from './openings.js';

/** What a line is to the parser's line-start step. */
enum Line {
  Prose = 0,
  Blank = 1,
  /** It may begin a construct: the step decides. */
  Construct = 2,
  /** The input ends in its leading blanks. */
  Undecided = 3,
}

/** What the line that starts at `s[i]` is, where `table`'s blocks may open. */
function lineAt(s: string, i: number, table: OpeningTable): Line {
  const n = s.length;
  while (i < n && isSpaceOrTab(s.charCodeAt(i))) i++;
  if (i >= n) return Line.Undecided;
  const c = s.charCodeAt(i);
  if (c === Char.Newline) return Line.Blank;
  return isPlainLineStart(c) && !table.startsWith(c) ? Line.Prose : Line.Construct;
}

/**
 * Whether every line start in `chunk` (after each newline, and its first character when
 * `atLineStart`) begins prose or a blank line, which the full path would only pass through:
 * then the chunk is text as it is. Returns whether the chunk ends at a line start (or in
 * its blanks), or null when some line start needs the state machine (a possible tag,
 * bracket, fence or `\r`, or any line start in a fence that may still hold calls).
 */
export function proseLineStarts(
  chunk: string,
  atLineStart: boolean,
  fence: Fence,
  table: OpeningTable,
): boolean | null {
  let newline = chunk.indexOf('\n');
  if (newline === -1 && !atLineStart) return false;
  if (fence.open && fence.callable) return null;
  let start = atLineStart ? 0 : newline + 1;
  for (;;) {
    if (start === chunk.length) return true;
    const line = lineAt(chunk, start, table);
    if (line === Line.Undecided) return true;
    if (line === Line.Construct) return null;
    newline = chunk.indexOf('\n', start);
    if (newline === -1) return false;
    start = newline + 1;
  }
}

/**
 * Where a run of prose ends, from the newline `s[newline]`: the newline before the first line
 * that may open something (a tag, a bracket, a fence, blanks at the input's end), or -1 when
 * the input ends in a line of prose. A line of prose marks an open fence as holding no calls.
 */
export function lastProseNewline(
  s: string,
  newline: number,
  fence: Fence,
  table: OpeningTable,
): number {
  const n = s.length;
  let nl = newline;
  while (nl + 1 < n) {
    const line = lineAt(s, nl + 1, table);
    if (line === Line.Construct || line === Line.Undecided) break;
    if (line === Line.Prose && fence.open) fence.callable = false;
    const next = s.indexOf('\n', nl + 1);
    if (next === -1) return -1;
    nl = next;
  }
  return nl;
}

/** A line whose first character after its blanks is this one is prose: no construct, no line end. */
function isPlainLineStart(c: number): boolean {
  return !(
    isLineEnd(c) ||
    c === Char.Lt ||
    c === Char.OpenBracket ||
    c === Char.Backtick ||
    c === Char.Tilde
  );
}

/**
 * The next newline at or after a position, remembered per version of the buffer: a line with
 * no newline that holds many blocks would otherwise be searched to its end once per block (O(n²)).
 */
export class NextNewline {
  #at = -1;
  #version = -1;

  find(buf: string, pos: number, version: number): number {
    if (this.#version !== version || (this.#at !== -1 && this.#at < pos)) {
      this.#version = version;
      this.#at = buf.indexOf('\n', pos);
    }
    return this.#at;
  }
}
