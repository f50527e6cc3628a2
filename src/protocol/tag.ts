import { Char, isNameChar, isNameStart, isSpaceOrTab, isWordChar } from './chars.js';
import { LOOKAHEAD } from './lookahead.js';
import { admitsNew, detached } from './names.js';

/** An element name and the blanks before its `>` are shorter than this; a longer one is text. */
export const MAX_NAME_LENGTH = LOOKAHEAD.tagName.value;

export enum TagKind {
  /** Not a tag: the `<` is literal text (`a < b`, `Array<string>`, `<div class="x">`). */
  None = 0,
  /** The input ends before the tag is decided. */
  NeedMore = 1,
  Open = 2,
  Close = 3,
  /** `<name/>`: an element with no content. */
  Empty = 4,
}

export interface Tag {
  kind: TagKind;
  name: string;
  /** Characters from `<` through `>`. */
  length: number;
}

/**
 * Reads a tag of the protocol at `s[at] === '<'`: `<name>`, `<name/>` or `</name>`, with optional
 * blanks before `>`. Tags with attributes are not part of the protocol and read as text, so
 * markup inside argument values survives as written. Fills and returns `tag` (no allocation on
 * the hot path).
 */
export function readTag(s: string, at: number, final: boolean, tag: Tag): Tag {
  let slot = -1;
  if (skippedLookups > 0) skippedLookups--;
  else {
    slot = knownSlot(s, at);
    if (slot !== -1) {
      const known = knownTag(s, at, slot);
      if (known !== undefined) {
        missedLookups = 0;
        tag.kind = known.kind;
        tag.name = known.name;
        tag.length = known.literal.length;
        return tag;
      }
      if (++missedLookups === 64) {
        missedLookups = 0;
        skippedLookups = 448;
      }
    }
  }
  tag.kind = TagKind.None;
  let i = at + 1;
  const n = s.length;
  if (i >= n) return needMore(tag, final);
  let close = false;
  if (s.charCodeAt(i) === Char.Slash) {
    close = true;
    i++;
    if (i >= n) return needMore(tag, final);
  }
  if (!isNameStart(s.charCodeAt(i))) return tag;
  const nameStart = i;
  const nameLimit = nameStart + MAX_NAME_LENGTH;
  while (i < n && i < nameLimit && isNameChar(s.charCodeAt(i))) i++;
  if (i >= nameLimit) return tag;
  const nameEnd = i;
  while (i < n && isSpaceOrTab(s.charCodeAt(i)) && i < nameLimit) i++;
  if (i >= n) return needMore(tag, final);
  let c = s.charCodeAt(i);
  let empty = false;
  if (c === Char.Slash && !close) {
    empty = true;
    i++;
    if (i >= n) return needMore(tag, final);
    c = s.charCodeAt(i);
  }
  if (c !== Char.Gt) return tag;
  tag.kind = close ? TagKind.Close : empty ? TagKind.Empty : TagKind.Open;
  tag.length = i + 1 - at;
  if (
    slot !== -1 &&
    tag.length <= MAX_KNOWN_LENGTH &&
    (knownTags[slot] === undefined || admitsNew())
  ) {
    knownTags[slot + 1] = knownTags[slot];
    const literal = detached(s.slice(at, at + tag.length));
    // The name from the kept literal: the tag's own slice would keep the whole text it is in.
    tag.name = literal.slice(nameStart - at, nameEnd - at);
    knownTags[slot] = { literal, kind: tag.kind, name: tag.name };
  } else tag.name = s.slice(nameStart, nameEnd);
  return tag;
}

/**
 * Tags read before, whole: a call's tags come again and again, and one read before is
 * compared whole where its text stands (one native compare, where reading it looks at each
 * character, and its name is the string read the first time: no slice). What `readTag` finds
 * depends only on the tag's own characters, so a tag found this way reads as it would.
 * Two a slot, the slot picked by the two characters after `<` (`<tool>` and `<tool_name>`
 * share one); shared by every parser and bounded: 512 tags of at most 64 characters.
 */
