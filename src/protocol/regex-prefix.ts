/**
 * Whether a text may still become a match of a declared pattern once more text comes: the
 * hold-back a family's header or opening needs at a chunk's end, derived from the one pattern
 * that reads it (so no family writes "a prefix of this" by hand).
 *
 * The pattern's source is read into a Thompson NFA (one state per character test) and run as a
 * DFA built lazily: each set of NFA states met becomes a DFA state whose transitions are cached
 * per character, so a held tail costs a table look-up a character. Only the subset the
 * declarations use is read: literals, escapes, classes (negated too), `. \s \w \d` and their
 * negations, groups (capturing, named or not), alternation, `? * + {m} {m,} {m,n}` (lazy too),
 * a lookahead `(?=…)` with nothing after it, `^` and a negative lookahead `(?!…)` at the start.
 * The negative lookahead refuses a text that begins with its match; a text that only may still
 * become one is answered by the rest of the pattern (it may then say "may match" where the
 * pattern will refuse, which only holds text back longer, never loses a call). Anything else
 * (back-references, `$`, `\b`, lookbehind, the `i` and `m` flags) throws when the declaration is
 * read, naming it.
 */

/** A test of one UTF-16 code unit. */
type CharTest = (code: number) => boolean;

type Node =
  | { kind: 'char'; test: CharTest }
  | { kind: 'sequence'; items: Node[] }
  | { kind: 'alternation'; options: Node[] }
  | { kind: 'repeat'; item: Node; min: number; max: number }
  /** What a trailing lookahead asks for; after it, any text. */
  | { kind: 'lookahead'; item: Node };

/** The longest bounded repeat expanded into states (the declarations' bounds are lookahead.ts' rows). */
const MAX_BOUND = 1024;

/** Thrown for a pattern this module cannot answer for. */
export class UnsupportedPatternError extends Error {}

class PatternReader {
  #i = 0;
  readonly #source: string;
  readonly #dotAll: boolean;

  constructor(source: string, dotAll: boolean) {
    this.#source = source;
    this.#dotAll = dotAll;
  }

