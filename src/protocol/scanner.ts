import type { BlockReader } from './block.js';
import {
  type BracketMatcher,
  createBracketMatcher,
  UNDECIDED,
  UNMATCHED,
} from './bracket-matcher.js';
import { BlockEnd, CallAssembler } from './call-assembler.js';
import { Char, isHighSurrogate, isLineEnd, isSpaceOrTab, isWordChar } from './chars.js';
import type { ParserEvent, ThinkingFormat } from './events.js';
import { Fence } from './fence.js';
import { type FoundOpening, OpeningSearch, type Openings, type OpeningTable } from './openings.js';
import {
  PARSER_DEFAULTS,
  type Parser,
  type ParserOptions,
  type PrefilledThinking,
} from './parser-options.js';
import { PrefilledStart } from './prefilled-thinking.js';
import { partialSuffixStart, startsWithAt } from './tag.js';

enum Top {
  LineStart = 0,
  MidLine = 1,
  Bracket = 2,
  ThinkTag = 3,
  /** Inside a block of calls, read by its dialect's engine through the call assembler. */
  Block = 4,
}

const THINK_CLOSE = '</think>';
/**
 * Thinking in tags, at a line start: the common one, Claude's, and the special tokens of
 * Seed-OSS, Command R7B, Gemma 4, Magistral, Apertus and MiniCPM3.
 */
export const THINK_TAGS = [
  ['<think>', THINK_CLOSE],
  ['<thinking>', '</thinking>'],
  ['<seed:think>', '</seed:think>'],
  ['<|START_THINKING|>', '<|END_THINKING|>'],
  ['<|channel>thought', '<channel|>'],
  ['[THINK]', '[/THINK]'],
  ['<|inner_prefix|>', '<|inner_suffix|>'],
  ['<|thought_start|>', '<|thought_end|>'],
] as const;
/**
 * How far the parser looks along a line to decide it: a fence marker line (backticks or tildes,
 * then blanks), or the blanks after a thinking block's `]`. Longer is text.
 */
const MAX_LINE_LOOKAHEAD = 256;
/** How far ahead of what is asked the pre-filled `</think>` search looks: one close settles most replies. */
const THINK_SEARCH_STEP = 2048;

/** What a line is to the line-start step (see `lineAt`). */
enum Line {
  Prose = 0,
  Blank = 1,
  /** It may begin a construct: the step decides. */
  Construct = 2,
  /** The input ends in its leading blanks. */
  Undecided = 3,
}

/**
 * The streaming parser's top level: text, thinking, and the blocks of calls, chunk by chunk.
 *
 * Outside blocks it works line by line: constructs only begin at a line start (but a special
 * token of a model family, which opens a block anywhere), so the rest of a line is skipped
 * with one `indexOf('\n')`. Input not yet decided (a partial tag, a bracket waiting for its
 * `]`) stays in `#buf`; everything before `#pos` is done with. A block of calls, `<tool>` or
 * another dialect's, is read by its engine through the one call assembler.
 */
export class Scanner implements Parser {
  readonly #onEvent: (event: ParserEvent) => void;
  readonly #maxCallBytes: number;
  readonly #maxHold: number;
  readonly #prefilled: PrefilledThinking;
  readonly #generateId: (index: number) => string;
  readonly #table: OpeningTable;
  readonly #openings: OpeningSearch;
  readonly #matcher: BracketMatcher;
  readonly #fence = new Fence(MAX_LINE_LOOKAHEAD);
  readonly #prefilledStart: PrefilledStart;
  readonly #calls: CallAssembler;
  readonly #emit = (event: ParserEvent): void => {
    // Held while the start may still be pre-filled thinking; else straight out.
    if (this.#prefilledStart.undecided) this.#prefilledStart.emit(event);
    else this.#onEvent(event);
  };

