import { isWordChar } from './chars.js';
import { type BlockReader, blockReaders, type Dialect } from './dialects/index.js';

/** An opening found in the middle of a line; `undecided` when what follows is still to come. */
export interface FoundOpening {
  at: number;
  reader: BlockReader;
  undecided: boolean;
}

/**
 * Where a dialect's blocks can open, grouped as the parser asks: at a line start by first
 * character, and in the middle of a line (special tokens, Cline's confirmed tags). One table
 * per dialect and tool names, built once and shared by every parser of them.
 */
export class OpeningTable {
  /** Openings that may stand in the middle of a line. */
  readonly anywhere: readonly BlockReader[];
  /**
   * The first characters of those that begin with a sign (`<`, `[`, `>`): a chunk without
   * any cannot hold one.
   */
  readonly anywhereFirst: readonly string[];
  /**
   * Those that begin with a letter (`functools`): prose is full of their first letter, so a
   * chunk is looked at for the word itself, or its start at the chunk's end.
   */
  readonly anywhereWords: readonly string[];
  /** The first letters of those. */
  readonly anywhereWordFirst: readonly string[];
  /** Openings that begin with `<`. */
  readonly tag: readonly BlockReader[];
  /** Openings that begin with `[` (Mistral's `[TOOL_CALLS]`, Llama 4's list). */
  readonly bracket: readonly BlockReader[];
  /** Openings that begin with `[` and open in a fence that holds only calls (xLAM's list). */
  readonly bracketInFence: readonly BlockReader[];
  /** Openings that begin with `{` (a bare JSON call), only ever at a line start. */
  readonly brace: readonly BlockReader[];
  /** Openings that begin with `{` and open in a fence that holds only calls (Hermes' object). */
  readonly braceInFence: readonly BlockReader[];
  /** Openings that begin with another character than `<`, `[`, `{` (functionary's `>>>`). */
  readonly other: readonly BlockReader[];
  /** Blocks that open only at the start of the input, the reply continuing its prompt. */
  readonly inputStart: readonly BlockReader[];
  /** Openings that end a thinking tag left open (see BlockReader.endsThinking). */
  readonly thinkingEnders: readonly string[];
  /** The first character of every opening: a line starting with one is looked at. */
  readonly #firsts: ReadonlySet<number>;

  /** Every opening but those (each begins with its literal). */
  readonly all: readonly BlockReader[];

  constructor(readers: readonly BlockReader[]) {
    this.inputStart = readers.filter((r) => r.inputStart !== undefined);
    const all = readers.filter((r) => r.inputStart === undefined);
    this.all = all;
    this.anywhere = all.filter((r) => r.anywhere === true || r.midLine !== undefined);
    const words = (r: BlockReader) => /^\w/.test(r.open);
    this.anywhereFirst = [...new Set(this.anywhere.filter((r) => !words(r)).map((r) => r.open[0]))];
    this.anywhereWords = [...new Set(this.anywhere.filter(words).map((r) => r.open))];
    this.anywhereWordFirst = [...new Set(this.anywhereWords.map((word) => word[0]))];
    this.tag = all.filter((r) => r.open.startsWith('<'));
    this.bracket = all.filter((r) => r.open.startsWith('['));
    this.bracketInFence = this.bracket.filter((r) => r.inFence === true);
    this.brace = all.filter((r) => r.open.startsWith('{'));
    this.braceInFence = this.brace.filter((r) => r.inFence === true);
    this.other = all.filter((r) => !'<[{'.includes(r.open[0]));
    this.#firsts = new Set(all.map((r) => r.open.charCodeAt(0)));
    this.thinkingEnders = all.filter((r) => r.endsThinking === true).map((r) => r.open);
  }

  /** Whether an opening begins with this character. */
  startsWith(c: number): boolean {
    return this.#firsts.has(c);
  }

  static #cache = new Map<string, OpeningTable>();

  /** The table of a dialect (Cline's tags need the tool names), from the cache when it can. */
  static of(dialect: Dialect | 'auto', toolNames: readonly string[]): OpeningTable {
    const key = toolNames.length === 0 ? dialect : `${dialect}\0${toolNames.join('\0')}`;
    let table = OpeningTable.#cache.get(key);
    if (table === undefined) {
      // Bounded: a program that makes up tool names per request does not grow it forever.
      if (OpeningTable.#cache.size >= 256) OpeningTable.#cache.clear();
      table = new OpeningTable(blockReaders(dialect, toolNames));
      OpeningTable.#cache.set(key, table);
    }
    return table;
  }
}

/**
 * The search for mid-line openings of one parser: it remembers where each opening next stands
 * in the buffer, so each line does not search to the buffer's end.
 */
export class OpeningSearch {
  /** Where each mid-line opening next stands in the buffer, and for which buffer. */
  readonly #memo: Array<{ version: number; at: number }>;

  constructor(readonly table: OpeningTable) {
    this.#memo = table.anywhere.map(() => ({ version: -1, at: -1 }));
  }

  /**
   * The earliest opening in `buf[pos, end)` that may stand mid-line, or null. `version` names
   * the buffer: a search is done once per buffer and opening, and reused while it stands ahead.
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
    let found: FoundOpening | null = null;
    const anywhere = this.table.anywhere;
    for (let k = 0; k < anywhere.length; k++) {
      const reader = anywhere[k];
      const memo = this.#memo[k];
      if (memo.version !== version || (memo.at !== -1 && memo.at < pos)) {
        memo.version = version;
        memo.at = buf.indexOf(reader.open, pos);
      }
      // An opening that opens mid-line only when what follows confirms it (Cline's tags).
      let undecided = false;
      while (memo.at !== -1 && memo.at < end) {
        if (
          reader.wordStart === true &&
          isWordChar(memo.at > 0 ? buf.charCodeAt(memo.at - 1) : before)
        ) {
          memo.at = buf.indexOf(reader.open, memo.at + 1);
          continue;
        }
        if (reader.midLine === undefined) break;
        const confirmed = reader.midLine(buf, memo.at + reader.open.length, final);
        if (confirmed === null) undecided = true;
        if (confirmed !== false) break;
        memo.at = buf.indexOf(reader.open, memo.at + 1);
      }
      if (memo.at !== -1 && memo.at < end && (found === null || memo.at < found.at))
        found = { at: memo.at, reader, undecided };
    }
    return found;
  }
}
