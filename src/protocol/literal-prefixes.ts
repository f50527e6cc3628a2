import { partialSuffixStart, startsWithAt } from './tag.js';

/** A node of the tree: the characters that may come next, and whether a literal ends here. */
export interface PrefixNode {
  readonly next: Map<number, PrefixNode>;
  ends: boolean;
  /** Whether one of the literals stands whole in the text that leads here (at its end or before). */
  holds: boolean;
  /**
   * The literals that begin the text that leads here (it, or a beginning of it), as indices
   * into the literals' list, ascending.
   */
  standing: readonly number[];
}

const node = (): PrefixNode => ({ next: new Map(), ends: false, holds: false, standing: [] });

/**
 * The beginnings of many literals, so that "does one of them stand here, or may it once more
 * input comes" costs one walk down a tree of their characters, and "does the text end in the
 * start of one" a lookup a place, however many literals there are. `auto` knows some 25 mid-line openings and 30 at a line start: asking each in turn at every
 * chunk made a flood of special tokens in 1–4-character chunks cost it 5–13× what one
 * dialect pays for the same text.
 */
export class LiteralPrefixes {
  readonly #root = node();
  /** The longest literal's length: a partial one begins no further back than this. */
  readonly #longest: number;
  /** The literals' first characters: where one may begin is found natively. */
  readonly #firsts: readonly string[];
  /** The one literal, when there is one: asked directly, as a walk would cost it more. */
  readonly #only: string | null;
  /**
   * Every beginning of a literal that is shorter than it: what a text's end may hold back.
   * One lookup a place (a stream's held tail is asked again at each chunk, and a walk down
   * the tree cost a step per character of it).
   */
  readonly #partials = new Set<string>();

  constructor(literals: readonly string[]) {
    this.#only = literals.length === 1 ? literals[0] : null;
    this.#firsts = [...new Set(literals.map((literal) => literal[0] ?? ''))];
    let longest = 0;
    for (const literal of literals) {
      for (let k = 1; k < literal.length; k++) this.#partials.add(literal.slice(0, k));
      longest = Math.max(longest, literal.length);
      let at = this.#root;
      for (let k = 0; k < literal.length; k++) {
        const c = literal.charCodeAt(k);
        let next = at.next.get(c);
        if (next === undefined) {
          next = node();
          at.next.set(c, next);
        }
        at = next;
      }
      at.ends = true;
    }
    this.#longest = longest;
    finish(this.#root, '', literals, []);
  }

  /**
   * Which of the literals stand whole at `s[at]`: indices into the literals' list, ascending
   * (those asked in turn with `startsWithAt`, the ones that answer true). `auto`'s 34 openings
   * that begin with `<` were each compared at every line start a special token stood at.
   */
  standingAt(s: string, at: number): readonly number[] {
    let here = this.#root;
    let standing = here.standing;
    for (let k = at; k < s.length; k++) {
      const next = here.next.get(s.charCodeAt(k));
      if (next === undefined) break;
      here = next;
      if (here.ends) standing = here.standing;
    }
    return standing;
  }

  /** Whether the text from `s[at]` to its end is a beginning of a literal longer than it. */
  endsInside(s: string, at: number): boolean {
    let here = this.#root;
    for (let k = at; k < s.length; k++) {
      const next = here.next.get(s.charCodeAt(k));
      if (next === undefined) return false;
      here = next;
    }
    return here.next.size > 0;
  }

  /**
   * The node of `s[from, s.length)` when that text is a beginning of a literal that holds
   * none whole (what a text's end holds back), else null: where the next chunk goes on from.
   */
  heldAt(s: string, from: number): PrefixNode | null {
    return from < s.length ? walk(this.#root, s, from) : null;
  }

  /**
   * The node `text` leads to from `held`, when it goes on with a beginning of a literal and
   * holds none whole: then a text that ended at `held` still ends the same way, held back
   * whole, without searching it again. Else null.
   */
  continued(held: PrefixNode, text: string): PrefixNode | null {
    return walk(held, text, 0);
  }

  /**
   * Whether one of the literals stands whole at `s[at]` (true), or none does but the input
   * ends inside the beginning of one (null, more input decides), or neither (false): of
   * `startsWithAt` over the literals, true if one answers true, else null if one answers null.
   */
  standsAt(s: string, at: number): boolean | null {
    if (this.#only !== null) return startsWithAt(s, at, this.#only);
    let here = this.#root;
    if (here.ends) return true;
    for (let k = at; k < s.length; k++) {
      const next = here.next.get(s.charCodeAt(k));
      if (next === undefined) return false;
      if (next.ends) return true;
      here = next;
    }
    return null;
  }

  /**
   * Where the earliest partial literal begins at the end of `s` (at or after `from`): a place
   * whose rest is a beginning of some literal but none of them whole. Else `s.length`. The
   * least `partialSuffixStart` over the literals.
   */
  partialSuffixStart(s: string, from: number): number {
    if (this.#only !== null) return partialSuffixStart(s, from, this.#only);
    const n = s.length;
    const start = Math.max(from, n - this.#longest + 1);
    let earliest = n;
    for (const first of this.#firsts) {
      for (let k = s.indexOf(first, start); k !== -1 && k < earliest; k = s.indexOf(first, k + 1))
        if (this.#partials.has(s.slice(k))) {
          earliest = k;
          break;
        }
    }
    return earliest;
  }
}

/** Down the tree from `at` along `s[from, s.length)`, while no literal stands whole; else null. */
function walk(at: PrefixNode, s: string, from: number): PrefixNode | null {
  let here = at;
  for (let k = from; k < s.length; k++) {
    const next = here.next.get(s.charCodeAt(k));
    if (next === undefined || next.holds) return null;
    here = next;
  }
  return here;
}

/**
 * Sets `holds` and `standing` at `at`, the node of `path`, and below (`above`: the literals that
 * begin `path` short of it).
 */
function finish(
  at: PrefixNode,
  path: string,
  literals: readonly string[],
  above: readonly number[],
): void {
  at.holds = literals.some((literal) => path.includes(literal));
  const own = literals.flatMap((literal, k) => (literal === path ? [k] : []));
  at.standing = own.length === 0 ? above : [...above, ...own].sort((a, b) => a - b);
  for (const [c, next] of at.next)
    finish(next, path + String.fromCharCode(c), literals, at.standing);
}