  #buf = '';
  #pos = 0;
  /** Absolute offset of `#buf[0]` in the whole input. */
  #offset = 0;
  /** The character before `#buf[0]` (a newline at the input's start): where a word begins. */
  #before: number = Char.Newline;
  #state = Top.LineStart;
  /** Start (in `#buf`) of text consumed but not yet emitted, or -1. */
  #textStart = -1;
  #thinkClose: string = THINK_CLOSE;
  /**
   * A call's special token ended a thinking tag (see BlockReader.endsThinking): the thinking
   * goes on after the call's block, until this close; it starts again only if text comes.
   */
  #thinkingAfterBlock: string | null = null;
  #thinkStartPending = false;
  #bracketAt = 0;
  /** While a bracket waits for its `]`, chunks gather here instead of being joined per feed. */
  #pending: string[] | null = null;
  #pendingLength = 0;
  #callCount = 0;
  #started = false;
  /** Bumped whenever `#buf` changes: the openings' searches are remembered per version. */
  #bufVersion = 0;
  /**
   * The pre-filled `</think>` search, in absolute offsets (the buffer only grows at its end,
   * so an answer stays true across feeds): the first close found, and how far no close starts.
   */
  #thinkCloseAt = -1;
  #thinkCloseNoneBefore = 0;
  /**
   * The next newline at or after `#pos`, remembered per buffer version: a line with no newline
   * that holds many blocks would otherwise be searched to its end once per block (O(n²)).
   */
  #newlineAt = -1;
  #newlineVersion = -1;