interface KnownTag {
  literal: string;
  kind: TagKind;
  name: string;
}
const knownTags: (KnownTag | undefined)[] = new Array(512).fill(undefined);
/**
 * Lookups that keep missing (tags never seen again) are skipped for a while: after 64 misses in
 * a row the next 448 tags are read by character, so such a flood costs an eighth of them.
 */
let missedLookups = 0;
let skippedLookups = 0;
const MAX_KNOWN_LENGTH = 64;

/** The slot of the tag that may stand at `at`, or -1 when its first characters are not ASCII or not there. */
function knownSlot(s: string, at: number): number {
  if (at + 2 >= s.length) return -1;
  const a = s.charCodeAt(at + 1);
  const b = s.charCodeAt(at + 2);
  if ((a | b) > 0x7f) return -1;
  return ((a * 31 + b) & 0xff) << 1;
}

function knownTag(s: string, at: number, slot: number): KnownTag | undefined {
  const first = knownTags[slot];
  if (first !== undefined && s.startsWith(first.literal, at)) return first;
  const second = knownTags[slot + 1];
  if (second !== undefined && s.startsWith(second.literal, at)) return second;
  return undefined;
}

/**
 * Whether `literal` is the tag `<name>` (`</name>` when `close`), told without writing the tag:
 * a template string per tag read was a new string each time, four a call.
 */
export function isTagFor(literal: string, name: string, close: boolean): boolean {
  const nameAt = close ? 2 : 1;
  return (
    literal.length === name.length + nameAt + 1 &&
    literal.charCodeAt(0) === Char.Lt &&
    (!close || literal.charCodeAt(1) === Char.Slash) &&
    literal.charCodeAt(literal.length - 1) === Char.Gt &&
    literal.startsWith(name, nameAt)
  );
}

function needMore(tag: Tag, final: boolean): Tag {
  tag.kind = final ? TagKind.None : TagKind.NeedMore;
  return tag;
}

/** Whether `s` at `at` starts with `literal`, or could once more input arrives (`null`). */
export function startsWithAt(s: string, at: number, literal: string): boolean | null {
  const available = s.length - at;
  if (available >= literal.length) return s.startsWith(literal, at);
  // By character, not `literal.startsWith(s.slice(at))`: a chunk's end is asked about often
  // (every `<` near it, once per close), and each slice was a new string.
  for (let k = 0; k < available; k++)
    if (s.charCodeAt(at + k) !== literal.charCodeAt(k)) return false;
  return null;
}

/** Where a partial `literal` begins at the end of `s` (at or after `from`), else `s.length`. */
export function partialSuffixStart(s: string, from: number, literal: string): number {
  for (let k = Math.max(from, s.length - literal.length + 1); k < s.length; k++) {
    if (s.charCodeAt(k) === literal.charCodeAt(0) && literal.startsWith(s.slice(k))) return k;
  }
  return s.length;
}

/**
 * Where in `literal` a native search for it is best begun: its first character beyond ASCII
 * (`｜` of `<｜DSML｜`), else the one after a leading `<` (`|python_tag|>`, and `|` of the
 * `<|` that harmony's closes share). A native search stops at every place its first character
 * stands, and code is full of `<`: one pass over the 5 MB corpus (its calls in the family's
 * format) for `<｜DSML｜` took 2.68 ms, for `｜DSML｜` 0.81; `<|python_tag|>` 1.74 ms,
 * `|python_tag|>` 1.03; in gpt-oss's, `<|` 1.42 ms and `|` then `<|` 0.85 (it holds 87,096
 * `<` against 32,438 `|`). A lone letter after the `<` stays behind it: a one-letter search
 * would stop at every word.
 */
export function searchAnchor(literal: string): number {
  const beyondAscii = literal.search(/[\u0080-\uffff]/);
  if (beyondAscii !== -1) return beyondAscii;
  if (literal[0] !== '<' || literal.length < 2) return 0;
  return literal.length > 2 || !isWordChar(literal.charCodeAt(1)) ? 1 : 0;
}

