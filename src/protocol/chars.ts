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

/** XML name characters, simplified: ASCII letters, digits, `_ : . -`, and anything non-ASCII. */
export function isNameStart(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x41 && c <= 0x5a) ||
    c === 0x5f ||
    c === Char.Colon ||
    c > 0x7f
  );
}

export function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= Char.Zero && c <= Char.Nine) || c === 0x2d || c === 0x2e;
}
