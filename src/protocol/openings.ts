import type { BlockReader, DialectMarkers, ThinkingTags } from './block.js';
import { type BuiltReader, builtReader, markerOpening } from './built-reader.js';
import { isWordChar } from './chars.js';
import { LiteralPrefixes, type PrefixNode } from './literal-prefixes.js';
import type { Recoveries } from './recoveries.js';
import { spacedOpenings } from './spaced-openings.js';
import { commonPrefix, LiteralsSearch, partialSuffixStart } from './tag.js';

/** An opening found in the middle of a line; `undecided` when what follows is still to come. */
export interface FoundOpening {
  at: number;
  reader: BuiltReader;
  undecided: boolean;
}

/**
 * Openings a line start is looked at for, in the order they are tried, and their beginnings:
 * what stands at a place is decided by one walk, however many there are.
 */
export interface Openings {
  readonly readers: readonly BuiltReader[];
  readonly prefixes: LiteralPrefixes;
}

const openings = (readers: readonly BuiltReader[]): Openings => ({
  readers,
  prefixes: new LiteralPrefixes(readers.map((r) => r.open)),
});

/**
 * Where a dialect's blocks can open, grouped as the parser asks: at a line start by first
 * character, and in the middle of a line (special tokens, tags confirmed by what follows them). One table
 * per dialect and tool names, built once and shared by every parser of them.
 */
export class OpeningTable {
  /** Openings that may stand in the middle of a line. */
  readonly anywhere: readonly BuiltReader[];
  /** Their beginnings: what a chunk's end may hold back for the next chunk to decide. */
  readonly anywherePrefixes: LiteralPrefixes;
  /**
   * The first characters of those that begin with a sign (`<`, `[`, `>`): a chunk without
   * any cannot hold one.
   */
  readonly anywhereFirst: readonly string[];
  /**
   * Those that begin with a letter (a word): prose is full of their first letter, so a
   * chunk is looked at for the word itself, or its start at the chunk's end.
   */
  readonly anywhereWords: readonly string[];
  /** The first letters of those. */
  readonly anywhereWordFirst: readonly string[];
  /** Openings that begin with `<`. */
  readonly tag: Openings;
  /** Openings that begin with `[` (a special token, a bare list of calls). */
  readonly bracket: Openings;
  /** Openings that begin with `[` and open in a fence that holds only calls (a list of calls). */
  readonly bracketInFence: Openings;
  /** Openings that begin with `{` (a bare JSON call), only ever at a line start. */
  readonly brace: Openings;
  /** Openings that begin with `{` and open in a fence that holds only calls (a call object). */
  readonly braceInFence: Openings;
  /** Openings that begin with another character than `<`, `[`, `{` (a word, a run of signs). */
  readonly other: Openings;
  /** Blocks that open only at the start of the input, the reply continuing its prompt. */
  readonly inputStart: readonly BuiltReader[];
  /** Openings that end a thinking tag left open (see BlockReader.endsThinking). */
  readonly thinkingEnders: readonly string[];
  /** The first character of every opening: a line starting with one is looked at. */
  readonly #firsts: ReadonlySet<number>;
  /**
   * How the mid-line openings are searched for, one plan per first character: built here,
   * once a table, as a regular expression per parser made `createParser` of `auto` cost 10 µs.
   */
  readonly scanPlans: readonly ScanPlan[];

  /** Every opening but those (each begins with its literal). */
  readonly all: readonly BuiltReader[];

