import { Char } from './chars.js';
import { LOOKAHEAD } from './lookahead.js';

/** Longest reference we decode: `&#x10FFFF;` and `&#1114111;` are ten characters. */
export const MAX_ENTITY_LENGTH = LOOKAHEAD.entity.value;

const NAMED: Readonly<Record<string, string>> = {
  lt: '<',
  gt: '>',
  amp: '&',
  quot: '"',
  apos: "'",
};

/** The reference needs characters that have not arrived yet. */
export const NEED_MORE = -1;
/** Not a reference: the `&` is literal text (`a && b`, `R&D`, `&nbsp;`). */
export const LITERAL = 0;

/**
 * Reads the reference starting at `s[at] === '&'`. Returns its length (the decoded text is in
 * `decoded.text`), `NEED_MORE` when `s` ends before the reference is decided, or `LITERAL`.
 * Only the five XML entities and numeric references decode: no DOCTYPE, no custom entity.
 */
export function readEntity(
  s: string,
  at: number,
  final: boolean,
  decoded: { text: string },
): number {
  const end = Math.min(s.length, at + MAX_ENTITY_LENGTH);
  // Look for the `;` only as far as a reference can reach: searching to the end of the
  // input at every `&` is quadratic on text full of `&`.
  let semi = -1;
  for (let i = at + 1; i < end; i++) {
    if (s.charCodeAt(i) === Char.Semicolon) {
      semi = i;
      break;
    }
  }
  if (semi === -1) {
    return !final && s.length < at + MAX_ENTITY_LENGTH && couldBeEntity(s, at + 1)
      ? NEED_MORE
      : LITERAL;
  }
  const body = s.slice(at + 1, semi);
  const named = Object.hasOwn(NAMED, body) ? NAMED[body] : undefined;
  if (named !== undefined) {
    decoded.text = named;
    return semi - at + 1;
  }
  if (body.charCodeAt(0) !== Char.Hash) return LITERAL;
  const hex = body.charCodeAt(1) === Char.LowerX || body.charCodeAt(1) === Char.UpperX;
  const digits = body.slice(hex ? 2 : 1);
  if (digits.length === 0 || !(hex ? /^[0-9a-fA-F]+$/ : /^[0-9]+$/).test(digits)) return LITERAL;
  const code = Number.parseInt(digits, hex ? 16 : 10);
  // XML 1.0 Char production: no NUL, no lone surrogates, nothing past U+10FFFF.
  if (code === 0 || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return LITERAL;
  decoded.text = String.fromCodePoint(code);
  return semi - at + 1;
}

/** Whether the characters after `&` so far could still grow into a reference. */
function couldBeEntity(s: string, from: number): boolean {
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ok =
      (c >= 0x61 && c <= 0x7a) ||
      (c >= 0x41 && c <= 0x5a) ||
      (c >= Char.Zero && c <= Char.Nine) ||
      c === Char.Hash;
    if (!ok) return false;
  }
  return true;
}

/** Decodes every reference in a complete string (names of tools and servers are short). */
export function decodeEntities(s: string): string {
  if (s.indexOf('&') === -1) return s;
  let out = '';
  let last = 0;
  const decoded = { text: '' };
  for (let i = s.indexOf('&'); i !== -1; i = s.indexOf('&', i + 1)) {
    const length = readEntity(s, i, true, decoded);
    if (length > 0) {
      out += s.slice(last, i) + decoded.text;
      last = i + length;
      i = last - 1;
    }
  }
  return out + s.slice(last);
}
