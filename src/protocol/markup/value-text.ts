import { Char, isHighSurrogate, JSON_ESCAPES } from '../chars.js';

/**
 * How a dialect reads a value from its text: as written (`verbatim`), less one newline right
 * after the opening tag and one right before the closing tag (`newlines`, as Qwen's and
 * Cline's own parsers do), or trimmed (`trim`, Cline's plain parameters).
 */
export type ValueText = 'verbatim' | 'newlines' | 'trim';

const isTrimmed = (c: string) => /\s/.test(c);

/**
 * A value read as it is written: `write` takes the text in order, `text` what has been
 * decided of it since the last call (the part a closing tag can no longer take away), and
 * `close` the rest once the value ends. What it holds back is only what the end could drop:
 * a newline (`newlines`), trailing blanks (`trim`), or a high surrogate waiting for its pair.
 * The whole value equals the form's reading of the complete text, however it was split.
 */
export class StreamedValue {
  /** Decided, not yet taken. */
  #out = '';
  /** Written but undecided: it goes out when more text follows, or is dropped at the end. */
  #held = '';
  #started = false;

  /** With `escaped`: the end of the text written so far that may begin an escape (`\`, `\u00`). */
  #escape = '';

  /**
   * `escaped`: the text is escaped as in a JSON string (a reply logged so): `\"`, `\\`, `\n`,
   * `\t`, `\r`, `\/`, `\uXXXX` are read as what they stand for; any other backslash as written.
   */
  constructor(
    private readonly mode: ValueText,
    private readonly escaped = false,
  ) {}

  write(written: string): void {
    this.#writeText(this.escaped ? this.#unescape(written, false) : written);
  }

  #writeText(text: string): void {
    if (text === '') return;
    switch (this.mode) {
      case 'verbatim':
        this.#out += text;
        break;
      case 'newlines':
        this.#writeNewlines(text);
        break;
      case 'trim':
        this.#writeTrimmed(text);
        break;
    }
  }

  /**
   * In `newlines` mode: `text` decides at once, as it is (the value has started, nothing is
   * held, and it does not end in a line end). Most of a value, a stream's chunk inside it, does.
   */
  #newlinesAsIs(text: string): boolean {
    const last = text.charCodeAt(text.length - 1);
    return (
      this.#started && this.#held === '' && last !== Char.Newline && last !== Char.CarriageReturn
    );
  }

  #writeNewlines(text: string): void {
    if (this.#newlinesAsIs(text)) {
      this.#out += text;
      return;
    }
    let s = this.#held + text;
    this.#held = '';
    if (!this.#started) {
      // The first newline after the opening tag is not part of the value.
      if (s === '\r') {
        this.#held = s;
        return;
      }
      this.#started = true;
      if (s.startsWith('\r\n')) s = s.slice(2);
      else if (s.startsWith('\n')) s = s.slice(1);
    }
    // One newline before the closing tag is not either: hold a trailing one.
    let keep = s.length;
    if (s.endsWith('\r\n')) keep -= 2;
    else if (s.endsWith('\n') || s.endsWith('\r')) keep -= 1;
    this.#out += s.slice(0, keep);
    this.#held = s.slice(keep);
  }

  #writeTrimmed(text: string): void {
    let k = 0;
    if (!this.#started) {
      while (k < text.length && isTrimmed(text[k])) k++;
      if (k === text.length) return;
      this.#started = true;
    }
    let end = text.length;
    while (end > k && isTrimmed(text[end - 1])) end--;
    if (end > k) {
      this.#out += this.#held + text.slice(k, end);
      this.#held = '';
    }
    this.#held += text.slice(end);
  }

  /**
   * Whether `text` (no high surrogate at its end), written now, would be decided as it is and
   * change nothing held: then the caller may take it as the value's text without writing it.
   */
  takesAsIs(text: string): boolean {
    if (this.#out !== '' || this.#held !== '') return false;
    if (this.escaped && (this.#escape !== '' || text.indexOf('\\') !== -1)) return false;
    if (this.mode === 'verbatim') return true;
    return this.mode === 'newlines'
      ? this.#newlinesAsIs(text)
      : this.#started && !isTrimmed(text[text.length - 1]);
  }

  /** What is decided since the last call; a trailing high surrogate waits for its pair. */
  text(): string {
    let out = this.#out;
    const last = out.length - 1;
    if (last >= 0 && isHighSurrogate(out.charCodeAt(last))) {
      this.#out = out.slice(last);
      out = out.slice(0, last);
    } else this.#out = '';
    return out;
  }

  /** One level of JSON string escapes taken off; `end`: no more text follows. */
  #unescape(text: string, end: boolean): string {
    const s = this.#escape + text;
    this.#escape = '';
    let out = '';
    let from = 0;
    for (let i = s.indexOf('\\'); i !== -1; i = s.indexOf('\\', from)) {
      out += s.slice(from, i);
      const next = s[i + 1];
      if (next === undefined || (next === 'u' && i + 6 > s.length)) {
        if (end) {
          out += s.slice(i);
          from = s.length;
        } else {
          this.#escape = s.slice(i);
          from = s.length;
        }
        break;
      }
      const hex = next === 'u' ? s.slice(i + 2, i + 6) : '';
      const simple = Object.hasOwn(JSON_ESCAPES, next) ? JSON_ESCAPES[next] : undefined;
      if (simple !== undefined) {
        out += simple;
        from = i + 2;
      } else if (/^[0-9a-fA-F]{4}$/.test(hex)) {
        out += String.fromCharCode(Number.parseInt(hex, 16));
        from = i + 6;
      } else {
        out += `\\${next}`;
        from = i + 2;
      }
    }
    return out + s.slice(from);
  }

  /** The value ends: the rest of the text (a lone `\r` held by `newlines` belongs to it). */
  close(): string {
    if (this.escaped && this.#escape !== '') this.#writeText(this.#unescape('', true));
    const rest = this.#out + (this.#held === '\r' ? '\r' : '');
    this.#out = '';
    this.#held = '';
    return rest;
  }
}