  constructor(options: ParserOptions, table: OpeningTable) {
    this.#onEvent = options.onEvent;
    this.#maxCallBytes = options.maxCallBytes ?? PARSER_DEFAULTS.maxCallBytes;
    this.#maxHold = options.maxHold ?? PARSER_DEFAULTS.maxHold;
    this.#prefilled = options.prefilledThinking ?? PARSER_DEFAULTS.prefilledThinking;
    this.#generateId = options.generateId ?? PARSER_DEFAULTS.generateId;
    this.#table = table;
    this.#openings = new OpeningSearch(table);
    this.#matcher = createBracketMatcher(this.#maxHold);
    this.#prefilledStart = new PrefilledStart(this.#onEvent);
    this.#calls = new CallAssembler({
      limits: { maxDepth: options.maxDepth ?? PARSER_DEFAULTS.maxDepth, schemas: options.schemas },
      maxCallBytes: this.#maxCallBytes,
      nextId: () => this.#generateId(this.#callCount++),
      // A block opens only once the start is decided (#beginBlock decides it first), so a
      // call's events never need holding. Straight to the consumer, the call site sees one
      // function: V8 can inline it, and drop an event object the consumer does not keep
      // (through #emit, which may also queue the event, every delta was allocated).
      emit: this.#onEvent,
    });
  }

  feed(chunk: string): void {
    if (chunk === '') return;
    if (this.#pending === null && this.#started) {
      const held = this.#buf.length - this.#pos;
      if (held === 0 ? this.#fastPath(chunk) : this.#fastPathAfterHeld(held, chunk)) return;
    }
    this.#take(chunk);
    if (this.#pending === null) this.#run(false);
  }

  end(): void {
    if (!this.#started) this.#begin();
    if (this.#pending !== null) {
      const rest = this.#pending.join('');
      this.#pending = null;
      this.#pendingLength = 0;
      this.#offset += this.#pos;
      this.#bufVersion++;
      if (this.#pos > 0) this.#before = this.#buf.charCodeAt(this.#pos - 1);
      this.#buf = this.#buf.slice(this.#pos) + rest;
      this.#pos = 0;
    }
    this.#run(true);
    this.#finish();
    this.reset();
  }

  reset(): void {
    this.#buf = '';
    this.#bufVersion++;
    this.#pos = 0;
    this.#offset = 0;
    this.#before = Char.Newline;
    this.#state = Top.LineStart;
    this.#textStart = -1;
    this.#fence.reset();
    this.#pending = null;
    this.#pendingLength = 0;
    this.#callCount = 0;
    this.#calls.reset();
    this.#thinkingAfterBlock = null;
    this.#thinkStartPending = false;
    this.#prefilledStart.reset();
    this.#thinkCloseAt = -1;
    this.#thinkCloseNoneBefore = 0;
    this.#started = false;
    this.#matcher.reset();
  }

  /** Characters read but not yet decided: the hold-back (docs/parser.md gives its bound). */
  get held(): number {
    return this.#buf.length - this.#pos + this.#pendingLength;
  }

  #begin(): void {
    this.#started = true;
    if (this.#prefilled === 'auto') this.#prefilledStart.begin();
    else if (this.#prefilled === 'always') {
      this.#onEvent({ type: 'thinking-start', offset: 0, format: 'prefilled' });
      this.#thinkClose = THINK_CLOSE;
      this.#state = Top.ThinkTag;
    }
  }

  #take(chunk: string): void {
    if (!this.#started) this.#begin();
    this.#prefilledStart.keep(chunk);
    if (this.#pending !== null) {
      const chunkStart = this.#offset + this.#buf.length + this.#pendingLength;
      this.#pending.push(chunk);
      this.#pendingLength += chunk.length;
      if (this.#matcher.match(this.#bracketAt, chunk, chunkStart) === UNDECIDED) return;
      chunk = this.#pending.join('');
      this.#pending = null;
      this.#pendingLength = 0;
    }
    this.#bufVersion++;
    // Only the undecided tail is kept: concatenating the whole message per feed is O(n²).
    if (this.#pos > 0) {
      this.#offset += this.#pos;
      this.#before = this.#buf.charCodeAt(this.#pos - 1);
      this.#buf = this.#buf.slice(this.#pos) + chunk;
      this.#pos = 0;
    } else {
      this.#buf += chunk;
    }
  }

  #run(final: boolean): void {
    let going = true;
    while (going) {
      switch (this.#state) {
        case Top.LineStart:
          going = this.#stepLineStart(final);
          break;
        case Top.MidLine:
          going = this.#stepMidLine(final);
          break;
        case Top.Bracket:
          going = this.#stepBracket(final);
          break;
        case Top.ThinkTag:
          going = this.#stepThinkTag(final);
          break;
        case Top.Block:
          going = this.#stepBlock(final);
          break;
      }
    }
    this.#flushText(this.#pos);
  }

  #finish(): void {
    if (this.#state === Top.ThinkTag) {
      const at = this.#offset + this.#pos;
      this.#emit({
        type: 'warning',
        code: 'unclosed-thinking',
        message: `thinking was not closed with ${this.#thinkClose} before the input ended`,
        offset: at,
      });
      if (!this.#thinkStartPending) this.#emit({ type: 'thinking-end', offset: at });
    }
    this.#prefilledStart.decideNot();
  }

  // --- Text and thinking. ---

  #flushText(end: number): void {
    if (this.#textStart !== -1 && end > this.#textStart) {
      const offset = this.#offset;
      if (this.#prefilledStart.undecided)
        this.#prefilledStart.textAt(offset + this.#textStart, offset + end);
      else this.#onEvent({ type: 'text', text: this.#buf.slice(this.#textStart, end) });
    }
    this.#textStart = -1;
  }

  #markText(from: number): void {
    if (this.#textStart === -1) this.#textStart = from;
  }

  #beginThinking(at: number, format: ThinkingFormat): void {
    this.#flushText(at);
    this.#emit({ type: 'thinking-start', offset: this.#offset + at, format });
  }

  /** A `</think>` at absolute `at` ends a pre-filled thinking block that began the input. */
  #decidePrefilled(at: number): void {
    this.#textStart = -1;
    this.#fence.reset();
    this.#prefilledStart.decide(at, THINK_CLOSE.length);
  }

  // --- Blocks of calls. ---

  #beginBlock(at: number, reader: BlockReader): void {
    this.#flushText(at);
    this.#prefilledStart.decideNot();
    this.#calls.begin(reader, this.#offset + at);
    this.#pos = at;
    this.#state = Top.Block;
  }

  /** Runs the open block over the buffer; returns false when it waits for input. */
  #stepBlock(final: boolean): boolean {
    const calls = this.#calls;
    const from = this.#pos;
    this.#pos = calls.run(this.#buf, from, this.#offset, final);
    if (calls.ended === BlockEnd.Open) return false;
    // Its own opening inside an unclosed block: the next block opens right there.
    if (calls.ended === BlockEnd.Reopen) this.#beginBlockAgain();
    else if (this.#thinkingAfterBlock !== null) {
      this.#thinkClose = this.#thinkingAfterBlock;
      this.#thinkingAfterBlock = null;
      this.#thinkStartPending = true;
      this.#state = Top.ThinkTag;
    } else this.#state = Top.MidLine;
    return true;
  }

  #beginBlockAgain(): void {
    const reader = this.#table.all.find((r) => startsWithAt(this.#buf, this.#pos, r.open) === true);
    if (reader === undefined) this.#state = Top.MidLine;
    else this.#beginBlock(this.#pos, reader);
  }

  /**
   * Opens the block of the first of `candidates` whose opening stands at `i`: true when one
   * opened, null when the input ends on a prefix of one (more input decides), else false.
   */
  #openBlockAt(i: number, candidates: Openings, final: boolean): boolean | null {
    const buf = this.#buf;
    // Most places hold none of them whole: one walk answers for all.
    const stands = candidates.prefixes.standsAt(buf, i);
    if (stands !== true) return stands;
    let waiting = false;
    for (const reader of candidates.readers) {
      let opens = startsWithAt(buf, i, reader.open);
      if (opens === true && reader.lineStart !== undefined)
        opens = reader.lineStart(buf, i + reader.open.length, final);
      if (opens === true) {
        this.#beginBlock(i, reader);
        return true;
      }
      if (opens === null) waiting = true;
    }
    return waiting ? null : false;
  }

  // --- Line starts. ---

  /** At a line start, after leading blanks: returns false when it waits for input. */
  #stepLineStart(final: boolean): boolean {
    const buf = this.#buf;
    const n = buf.length;
    if (this.#offset + this.#pos === 0 && this.#table.inputStart.length > 0) {
      const opened = this.#openAtInputStart(final);
      if (opened !== undefined) return opened;
    }
    let i = this.#pos;
    while (i < n && isSpaceOrTab(buf.charCodeAt(i))) i++;
    if (i > this.#pos) {
      this.#markText(this.#pos);
      this.#pos = i;
    }
    if (i >= n) return false;
    const c = buf.charCodeAt(i);
    if (isLineEnd(c)) {
      this.#markText(i);
      this.#pos = i + 1;
      return true;
    }
    const fence = this.#fence;
    const table = this.#table;
    if (c === Char.Lt) {
      const decided = this.#tagAtLineStart(i, final);
      if (decided !== undefined) return decided;
    } else if (c === Char.OpenBracket && !fence.open) {
      const decided = this.#bracketAtLineStart(i, final);
      if (decided !== undefined) return decided;
    } else if (
      c === Char.OpenBracket &&
      fence.callable &&
      table.bracketInFence.readers.length > 0
    ) {
      // A fence's first line may be a list of calls (xLAM's ```json); never thinking there.
      const opened = this.#openBlockAt(i, table.bracketInFence, final);
      if (opened === true) return true;
      if (opened === null && !final) return false;
    } else if (c === Char.OpenBrace && table.brace.readers.length > 0 && !fence.open) {
      const opened = this.#openBlockAt(i, table.brace, final);
      if (opened === true) return true;
      if (opened === null && !final) return false;
    } else if (c === Char.OpenBrace && fence.callable && table.braceInFence.readers.length > 0) {
      // A fence's first line may be a call object (Hermes' in ```json).
      const opened = this.#openBlockAt(i, table.braceInFence, final);
      if (opened === true) return true;
      if (opened === null && !final) return false;
    } else if (table.other.readers.length > 0 && table.startsWith(c) && !fence.open) {
      const opened = this.#openBlockAt(i, table.other, final);
      if (opened === true) return true;
      if (opened === null && !final) return false;
    } else if (c === Char.Backtick || c === Char.Tilde) {
      const marker = fence.line(buf, i, c, final);
      if (marker === null) return false;
      if (marker) {
        this.#state = Top.MidLine;
        return true;
      }
    }
    if (fence.open) fence.callable = false;
    this.#state = Top.MidLine;
    return true;
  }

  /**
   * A block that opens only at the start of the input (the reply continues its prompt):
   * the step's answer, or undefined when none begins here.
   */
  #openAtInputStart(final: boolean): boolean | undefined {
    for (const reader of this.#table.inputStart) {
      const begins = (reader.inputStart as NonNullable<BlockReader['inputStart']>)(
        this.#buf,
        final,
      );
      if (begins === null) return false;
      if (begins) {
        this.#beginBlock(0, reader);
        return true;
      }
    }
    return undefined;
  }

  /**
   * A `<` at a line start: a block's opening (in a fence only while the fence holds nothing
   * else), or a thinking tag. Returns the step's answer, or undefined when the line is text.
   */
  #tagAtLineStart(i: number, final: boolean): boolean | undefined {
    const fence = this.#fence;
    if (!fence.open || fence.callable) {
      const opened = this.#openBlockAt(i, this.#table.tag, final);
      if (opened === true) return true;
      if (opened === null && !final) return false;
    }
    if (fence.open) return undefined;
    const thinking = this.#thinkTagAt(i, final);
    return thinking === false ? undefined : thinking !== null;
  }

  /** A thinking tag at `i`: true when one opened, null when more input decides, else false. */
  #thinkTagAt(i: number, final: boolean): boolean | null {
    let waiting = false;
    for (const [open, close] of THINK_TAGS) {
      const opens = startsWithAt(this.#buf, i, open);
      if (opens === true) {
        this.#flushText(i);
        this.#prefilledStart.decideNot();
        this.#beginThinking(i, 'tag');
        this.#thinkClose = close;
        this.#pos = i + open.length;
        this.#state = Top.ThinkTag;
        return true;
      }
      if (opens === null) waiting = true;
    }
    return waiting && !final ? null : false;
  }

  /** A `[` at a line start: a block's opening, Magistral's `[THINK]`, or bracketed thinking. */
  #bracketAtLineStart(i: number, final: boolean): boolean | undefined {
    const opened = this.#openBlockAt(i, this.#table.bracket, final);
    if (opened === true) return true;
    if (opened === null && !final) return false;
    const thinking = this.#thinkTagAt(i, final);
    if (thinking !== false) return thinking === true;
    this.#flushText(i);
    this.#bracketAt = this.#offset + i;
    this.#pos = i;
    this.#state = Top.Bracket;
    return true;
  }

  /** What the line that starts at `s[i]` is to the line-start step. */
  #lineAt(s: string, i: number): Line {
    const n = s.length;
    while (i < n && isSpaceOrTab(s.charCodeAt(i))) i++;
    if (i >= n) return Line.Undecided;
    const c = s.charCodeAt(i);
    if (c === Char.Newline) return Line.Blank;
    return isPlainLineStart(c) && !this.#table.startsWith(c) ? Line.Prose : Line.Construct;
  }

  // --- The rest of a line. ---

  /** The earliest opening that may stand mid-line in `buf[pos, end)`, outside fences. */
  #findAnywhere(end: number, final: boolean): FoundOpening | null {
    return this.#table.anywhere.length === 0 || this.#fence.open
      ? null
      : this.#openings.find(this.#buf, this.#pos, end, final, this.#bufVersion, this.#before);
  }

  #nextNewline(): number {
    if (
      this.#newlineVersion !== this.#bufVersion ||
      (this.#newlineAt !== -1 && this.#newlineAt < this.#pos)
    ) {
      this.#newlineVersion = this.#bufVersion;
      this.#newlineAt = this.#buf.indexOf('\n', this.#pos);
    }
    return this.#newlineAt;
  }

  /**
   * The rest of a line is text, unless a special-token block opens in it; in 'auto' mode a
   * `</think>` in it may end pre-filled thinking.
   */
  #stepMidLine(final: boolean): boolean {
    const buf = this.#buf;
    const n = buf.length;
    const anywhere = this.#table.anywhere;
    const prefilled = this.#prefilledStart;
    const newline = this.#nextNewline();
    if (newline !== -1 && (anywhere.length === 0 || this.#fence.open) && !prefilled.undecided)
      return this.#skipProse(newline, final);
    let end = newline === -1 ? n : newline + 1;
    const opening = this.#findAnywhere(end, final);
    if (opening?.undecided) {
      // What follows it decides whether it opens a call: the text waits there.
      end = opening.at;
    } else if (opening !== null) {
      const close = prefilled.undecided ? this.#thinkCloseBefore(opening.at) : -1;
      if (close === -1) {
        this.#markText(this.#pos);
        this.#beginBlock(opening.at, opening.reader);
        return true;
      }
    } else if (newline === -1 && !final && anywhere.length > 0 && !this.#fence.open) {
      // Keep a partial opening at the end for the next chunk.
      end = Math.min(end, this.#table.anywherePrefixes.partialSuffixStart(buf, this.#pos));
    }
    if (prefilled.undecided) {
      const close = this.#thinkCloseBefore(end);
      if (close !== -1) {
        this.#markText(this.#pos);
        this.#decidePrefilled(this.#offset + close);
        this.#pos = close + THINK_CLOSE.length;
        return true;
      }
      // Keep a partial `</think>` at the end for the next chunk.
      if (newline === -1 && !final)
        end = Math.min(end, partialSuffixStart(buf, this.#pos, THINK_CLOSE));
    }
    if (newline === -1 && !final && end > this.#pos && isHighSurrogate(buf.charCodeAt(end - 1)))
      end--;
    if (end > this.#pos) {
      this.#markText(this.#pos);
      this.#pos = end;
    }
    if (prefilled.undecided && this.#offset + this.#pos > this.#maxHold) prefilled.decideNot();
    if (newline === -1 || end <= newline) return false;
    this.#state = Top.LineStart;
    return true;
  }

  /**
   * Prose, when nothing can open mid-line: the rest of this line, and every following line
   * that starts plain, is text, found in one scan from newline to newline instead of a
   * line-start step and a mid-line step per line. Stops at the first line start that may open
   * something (a tag, a bracket, a fence, blanks), or mid-line at the end of the input.
   */
  #skipProse(newline: number, final: boolean): boolean {
    const buf = this.#buf;
    const n = buf.length;
    const fence = this.#fence;
    let nl = newline;
    while (nl + 1 < n) {
      const line = this.#lineAt(buf, nl + 1);
      if (line === Line.Construct || line === Line.Undecided) break;
      // A line of prose in a fence is no call's line: the fence holds no calls.
      if (line === Line.Prose && fence.open) fence.callable = false;
      const next = buf.indexOf('\n', nl + 1);
      if (next === -1) {
        let end = n;
        if (!final && isHighSurrogate(buf.charCodeAt(end - 1))) end--;
        this.#markText(this.#pos);
        this.#pos = end;
        return false;
      }
      nl = next;
    }
    this.#markText(this.#pos);
    this.#pos = nl + 1;
    this.#state = Top.LineStart;
    return true;
  }

  /**
   * Where the first `</think>` that starts in `buf[pos, limit)` (and within `maxHold`) is, or
   * -1. The text is searched in steps, each character about once: the whole 16 KiB window
   * once per message cost 13% of a whole-string parse, though the first call decides it.
   */
  #thinkCloseBefore(limit: number): number {
    const buf = this.#buf;
    const offset = this.#offset;
    const from = offset + this.#pos;
    if (this.#thinkCloseAt !== -1 && this.#thinkCloseAt < from) this.#thinkCloseAt = -1;
    const last = Math.min(offset + limit, this.#maxHold + 1);
    while (this.#thinkCloseAt === -1 && this.#thinkCloseNoneBefore < last) {
      const start = Math.max(this.#thinkCloseNoneBefore, from);
      const end = Math.min(
        offset + buf.length,
        Math.max(offset + limit, start + THINK_SEARCH_STEP) + THINK_CLOSE.length - 1,
      );
      const found = buf.slice(start - offset, end - offset).indexOf(THINK_CLOSE);
      if (found !== -1) this.#thinkCloseAt = start + found;
      else if (end - start < THINK_CLOSE.length) break;
      else this.#thinkCloseNoneBefore = end - THINK_CLOSE.length + 1;
      if (end === offset + buf.length) break;
    }
    return this.#thinkCloseAt !== -1 && this.#thinkCloseAt < last
      ? this.#thinkCloseAt - offset
      : -1;
  }

  // --- Thinking. ---

  /** Inside a thinking tag: thinking streams out until the closing tag. */
  #stepThinkTag(final: boolean): boolean {
    const buf = this.#buf;
    const n = buf.length;
    const thinkClose = this.#thinkClose;
    let close = buf.indexOf(thinkClose, this.#pos);
    // A call's special token inside thinking never closed: the thinking ends there.
    let ender = '';
    for (const opening of this.#table.thinkingEnders) {
      const at = buf.indexOf(opening, this.#pos);
      if (at !== -1 && (close === -1 || at < close)) {
        close = at;
        ender = opening;
      }
    }
    let end = close === -1 ? n : close;
    if (close === -1 && !final) {
      end = partialSuffixStart(buf, this.#pos, thinkClose);
      for (const opening of this.#table.thinkingEnders)
        end = Math.min(end, partialSuffixStart(buf, this.#pos, opening));
      if (end > this.#pos && isHighSurrogate(buf.charCodeAt(end - 1))) end--;
    }
    if (end > this.#pos) {
      if (this.#thinkStartPending) {
        this.#thinkStartPending = false;
        this.#emit({ type: 'thinking-start', offset: this.#offset + this.#pos, format: 'tag' });
      }
      this.#emit({ type: 'thinking-delta', text: buf.slice(this.#pos, end) });
    }
    this.#pos = end;
    if (close === -1) return false;
    const started = !this.#thinkStartPending;
    this.#thinkStartPending = false;
    if (ender !== '') {
      // The call is read; the thinking goes on after it (Kimi's interleaved thinking).
      if (started) this.#emit({ type: 'thinking-end', offset: this.#offset + close });
      this.#thinkingAfterBlock = thinkClose;
      this.#state = Top.MidLine;
      return true;
    }
    if (!started) {
      // The close right after a call's block: the thinking had ended at the call.
      this.#pos = close + thinkClose.length;
      this.#state = Top.MidLine;
      return true;
    }
    this.#pos = close + thinkClose.length;
    this.#emit({ type: 'thinking-end', offset: this.#offset + this.#pos });
    this.#state = Top.MidLine;
    return true;
  }

  /** At a line-start `[`: thinking when its `]` ends a line and it is no markdown. */
  #stepBracket(final: boolean): boolean {
    const buf = this.#buf;
    const n = buf.length;
    const offset = this.#offset;
    let close = this.#matcher.match(this.#bracketAt, buf, offset);
    if (close === UNDECIDED) {
      if (!final) {
        this.#pending = [];
        return false;
      }
      close = UNMATCHED;
    }
    const at = this.#bracketAt - offset;
    if (close !== UNMATCHED) {
      const rel = close - offset;
      let k = rel + 1;
      // Blanks after the `]` are looked at only so far: past that the line does not end there.
      const limit = k + MAX_LINE_LOOKAHEAD;
      while (k < n && k < limit && isSpaceOrTab(buf.charCodeAt(k))) k++;
      if (k >= n && k < limit && !final) return false;
      const endsLine = k < limit && (k >= n || isLineEnd(buf.charCodeAt(k)));
      const content = buf.slice(at + 1, rel);
      if (endsLine && !isMarkdownBracket(content)) {
        this.#beginThinking(at, 'bracket');
        this.#emit({ type: 'thinking-delta', text: content });
        this.#emit({ type: 'thinking-end', offset: close + 1 });
        this.#pos = rel + 1;
        this.#state = Top.MidLine;
        return true;
      }
    }
    this.#markText(at);
    this.#pos = at + 1;
    this.#state = Top.MidLine;
    return true;
  }

  // --- The fast path. ---

  /**
   * A block's one held character (a `<` or a backslash its stream could not yet decide, half
   * of a surrogate pair) and the chunk after it, taken by the fast path as one chunk when they
   * are a value's text: as the full path would read them, since a stream reads again from
   * where it waited. A longer held tail is a tag being written: on the corpus, in every
   * family, none was a value's text, so joining it to try would only cost.
   */
  #fastPathAfterHeld(held: number, chunk: string): boolean {
    return (
      held === 1 && this.#state === Top.Block && this.#fastPath(this.#buf.slice(this.#pos) + chunk)
    );
  }

  /**
   * Most chunks of a stream fall wholly inside a line of prose or a value being written: they
   * are emitted as they are, without the buffer and the state machine (which the cost per
   * 4-character chunk is all about). Only when nothing is held back.
   */
  #fastPath(chunk: string): boolean {
    const state = this.#state;
    if (state === Top.MidLine || state === Top.LineStart) {
      const prefilled = this.#prefilledStart;
      // A special-token block can open anywhere: a chunk with its first character takes the full path.
      const table = this.#table;
      if (!this.#fence.open) {
        if (table.anywhereFirst.length > 0 && holdsAny(chunk, table.anywhereFirst)) return false;
        // A word's first letter is common: only a chunk with it is looked at further.
        if (
          table.anywhereWordFirst.length > 0 &&
          holdsAny(chunk, table.anywhereWordFirst) &&
          holdsWord(
            chunk,
            table.anywhereWords,
            // The buffer, all of it decided, may still hold the character before the chunk.
            this.#buf.length > 0 ? this.#buf.charCodeAt(this.#buf.length - 1) : this.#before,
          )
        )
          return false;
      }
      const lineStart = this.#proseLineStarts(chunk, state === Top.LineStart);
      if (lineStart === null || isHighSurrogate(chunk.charCodeAt(chunk.length - 1))) return false;
      if (prefilled.undecided) {
        // Without a `<` the chunk cannot hold (the start of) a `</think>`.
        if (chunk.indexOf('<') !== -1) return false;
        const at = this.#offset + this.#pos;
        prefilled.keep(chunk);
        prefilled.textAt(at, at + chunk.length);
      } else this.#onEvent({ type: 'text', text: chunk });
      this.#state = lineStart ? Top.LineStart : Top.MidLine;
      if (prefilled.undecided && this.#offset + this.#buf.length + chunk.length > this.#maxHold)
        prefilled.decideNot();
    } else if (state === Top.Block) {
      if (!this.#calls.streamValue(chunk, this.#offset + this.#pos + chunk.length)) return false;
    } else {
      return false;
    }
    this.#offset += this.#pos + chunk.length;
    this.#before = chunk.charCodeAt(chunk.length - 1);
    this.#buf = '';
    this.#bufVersion++;
    this.#pos = 0;
    return true;
  }

  /**
   * Whether every line start in `chunk` (after each newline, and its first character when
   * `atLineStart`) begins prose or a blank line, which the full path would only pass through:
   * then the chunk is text as it is. Returns whether the chunk ends at a line start (or in
   * its blanks), or null when some line start needs the state machine (a possible tag,
   * bracket, fence or `\r`, or any line start in a fence that may still hold calls).
   */
  #proseLineStarts(chunk: string, atLineStart: boolean): boolean | null {
    let newline = chunk.indexOf('\n');
    if (newline === -1 && !atLineStart) return false;
    if (this.#fence.open && this.#fence.callable) return null;
    let start = atLineStart ? 0 : newline + 1;
    for (;;) {
      if (start === chunk.length) return true;
      const line = this.#lineAt(chunk, start);
      if (line === Line.Undecided) return true;
      if (line === Line.Construct) return null;
      newline = chunk.indexOf('\n', start);
      if (newline === -1) return false;
      start = newline + 1;
    }
  }
}

/**
 * Whether `chunk` holds one of `words`, or the start of one at its end where a word begins
 * (`before` is the character before the chunk): the `f` of `of` starts no `functools`.
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

/** A line whose first character after its blanks is this one is prose: no construct, no line end. */
function isPlainLineStart(c: number): boolean {
  return !(
    isLineEnd(c) ||
    c === Char.Lt ||
    c === Char.OpenBracket ||
    c === Char.Backtick ||
    c === Char.Tilde
  );
}

/** Markdown that a line-start bracket can be: a task box `[ ]` / `[x]`, or nothing at all. */
function isMarkdownBracket(content: string): boolean {
  return content === '' || content === ' ' || content === 'x' || content === 'X';
}
