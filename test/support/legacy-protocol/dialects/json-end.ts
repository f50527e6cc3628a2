import { closingQuote, endsInEscape } from '../json-call.js';

const STRUCTURE = /["[\]{}]/g;

/**
 * Where a JSON value written without a closing marker ends (Mistral's `[TOOL_CALLS][…]`): at
 * the bracket that closes its first one, strings skipped. The scan goes on across chunks,
 * each character looked at once, jumping from one that matters to the next.
 */
export class JsonValueEnd {
  #depth = 0;
  #inString = false;
  #escaped = false;

  /** The index just after the value's end in `s`, looking from `i`; -1 while it is open. */
  find(s: string, i: number): number {
    if (this.#escaped && i < s.length) {
      this.#escaped = false;
      i++;
    }
    while (i < s.length) {
      if (this.#inString) {
        const end = closingQuote(s, i);
        if (end === -1) {
          this.#escaped = endsInEscape(s, i);
          return -1;
        }
        this.#inString = false;
        i = end + 1;
        continue;
      }
      STRUCTURE.lastIndex = i;
      if (!STRUCTURE.test(s)) return -1;
      const at = STRUCTURE.lastIndex - 1;
      const c = s.charCodeAt(at);
      if (c === 0x22) this.#inString = true;
      else if (c === 0x5b || c === 0x7b) this.#depth++;
      else if (--this.#depth === 0) return at + 1;
      i = at + 1;
    }
    return -1;
  }

  /** Inside a string, where a chunk without a quote or backslash changes nothing. */
  get inString(): boolean {
    return this.#inString && !this.#escaped;
  }
}