  /** The pattern, and what its leading negative lookahead refuses (null when it has none). */
  read(): { node: Node; refused: Node | null } {
    if (this.#source.startsWith('^')) this.#i = 1;
    let refused: Node | null = null;
    if (this.#source.startsWith('(?!', this.#i)) {
      this.#i += 3;
      refused = this.#alternation(true);
      if (this.#source[this.#i] !== ')') this.#unsupported('an unclosed group');
      this.#i++;
      if (isQuantifier(this.#source[this.#i])) this.#unsupported('a repeated lookahead');
    }
    const node = this.#alternation(true);
    if (this.#i < this.#source.length) this.#unsupported(`'${this.#source[this.#i]}'`);
    return { node, refused };
  }

  #unsupported(what: string): never {
    throw new UnsupportedPatternError(
      `/${this.#source}/: ${what} at ${this.#i} is not read by the hold-back derivation`,
    );
  }

  /** `atEnd`: nothing follows this alternation in the pattern (a lookahead may end it). */
  #alternation(atEnd: boolean): Node {
    const options = [this.#sequence(atEnd)];
    while (this.#source[this.#i] === '|') {
      this.#i++;
      options.push(this.#sequence(atEnd));
    }
    return options.length === 1 ? options[0] : { kind: 'alternation', options };
  }

  #sequence(atEnd: boolean): Node {
    const items: Node[] = [];
    const s = this.#source;
    while (this.#i < s.length && s[this.#i] !== '|' && s[this.#i] !== ')') {
      const at = this.#i;
      const atom = this.#atom(atEnd);
      const quantified = this.#quantified(atom);
      if (items.length > 0 && containsLookahead(items[items.length - 1])) {
        this.#i = at;
        this.#unsupported('a lookahead with more pattern after it');
      }
      if (quantified !== atom && containsLookahead(atom)) {
        this.#i = at;
        this.#unsupported('a repeated lookahead');
      }
      items.push(quantified);
    }
    if (!atEnd && items.some(containsLookahead)) this.#unsupported('a lookahead not at the end');
    return items.length === 1 ? items[0] : { kind: 'sequence', items };
  }

  #atom(atEnd: boolean): Node {
    const s = this.#source;
    const c = s[this.#i];
    if (c === '(') return this.#group(atEnd);
    if (c === '[') return { kind: 'char', test: this.#class() };
    if (c === '\\') {
      this.#i++;
      return { kind: 'char', test: this.#escape(false) };
    }
    if (c === '.') {
      this.#i++;
      return { kind: 'char', test: this.#dotAll ? () => true : (code) => !isLineEnd(code) };
    }
    if (c === '^' || c === '$' || isQuantifier(c)) this.#unsupported(`'${c}'`);
    this.#i++;
    const code = c.charCodeAt(0);
    return { kind: 'char', test: (k) => k === code };
  }

  #group(atEnd: boolean): Node {
    const s = this.#source;
    this.#i++;
    let lookahead = false;
    if (s[this.#i] === '?') {
      const kind = s[this.#i + 1];
      if (kind === ':') this.#i += 2;
      else if (kind === '=') {
        lookahead = true;
        this.#i += 2;
      } else if (kind === '!') this.#unsupported('a negative lookahead not at the start');
      else if (kind === '<' && s[this.#i + 2] !== '=' && s[this.#i + 2] !== '!') {
        const close = s.indexOf('>', this.#i);
        if (close === -1) this.#unsupported('an unclosed group name');
        this.#i = close + 1;
      } else this.#unsupported(`'(?${kind}'`);
    }
    const item = this.#alternation(atEnd || lookahead);
    if (s[this.#i] !== ')') this.#unsupported('an unclosed group');
    this.#i++;
    if (lookahead) {
      if (!atEnd) this.#unsupported('a lookahead not at the end');
      return { kind: 'lookahead', item };
    }
    return item;
  }

  #quantified(atom: Node): Node {
    const s = this.#source;
    const c = s[this.#i];
    let min: number;
    let max: number;
    if (c === '?' || c === '*' || c === '+') {
      this.#i++;
      min = c === '+' ? 1 : 0;
      max = c === '?' ? 1 : Number.POSITIVE_INFINITY;
    } else if (c === '{') {
      const bound = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(this.#i));
      if (bound === null) this.#unsupported("'{' that is no bound");
      this.#i += bound[0].length;
      min = Number(bound[1]);
      max =
        bound[2] === undefined
          ? min
          : bound[3] === ''
            ? Number.POSITIVE_INFINITY
            : Number(bound[3]);
      if (min > max || (max === Number.POSITIVE_INFINITY ? min : max) > MAX_BOUND)
        this.#unsupported(`a bound over ${MAX_BOUND}`);
    } else return atom;
    // A lazy repeat matches the same texts (the pattern's match may differ, its language not).
    if (s[this.#i] === '?') this.#i++;
    if (isQuantifier(s[this.#i])) this.#unsupported('a quantifier on a quantifier');
    return { kind: 'repeat', item: atom, min, max };
  }

  #class(): CharTest {
    const s = this.#source;
    this.#i++;
    const negated = s[this.#i] === '^';
    if (negated) this.#i++;
    const tests: CharTest[] = [];
    while (this.#i < s.length && s[this.#i] !== ']') {
      const low = this.#classAtom();
      if (s[this.#i] === '-' && s[this.#i + 1] !== ']' && this.#i + 1 < s.length) {
        this.#i++;
        const high = this.#classAtom();
        if (typeof low !== 'number' || typeof high !== 'number')
          this.#unsupported('a range bounded by a class');
        tests.push((code) => code >= low && code <= high);
      } else tests.push(typeof low === 'number' ? (code) => code === low : low);
    }
    if (s[this.#i] !== ']') this.#unsupported('an unclosed class');
    this.#i++;
    if (tests.length === 0) this.#unsupported('an empty class');
    const any = (code: number) => tests.some((test) => test(code));
    return negated ? (code) => !any(code) : any;
  }

  /** One member of a class: a code unit, or a class escape (`\s`). */
  #classAtom(): number | CharTest {
    const s = this.#source;
    if (s[this.#i] !== '\\') return s.charCodeAt(this.#i++);
    this.#i++;
    if ('sSwWdD'.includes(s[this.#i])) return this.#escape(true);
    if (s[this.#i] === 'b') {
      this.#i++;
      return 8;
    }
    return this.#code(true);
  }

  /** The code unit of a one-character escape after its `\` (`\n`, `\x41`, `\[`). */
  #code(inClass: boolean): number {
    const s = this.#source;
    const c = s[this.#i];
    this.#i++;
    if (c !== undefined && c in LETTER_ESCAPES) return LETTER_ESCAPES[c];
    if (c === 'x' || c === 'u') {
      const digits = c === 'x' ? 2 : 4;
      const hex = s.slice(this.#i, this.#i + digits);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== digits)
        this.#unsupported(`'\\${c}' with no ${digits} hex digits`);
      this.#i += digits;
      return Number.parseInt(hex, 16);
    }
    if (c === undefined || /[A-Za-z0-9]/.test(c)) {
      this.#i--;
      this.#unsupported(`'\\${c ?? ''}'${inClass ? ' in a class' : ''}`);
    }
    return c.charCodeAt(0);
  }

  /** An escape after its `\` (the index at the escaped character). */
  #escape(inClass: boolean): CharTest {
    const s = this.#source;
    const c = s[this.#i];
    this.#i++;
    switch (c) {
      case 's':
        return isSpace;
      case 'S':
        return (code) => !isSpace(code);
      case 'w':
        return isWord;
      case 'W':
        return (code) => !isWord(code);
      case 'd':
        return isDigit;
      case 'D':
        return (code) => !isDigit(code);
      default: {
        this.#i--;
        const code = this.#code(inClass);
        return (k) => k === code;
      }
    }
  }
}

/** The code units of the escapes that stand for one character by a letter. */
const LETTER_ESCAPES: Readonly<Record<string, number>> = {
  n: 10,
  r: 13,
  t: 9,
  f: 12,
  v: 11,
  '0': 0,
};

const isQuantifier = (c: string | undefined) => c === '*' || c === '+' || c === '?' || c === '{';

function containsLookahead(node: Node): boolean {
  switch (node.kind) {
    case 'lookahead':
      return true;
    case 'sequence':
      return node.items.some(containsLookahead);
    case 'alternation':
      return node.options.some(containsLookahead);
    case 'repeat':
      return containsLookahead(node.item);
    default:
      return false;
  }
}

const isLineEnd = (code: number) =>
  code === 10 || code === 13 || code === 0x2028 || code === 0x2029;
const isDigit = (code: number) => code >= 48 && code <= 57;
const isWord = (code: number) =>
  isDigit(code) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
/** JavaScript's `\s`: white space and line terminators. */
function isSpace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * The NFA: state `k` tests a character (`tests[k]`) and goes on to `next[k]`, or is a split
 * (`tests[k]` null) to every state of `next[k]`. `ACCEPT` is the end of a match.
 */
class Nfa {
  readonly tests: (CharTest | null)[] = [];
  readonly next: number[][] = [];

  add(test: CharTest | null): number {
    this.tests.push(test);
    this.next.push([]);
    return this.tests.length - 1;
  }
}

const ACCEPT = -1;

/** Builds `node` so that it goes on to `out`; returns its entry state. */
function build(nfa: Nfa, node: Node, out: number): number {
  switch (node.kind) {
    case 'char': {
      const state = nfa.add(node.test);
      nfa.next[state].push(out);
      return state;
    }
    case 'sequence': {
      let entry = out;
      for (let k = node.items.length - 1; k >= 0; k--) entry = build(nfa, node.items[k], entry);
      return entry;
    }
    case 'alternation': {
      const split = nfa.add(null);
      for (const option of node.options) nfa.next[split].push(build(nfa, option, out));
      return split;
    }
    case 'lookahead':
      // Nothing follows it: once its text is seen, any text after is a match.
      return build(nfa, node.item, ACCEPT);
    case 'repeat': {
      let entry = out;
      if (node.max === Number.POSITIVE_INFINITY) {
        const loop = nfa.add(null);
        nfa.next[loop].push(build(nfa, node.item, loop), out);
        entry = loop;
      } else
        for (let k = node.min; k < node.max; k++) {
          const optional = nfa.add(null);
          nfa.next[optional].push(build(nfa, node.item, entry), out);
          entry = optional;
        }
      for (let k = 0; k < node.min; k++) entry = build(nfa, node.item, entry);
      return entry;
    }
  }
}

/** A DFA state: the NFA's character states it stands for, and its cached transitions. */
interface DfaState {
  states: readonly number[];
  /** A match is complete here (any text may follow). */
  accepts: boolean;
  /** No text from here makes a match. */
  dead: boolean;
  /** Transitions on ASCII code units, filled as they are met. */
  ascii: (DfaState | undefined)[];
  other: Map<number, DfaState>;
}

enum Reading {
  Matched,
  Open,
  Dead,
}

/** The DFA states one pattern keeps; past this the cache starts over (a bound on memory). */
const MAX_DFA_STATES = 4096;

class LazyDfa {
  readonly #nfa: Nfa;
  readonly #entry: number;
  #start: DfaState | undefined;
  #byKey = new Map<string, DfaState>();

  constructor(nfa: Nfa, entry: number) {
    this.#nfa = nfa;
    this.#entry = entry;
  }

  /**
   * What `s` from `from` is: `Matched` when it begins with a match, `Open` when it is the
   * beginning of one (more text decides), `Dead` when no text after it makes one.
   */
  read(s: string, from: number): Reading {
    let dfa = this.#start ?? this.#begin();
    for (let i = from; i < s.length; i++) {
      if (dfa.accepts) return Reading.Matched;
      const code = s.charCodeAt(i);
      let next = code < 128 ? dfa.ascii[code] : dfa.other.get(code);
      if (next === undefined) {
        next = this.#step(dfa, code);
        if (code < 128) dfa.ascii[code] = next;
        else dfa.other.set(code, next);
      }
      if (next.dead) return Reading.Dead;
      dfa = next;
    }
    return dfa.accepts ? Reading.Matched : Reading.Open;
  }

  #begin(): DfaState {
    this.#start = this.#stateOf(this.#closure([this.#entry]));
    return this.#start;
  }

  #step(dfa: DfaState, code: number): DfaState {
    const targets: number[] = [];
    for (const k of dfa.states) if (this.#nfa.tests[k]?.(code)) targets.push(...this.#nfa.next[k]);
    return this.#stateOf(this.#closure(targets));
  }

  /** The character states (and ACCEPT) reached from `states` through splits, sorted. */
  #closure(states: readonly number[]): number[] {
    const seen = new Set<number>();
    const found: number[] = [];
    const stack = [...states];
    while (stack.length > 0) {
      const k = stack.pop() as number;
      if (seen.has(k)) continue;
      seen.add(k);
      if (k === ACCEPT || this.#nfa.tests[k] !== null) found.push(k);
      else stack.push(...this.#nfa.next[k]);
    }
    return found.sort((a, b) => a - b);
  }

  #stateOf(states: number[]): DfaState {
    const key = states.join(',');
    const known = this.#byKey.get(key);
    if (known !== undefined) return known;
    if (this.#byKey.size >= MAX_DFA_STATES) {
      // States already linked stay usable; new ones are cached afresh.
      this.#byKey = new Map();
      this.#start = undefined;
    }
    const state: DfaState = {
      states,
      accepts: states[0] === ACCEPT,
      dead: states.length === 0,
      ascii: new Array<DfaState | undefined>(128).fill(undefined),
      other: new Map(),
    };
    this.#byKey.set(key, state);
    return state;
  }
}

/** Every pattern a hold-back was derived from, in the order the declarations were read. */
const derived: RegExp[] = [];

/**
 * The patterns whose hold-back was derived (each declaration's header), for their tests: a
 * copy, since deriving one more (as those tests do) adds to the list.
 */
export function derivedPatterns(): readonly RegExp[] {
  return [...derived];
}

/** Tells whether a text, read from `from`, may still become a match of one pattern. */
export type PrefixTest = (s: string, from?: number) => boolean;

/**
 * The hold-back test of `pattern`, a sticky reader of a header or opening: true when the text
 * from `from` is the beginning of a match (more input decides) or already begins with one.
 * Throws, naming it, on a construct outside the subset read here.
 */
export function mayBecomeMatch(pattern: RegExp): PrefixTest {
  const unsupportedFlag = /[imv]/.exec(pattern.flags);
  if (unsupportedFlag !== null)
    throw new UnsupportedPatternError(
      `/${pattern.source}/${pattern.flags}: the '${unsupportedFlag[0]}' flag is not read by the hold-back derivation`,
    );
  // Read now, so a construct outside the subset fails as the declaration loads; built when
  // first asked, since a program reads few of the ~30 families and building every family's
  // automaton at import doubled tagcall/protocol's import time (30 to 58 ms).
  const { node, refused } = new PatternReader(pattern.source, pattern.flags.includes('s')).read();
  derived.push(pattern);
  const dfa = compiledWhenAsked(node);
  if (refused === null) return (s, from = 0) => dfa().read(s, from) !== Reading.Dead;
  const refusal = compiledWhenAsked(refused);
  return (s, from = 0) =>
    refusal().read(s, from) !== Reading.Matched && dfa().read(s, from) !== Reading.Dead;
}

const prefixTests = new WeakMap<RegExp, PrefixTest>();

/**
 * `mayBecomeMatch(pattern)`, derived once per pattern: declarations share patterns (every
 * Markdown fence's opening line), and the engine asks for each when it builds a reader.
 */
export function prefixTestOf(pattern: RegExp): PrefixTest {
  let test = prefixTests.get(pattern);
  if (test === undefined) {
    test = mayBecomeMatch(pattern);
    prefixTests.set(pattern, test);
  }
  return test;
}

/** The automaton of `node`, built at the first call and kept. */
function compiledWhenAsked(node: Node): () => LazyDfa {
  let dfa: LazyDfa | undefined;
  return () => {
    if (dfa === undefined) {
      const nfa = new Nfa();
      dfa = new LazyDfa(nfa, build(nfa, node, ACCEPT));
    }
    return dfa;
  };
}