  /**
   * @param thinkTags the thinking tags a line may open, tried in order (the thinking itself is
   *   the scanner's).
   * @param thinkingRecoveries the declarations' row for thinking the input ends in.
   * @param markers the answer markers read, found as special-token openings are (after them).
   */
  constructor(
    declared: readonly BlockReader[],
    readonly thinkTags: readonly ThinkingTags[],
    readonly thinkingRecoveries: Recoveries<'unclosed-thinking'>,
    markers: DialectMarkers = { anywhere: [], inputStart: [] },
  ) {
    const readers = [
      ...declared.flatMap(spacedOpenings).map(builtReader),
      ...markers.anywhere.map((marker) => markerOpening(marker)),
      ...markers.inputStart.map((marker) => markerOpening(marker, true)),
    ];
    this.inputStart = readers.filter((r) => r.inputStart !== undefined);
    const all = readers.filter((r) => r.inputStart === undefined);
    this.all = all;
    this.anywhere = all.filter((r) => r.anywhere === true || r.midLine !== undefined);
    this.anywherePrefixes = new LiteralPrefixes(this.anywhere.map((r) => r.open));
    const words = (r: BuiltReader) => /^\w/.test(r.open);
    this.anywhereFirst = [...new Set(this.anywhere.filter((r) => !words(r)).map((r) => r.open[0]))];
    this.anywhereWords = [...new Set(this.anywhere.filter(words).map((r) => r.open))];
    this.anywhereWordFirst = [...new Set(this.anywhereWords.map((word) => word[0]))];
    const bracket = all.filter((r) => r.open.startsWith('['));
    const brace = all.filter((r) => r.open.startsWith('{'));
    this.tag = openings(all.filter((r) => r.open.startsWith('<')));
    this.bracket = openings(bracket);
    this.bracketInFence = openings(bracket.filter((r) => r.inFence === true));
    this.brace = openings(brace);
    this.braceInFence = openings(brace.filter((r) => r.inFence === true));
    this.other = openings(all.filter((r) => !'<[{'.includes(r.open[0])));
    this.#firsts = new Set(all.map((r) => r.open.charCodeAt(0)));
    this.thinkingEnders = all.filter((r) => r.endsThinking === true).map((r) => r.open);
    const firsts = [...new Set(this.anywhere.map((r) => r.open[0]))];
    this.scanPlans = firsts.map((first) =>
      scanPlan(this.anywhere.filter((r) => r.open[0] === first)),
    );
  }

  /**
   * The block that opens at the start of the input `s` (the reply continues its prompt):
   * null when more input decides, else undefined (at the end of the input, row
   * 'partial-input-start': a start not yet complete is text).
   */
  inputStartOpening(s: string, final: boolean): BuiltReader | null | undefined {
    for (const reader of this.inputStart) {
      const begins = (reader.inputStart as NonNullable<BuiltReader['inputStart']>)(s, 0, final);
      if (begins !== false) return begins === null ? null : reader;
    }
    return undefined;
  }

  /** Whether an opening begins with this character. */
  startsWith(c: number): boolean {
    return this.#firsts.has(c);
  }

  /**
   * Whether `chunk` may hold (the start of) an opening that stands mid-line: one of their first
   * signs, or a word's opening where a word begins (`before` is the character before `chunk`).
   */
  mayOpenIn(chunk: string, before: number): boolean {
    if (this.anywhereFirst.length > 0 && holdsAny(chunk, this.anywhereFirst)) return true;
    // A word's first letter is common: only a chunk with it is looked at further.
    return (
      this.anywhereWordFirst.length > 0 &&
      holdsAny(chunk, this.anywhereWordFirst) &&
      holdsWord(chunk, this.anywhereWords, before)
    );
  }
}

/**
 * Whether `chunk` holds one of `words`, or the start of one at its end where a word begins
 * (`before` is the character before the chunk): the `f` of `of` starts no word that begins with `f`.
 */
function holdsWord(chunk: string, words: readonly string[], before: number): boolean {
  for (const word of words) {
    if (chunk.indexOf(word) !== -1) return true;
    const at = partialSuffixStart(chunk, 0, word);
    if (at < chunk.length && !isWordChar(at > 0 ? chunk.charCodeAt(at - 1) : before)) return true;
  }
  return false;
}

/** Whether `chunk` holds any of `firsts` (single characters). */
function holdsAny(chunk: string, firsts: readonly string[]): boolean {
  for (const c of firsts) if (chunk.indexOf(c) !== -1) return true;
  return false;
}

/**
 * The first of `candidates` whose block opens at `s[i]`, a line start: null when the input
 * ends on the start of one (more input decides), else undefined.
 */
export function lineStartOpening(
  s: string,
  i: number,
  candidates: Openings,
  final: boolean,
): BuiltReader | null | undefined {
  // Most places hold none of them whole: one walk answers for all.
  const stands = candidates.prefixes.standsAt(s, i);
  if (stands !== true) return stands === null ? null : undefined;
  // Only the readers whose openings stand are asked; the text may end inside a longer one.
  let waiting = candidates.prefixes.endsInside(s, i);
  for (const k of candidates.prefixes.standingAt(s, i)) {
    const reader = candidates.readers[k];
    const opens =
      reader.lineStart === undefined ? true : reader.lineStart(s, i + reader.open.length, final);
    if (opens === true) return reader;
    if (opens === null) waiting = true;
  }
  return waiting ? null : undefined;
}

