/**
 * A sticky `pattern` matched at `at` against at most `limit` characters of `s` from there, as
 * `exec` would (`pattern.lastIndex` is the match's end in `s`). A bound's reader holds input
 * back only so far; matching a whole input within the same window decides it as the chunks
 * it may arrive in are decided, however long the pattern's own match could run (a `\s*`).
 * Only the window is copied, so a reader stays linear in its input.
 */
export function execWithin(
  pattern: RegExp,
  s: string,
  at: number,
  limit: number,
): RegExpExecArray | null {
  if (s.length - at <= limit) {
    pattern.lastIndex = at;
    return pattern.exec(s);
  }
  pattern.lastIndex = 0;
  const match = pattern.exec(s.slice(at, at + limit));
  if (match !== null) {
    match.index += at;
    pattern.lastIndex += at;
  }
  return match;
}