/**
 * The first place one of `literals` stands: found by what they all begin with, searched for
 * natively from its `searchAnchor`, each place it stands checked against every literal (one
 * pass over the text for all of them, not one each).
 */
export class LiteralsSearch {
  readonly #anchor: number;
  readonly #searched: string;
  readonly #prefixLength: number;
  /**
   * The literals that end one character past their common beginning, by that character (-1:
   * the beginning itself). At each place the beginning stands only a group is compared:
   * Hermes' ten openings share only `<`, and comparing all ten at each `<` (or searching for
   * each) cost a tenth of a short reply.
   */
  readonly #byNext = new Map<number, string[]>();
  /**
   * The literals that go on at least two characters past the common beginning, by those two
   * characters: `auto`'s mid-line openings that begin `<|` are a dozen, and all were compared
   * at each `<|` of a stream's held tail, searched again at every chunk.
   */
  readonly #byNextTwo = new Map<number, string[]>();

  constructor(literals: readonly string[]) {
    const prefix = commonPrefix(literals);
    this.#anchor = searchAnchor(prefix);
    this.#searched = prefix.slice(this.#anchor);
    this.#prefixLength = prefix.length;
    const add = (groups: Map<number, string[]>, key: number, literal: string) => {
      const group = groups.get(key);
      if (group === undefined) groups.set(key, [literal]);
      else group.push(literal);
    };
    for (const literal of literals) {
      const at = prefix.length;
      if (literal.length > at + 1)
        add(this.#byNextTwo, pairKey(literal.charCodeAt(at), literal.charCodeAt(at + 1)), literal);
      else add(this.#byNext, literal.length > at ? literal.charCodeAt(at) : -1, literal);
    }
    // Shortest first: near a chunk's end the longer ones cannot stand (see startsOne).
    for (const group of this.#byNextTwo.values()) group.sort((a, b) => a.length - b.length);
  }

  /** Where one of the literals first stands in `text` at or after `from`, or -1. */
  first(text: string, from: number): number {
    const anchor = this.#anchor;
    const searched = this.#searched;
    const byNext = this.#byNext;
    const byNextTwo = this.#byNextTwo;
    const whole = byNext.get(-1);
    // `indexOf('')` answers every place up to the end, and no literal starts there.
    for (let at = text.indexOf(searched, from + anchor); at !== -1 && at < text.length; ) {
      const j = at - anchor;
      const nextAt = j + this.#prefixLength;
      if (nextAt + 1 < text.length) {
        const two = byNextTwo.get(pairKey(text.charCodeAt(nextAt), text.charCodeAt(nextAt + 1)));
        if (two !== undefined && startsOne(text, j, two)) return j;
      }
      // The literals that end one character past the common beginning, or at it.
      if (byNext.size > 0) {
        const one = byNext.get(nextAt < text.length ? text.charCodeAt(nextAt) : -2);
        if (one !== undefined && startsOne(text, j, one)) return j;
        if (whole !== undefined && startsOne(text, j, whole)) return j;
      }
      at = text.indexOf(searched, at + 1);
    }
    return -1;
  }
}

/** One number for two UTF-16 code units. */
const pairKey = (first: number, second: number) => first * 0x10000 + second;

/**
 * Whether one of `literals` (shortest first) stands at `at`. Those longer than the rest of the
 * text are not asked: a stream's undecided tail is searched again at each chunk, and `auto`'s
 * mid-line openings that begin `<|` are a dozen.
 */
function startsOne(text: string, at: number, literals: readonly string[]): boolean {
  const rest = text.length - at;
  for (const literal of literals) {
    if (literal.length > rest) return false;
    if (text.startsWith(literal, at)) return true;
  }
  return false;
}

/** The longest beginning all of `literals` share ('' when their first characters differ). */
export function commonPrefix(literals: readonly string[]): string {
  let prefix = literals[0] ?? '';
  for (const literal of literals) {
    while (!literal.startsWith(prefix)) prefix = prefix.slice(0, -1);
  }
  return prefix;
}