/**
 * The length of text from which openings are searched by one shared scan: below it, a stream's
 * chunk. (At 4 KiB, the last lines of every whole reply were searched once per opening, each
 * to the end: a twentieth of the time of a family whose ten openings all stand anywhere.)
 */
const SHARED_SCAN_FROM = 256;

/**
 * How openings that share a first character are scanned for together: by all they share
 * (a lone special token is one search for itself), or, when they share only that character
 * (`<`, of which prose is full), by one regular expression of them all, run natively, which
 * passes a prose `<` faster than a search that stops at each.
 */
interface ScanPlan {
  /** The openings' readers, in `anywhere` order: the first that opens at a place is taken. */
  readers: readonly BuiltReader[];
  members: readonly string[];
  /** The openings' alternatives, when they share only their first character. */
  pattern: RegExp | null;
  /** Else the search by what they all begin with. */
  literals: LiteralsSearch;
  /** Which of them stand at a place the search found: one walk, not a compare each. */
  prefixes: LiteralPrefixes;
}

function scanPlan(readers: readonly BuiltReader[]): ScanPlan {
  const members = readers.map((r) => r.open);
  const prefix = commonPrefix(members);
  return {
    readers,
    members,
    literals: new LiteralsSearch(members),
    prefixes: new LiteralPrefixes(members),
    // Shared by every parser of the table: its `lastIndex` is set before each `exec`. The
    // shared beginning stands outside the alternatives: irregexp then finds a candidate by it
    // before trying any (ten openings of one family: a fifth less time scanning prose).
    pattern:
      prefix.length < 2 && members.length > 1
        ? new RegExp(
            `${regexLiteral(prefix)}(?:${members.map((m) => regexLiteral(m.slice(prefix.length))).join('|')})`,
            'g',
          )
        : null,
  };
}

/**
 * The places in one buffer where openings that share a first character stand: found by one
 * scan for all of them (its plan), so that many openings cost one pass over the text, not one
 * pass each, and only as far as the first of them is asked for (an opening that never comes
 * was once searched for to the buffer's end, through every block's code, full of `<`).
 */
class SharedScan {
  readonly #plan: ScanPlan;
  #version = -1;
  #from = 0;
  /** Scanned up to (not including) this index. */
  #scanned = 0;
  /** Where one of the openings stands, in ascending order. */
  readonly #at: number[] = [];

  constructor(plan: ScanPlan) {
    this.#plan = plan;
  }

  /** Where one of the plan's openings first stands in `buf` at or after `from`, or -1. */
  first(buf: string, from: number, version: number): number {
    // A short rest (a stream's chunk) is searched directly: the shared scan pays off over
    // long text, and its bookkeeping would cost a stream of small chunks more than it saves.
    if (buf.length - from < SHARED_SCAN_FROM) {
      const { members, literals } = this.#plan;
      return members.length === 1 ? buf.indexOf(members[0], from) : literals.first(buf, from);
    }
    if (version !== this.#version || from < this.#from) {
      this.#version = version;
      this.#from = from;
      this.#scanned = from;
      this.#at.length = 0;
    }
    // What lies before `from` is asked for no more (a search from before it starts anew).
    if (this.#scanned < from) this.#scanned = from;
    const at = this.#at;
    // The first place at or after `from`: places only grow, and `from` mostly does too.
    let lo = 0;
    let hi = at.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (at[mid] < from) lo = mid + 1;
      else hi = mid;
    }
    if (lo < at.length) return at[lo];
    const next = this.#search(buf, this.#scanned);
    this.#scanned = next === -1 ? buf.length : next + 1;
    if (next !== -1) at.push(next);
    return next;
  }

  /** Where one of the openings first stands in `buf` at or after `from`, or -1. */
  #search(buf: string, from: number): number {
    const pattern = this.#plan.pattern;
    if (pattern === null) return this.#plan.literals.first(buf, from);
    pattern.lastIndex = from;
    return pattern.exec(buf)?.index ?? -1;
  }
}

/** A regular expression's source for a literal. */
const regexLiteral = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * The search for mid-line openings of one parser: it remembers where the openings stand in
 * the buffer, so each line does not search to the buffer's end.
 */
