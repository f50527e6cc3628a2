/** Char codes the state machines compare against, named so the code reads as prose. */
export enum Char {
  Tab = 0x09,
  Newline = 0x0a,
  CarriageReturn = 0x0d,
  Space = 0x20,
  Quote = 0x22,
  Hash = 0x23,
  Amp = 0x26,
  Slash = 0x2f,
  Zero = 0x30,
  Nine = 0x39,
  Colon = 0x3a,
  Semicolon = 0x3b,
  Lt = 0x3c,
  Gt = 0x3e,
  Bang = 0x21,
  OpenBracket = 0x5b,
  Backslash = 0x5c,
  CloseBracket = 0x5d,
  Backtick = 0x60,
  Tilde = 0x7e,
  OpenBrace = 0x7b,
  CloseBrace = 0x7d,
  LowerX = 0x78,
  UpperX = 0x58,
}

export function isSpaceOrTab(c: number): boolean {
  return c === Char.Space || c === Char.Tab;
}

/** A line ends at a newline, or at the `\r` of a CRLF. */
export function isLineEnd(c: number): boolean {
  return c === Char.Newline || c === Char.CarriageReturn;
}

export function isWhitespace(c: number): boolean {
  return c === Char.Space || c === Char.Newline || c === Char.Tab || c === Char.CarriageReturn;
}

/** A high surrogate at the end of a chunk waits for its pair, so no event splits a code point. */
export function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/**
 * XML name characters, simplified: ASCII letters, digits, `_ : . -`, and anything non-ASCII.
 * A table for the ASCII ones: every tag name is read character by character, and the chain
 * of comparisons it replaces was a tenth of a whole-string parse of call-dense text.
 */
const NAME_START = 1;
const NAME_CHAR = 2;
const nameClass = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const start = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x3a;
  const inner = start || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e;
  nameClass[c] = (start ? NAME_START : 0) | (inner ? NAME_CHAR : 0);
}

export function isNameStart(c: number): boolean {
  return c > 0x7f || (nameClass[c] & NAME_START) !== 0;
}

export function isNameChar(c: number): boolean {
  return c > 0x7f || (nameClass[c] & NAME_CHAR) !== 0;
}

/** Whether `c` is a letter, a digit or `_` (ASCII): a word goes on through it. */
export function isWordChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f
  );
}

/** What a JSON string's one-character escapes (after `\\`) stand for. */
export const JSON_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};
