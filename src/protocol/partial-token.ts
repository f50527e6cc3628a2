import { isNameChar, isNameStart } from './chars.js';
import { MAX_NAME_LENGTH } from './tag.js';

enum Kind {
  None = 0,
  /** A tag's name runs to the end of the text: `<na`, `</na`. */
  Name = 1,
  /** The text ends in a proper prefix of one literal: `<![CD` of `<![CDATA[`. */
  Literal = 2,
}

/**
 * The one way a block's reader waits: when only more of a single token at the end of its text
 * can decide what it reads (a tag's name, a literal's prefix), it says which token and how
 * much of it it holds, and a chunk that continues the token without completing it is taken as
 * it is, the reader not run again until a chunk decides it. Without it, every chunk of a tag
 * split over several ran the reader over the whole held tag again (a fifth of the chunks that
 * reach a `<tool>` block's reader at 4-character chunks).
 *
 * A reader sets it only where its answer depends on nothing but that token, so a chunk taken
 * here changes nothing the reader would have done: it would have waited at the same place and
 * said nothing.
 */
export class PartialToken {
  #kind = Kind.None;
  /** The name's characters so far, or how much of `#literal` is held. */
  #length = 0;
  #literal = '';

  clear(): void {
    this.#kind = Kind.None;
  }

  /**
   * The tag at `s[lt]` is `<` or `</` and a name (possibly empty after `</`) that runs to the
   * end of `s`: only the name's next character that is not a name character decides it (or its
   * length passing `MAX_NAME_LENGTH`). Anything else at `lt` leaves no partial token.
   */
  tagName(s: string, lt: number): void {
    this.#kind = Kind.None;
    let i = lt + 1;
    const n = s.length;
    // A bare `<` may still begin CDATA or a comment: the next character decides more than a name.
    if (i >= n) return;
    if (s.charCodeAt(i) === 0x2f) i++;
    if (i < n && !isNameStart(s.charCodeAt(i))) return;
    const nameStart = i;
    while (i < n && isNameChar(s.charCodeAt(i))) i++;
    if (i < n) return;
    this.#kind = Kind.Name;
    this.#length = n - nameStart;
  }

  /** The text ends in `literal`'s first `held` characters (fewer than all of it). */
  literal(literal: string, held: number): void {
    this.#kind = Kind.Literal;
    this.#literal = literal;
    this.#length = held;
  }

  /** Whether `chunk` continues the token without deciding it; if so it is counted in. */
  continuedBy(chunk: string): boolean {
    const n = chunk.length;
    if (this.#kind === Kind.Name) {
      const length = this.#length;
      if (length + n >= MAX_NAME_LENGTH) return false;
      // After `</` the first character must begin a name, as the tag's reader asks.
      if (length === 0 && !isNameStart(chunk.charCodeAt(0))) return false;
      for (let k = 0; k < n; k++) if (!isNameChar(chunk.charCodeAt(k))) return false;
      this.#length = length + n;
      return true;
    }
    if (this.#kind === Kind.Literal) {
      const held = this.#length;
      if (held + n >= this.#literal.length || !this.#literal.startsWith(chunk, held)) return false;
      this.#length = held + n;
      return true;
    }
    return false;
  }
}