export class OpeningSearch {
  /** One shared scan per plan of the table. */
  readonly #scans: SharedScan[];
  /**
   * Where the first place an opening may stand is, after the last search of buffer
   * `#earliestVersion` (infinite when none does): no opening stands before it.
   */
  #earliest = -1;
  #earliestVersion = -1;
  /**
   * Where in its openings' tree the beginning of an opening that buffer `#heldVersion` ends
   * in has reached (see `hold`), or null.
   */
  #held: PrefixNode | null = null;
  #heldPrefixes: LiteralPrefixes | null = null;
  #heldVersion = -1;

  constructor(readonly table: OpeningTable) {
    this.#scans = table.scanPlans.map((plan) => new SharedScan(plan));
  }

  /**
   * The rest from `from` of the text of `version` is held back as what may begin one of `prefixes`'
   * literals (the mid-line openings' unless told), all before it decided, and only more of it
   * decides (a mid-line opening's `partialSuffixStart`, a line start's `standsAt` null). Kept
   * as the place in their tree it reached, so that a chunk that only goes on with it is told
   * by a walk of the chunk's own characters: the held tail was searched again at each chunk,
   * over every opening (a flood of `<｜tool▁sep｜>` in 1–4-character chunks: `auto` spent 40%
   * of its time there).
   */
  hold(
    buf: string,
    from: number,
    version: number,
    prefixes: LiteralPrefixes = this.table.anywherePrefixes,
  ): void {
    this.#held = prefixes.heldAt(buf, from);
    this.#heldPrefixes = prefixes;
    this.#heldVersion = version;
  }

  /**
   * Whether `chunk`, after buffer `version` that ends in a held beginning, only goes on with
   * it: still a beginning, no literal whole in it, no line end. Then the step that held it
   * would hold it all again; it is held for the buffer with the chunk appended (the next
   * version: the scanner counts one an append).
   */
  continuedBy(chunk: string, version: number): boolean {
    const held = this.#held;
    if (held === null || version !== this.#heldVersion || chunk.indexOf('\n') !== -1) return false;
    this.#held = (this.#heldPrefixes as LiteralPrefixes).continued(held, chunk);
    this.#heldVersion = version + 1;
    return this.#held !== null;
  }

  /**
   * The earliest opening in `buf[pos, end)` that may stand mid-line, or null. `version` names
   * the buffer: its places are found once, and reused while searches move on.
   * `before` is the character that stood before `buf[0]` (a word opening needs a non-word one).
   */
  find(
    buf: string,
    pos: number,
    end: number,
    final: boolean,
    version: number,
    before: number,
  ): FoundOpening | null {
    // No opening before `end`, as the last search found: each line of prose asked every
    // scan again (a tenth of the time of a family whose ten openings all stand anywhere).
    if (version === this.#earliestVersion && pos <= this.#earliest && end <= this.#earliest)
      return null;
    let found: FoundOpening | null = null;
    let earliest = Number.POSITIVE_INFINITY;
    for (let p = 0; p < this.#scans.length; p++) {
      const scan = this.#scans[p];
      let at = scan.first(buf, pos, version);
      if (at !== -1 && at < earliest) earliest = at;
      while (at !== -1 && at < end && (found === null || at < found.at)) {
        const opening = openingAt(buf, at, this.table.scanPlans[p], final, before);
        if (opening !== null) {
          found = opening;
          break;
        }
        at = scan.first(buf, at + 1, version);
      }
    }
    this.#earliest = earliest;
    this.#earliestVersion = version;
    return found;
  }
}

/**
 * The first of `plan`'s readers (in order) whose opening stands at `at` and opens there: a
 * word's opening starts a word, and some tags are confirmed by what follows (or may still be;
 * at the end of the input, row 'partial-opening-mid-line', the reader decides with what there is).
 */
function openingAt(
  buf: string,
  at: number,
  plan: ScanPlan,
  final: boolean,
  before: number,
): FoundOpening | null {
  for (const k of plan.prefixes.standingAt(buf, at)) {
    const reader = plan.readers[k];
    if (reader.wordStart === true && isWordChar(at > 0 ? buf.charCodeAt(at - 1) : before)) continue;
    if (reader.midLine === undefined) return { at, reader, undecided: false };
    const confirmed = reader.midLine(buf, at + reader.open.length, final);
    if (confirmed !== false) return { at, reader, undecided: confirmed === null };
  }
  return null;
}
