import { UNDECIDED, UNMATCHED } from './bracket-matcher.js';
import type { BuiltReader } from './built-reader.js';
import { BlockEnd, CallAssembler } from './call-assembler.js';
import { Char, isHighSurrogate, isLineEnd, isSpaceOrTab } from './chars.js';
import type { ParserEvent, ThinkingFormat } from './events.js';
import { Fence } from './fence.js';
import { LOOKAHEAD } from './lookahead.js';
import {
  type FoundOpening,
  lineStartOpening,
  OpeningSearch,
  type Openings,
  type OpeningTable,
} from './openings.js';
import {
  PARSER_DEFAULTS,
  type Parser,
  type ParserOptions,
  type PrefilledThinking,
} from './parser-options.js';
import { PrefilledStart } from './prefilled-thinking.js';
import { lastProseNewline, NextNewline, proseLineStarts } from './prose-lines.js';
import { partialSuffixStart, startsWithAt } from './tag.js';
import {
  BracketWait,
  isBracketThinking,
  TagThinking,
  THINK_CLOSE,
  thinkTagAt,
} from './thinking.js';

enum Top {
  LineStart = 0,
  MidLine = 1,
  Bracket = 2,
  ThinkTag = 3,
  /** Inside a block of calls, read by its dialect's engine through the call assembler. */
  Block = 4,
}

/**
 * The streaming parser's top level: text, thinking, and the blocks of calls, chunk by chunk.
 *
 * Outside blocks it works line by line: constructs only begin at a line start (but a special
 * token of a model family, which opens a block anywhere), so the rest of a line is skipped
 * with one `indexOf('\n')`. Input not yet decided (a partial tag, a bracket waiting for its
 * `]`) stays in `#buf`; everything before `#pos` is done with. A block of calls, of any
 * dialect, is read by its engine through the one call assembler.
 */
export class Scanner implements Parser {
  readonly #onEvent: (event: ParserEvent) => void;
  readonly #maxHold: number;
  readonly #prefilled: PrefilledThinking;
  readonly #table: OpeningTable;
  readonly #openings: OpeningSearch;
  readonly #bracket: BracketWait;
  readonly #fence = new Fence(LOOKAHEAD.fenceLine.value);
  readonly #prefilledStart: PrefilledStart;
  readonly #calls: CallAssembler;
  readonly #thinking: TagThinking;
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
  #callCount = 0;
  #started = false;
  /** Bumped whenever `#buf` changes: the openings' searches are remembered per version. */
  #bufVersion = 0;
  readonly #newline = new NextNewline();

  constructor(options: ParserOptions, table: OpeningTable) {
    this.#onEvent = options.onEvent;
    this.#maxHold = options.maxHold ?? PARSER_DEFAULTS.maxHold;
    this.#prefilled = options.prefilledThinking ?? PARSER_DEFAULTS.prefilledThinking;
    const generateId = options.generateId ?? PARSER_DEFAULTS.generateId;
    this.#table = table;
    this.#openings = new OpeningSearch(table);
    this.#bracket = new BracketWait(this.#maxHold);
    this.#prefilledStart = new PrefilledStart(this.#onEvent, this.#maxHold);
    this.#thinking = new TagThinking(this.#emit, table.thinkingEnders, table.thinkingRecoveries);
    this.#calls = new CallAssembler({
      limits: { maxDepth: options.maxDepth ?? PARSER_DEFAULTS.maxDepth, schemas: options.schemas },
      maxCallBytes: options.maxCallBytes ?? PARSER_DEFAULTS.maxCallBytes,
      nextId: () => generateId(this.#callCount++),
      // A block opens only once the start is decided (#beginBlock decides it first), so a
      // call's events never need holding. Straight to the consumer, the call site sees one
      // function: V8 can inline it, and drop an event object the consumer does not keep
      // (through #emit, which may also queue the event, every delta was allocated).
      emit: this.#onEvent,
    });
  }

  feed(chunk: string): void {
    if (chunk === '') return;
    // A bracket waiting for its `]` keeps the state at Top.Bracket, which the fast path leaves.
    if (this.#state !== Top.Bracket && this.#started) {
      const held = this.#buf.length - this.#pos;
      if (held === 0) {
        if (this.#fastPath(chunk)) return;
      } else if (
        this.#state === Top.Block
          ? this.#calls.continues(chunk, this.#offset + this.#buf.length + chunk.length)
          : this.#openings.continuedBy(chunk, this.#bufVersion)
      ) {
        // The block, or the text, waits on a token the chunk only continues: nothing to read.
        this.#append(chunk);
        return;
      } else if (this.#fastPathAfterHeld(held, chunk)) return;
    }
    if (this.#take(chunk)) this.#run(false);
  }

  /** The end of the input: each step decides what it holds by its row (end-of-input.ts). */
  end(): void {
    if (!this.#started) this.#begin();
    this.#joinGathered(); // A step told the input ended decides on all of it.
    this.#run(true);
    // Rows 'thinking-open' (it ends, with a warning), 'prefilled-undecided' (the start is text).
    if (this.#state === Top.ThinkTag) this.#thinking.endOfInput(this.#offset + this.#pos);
    this.#prefilledStart.decideNot();
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
    this.#callCount = 0;
    this.#calls.reset();
    this.#thinking.reset();
    this.#prefilledStart.reset();
    this.#started = false;
    this.#bracket.reset();
  }

  /** Characters read but not yet decided: the hold-back (docs/parser.md gives its bound). */
  get held(): number {
    return this.#buf.length - this.#pos + this.#bracket.pendingLength;
  }

  #begin(): void {
    this.#started = true;
    if (this.#prefilled === 'auto') this.#prefilledStart.begin();
    else if (this.#prefilled === 'always') {
      this.#onEvent({ type: 'thinking-start', offset: 0, format: 'prefilled' });
      this.#thinking.open(THINK_CLOSE);
      this.#state = Top.ThinkTag;
    }
  }

  /** Takes a chunk in; false while a bracket waits for its `]` (input gathered past a run). */
  #take(chunk: string): boolean {
    if (!this.#started) this.#begin();
    this.#prefilledStart.keep(chunk);
    const bracket = this.#bracket;
    if (bracket.pending !== null) return bracket.gather(chunk, this.#offset + this.#buf.length);
    this.#append(chunk);
    return true;
  }

  /** Input after the buffer's end. */
  #append(chunk: string): void {
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
      if (this.#state > Top.Bracket) this.#joinGathered(); // A join would cut their deltas.
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
      if (!going && this.#state !== Top.Bracket) going = this.#joinGathered();
    }
    this.#flushText(this.#pos);
  }

  /** Joins the input brackets gathered, for a step at the buffer's end or a `]`: true if any. */
  #joinGathered(): boolean {
    if (this.#bracket.pending === null) return false;
    this.#buf += this.#bracket.drain();
    this.#bufVersion++;
    return true;
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

  /**
   * The opening of `reader` at `at`: its block begins; or, for an answer marker, the marker is
   * told and the state stays what it was (a line start after a marker at one is a line start).
   */
  #beginBlock(at: number, reader: BuiltReader): void {
    this.#flushText(at);
    this.#prefilledStart.decideNot();
    if (reader.stream === null) {
      this.#emit({ type: 'marker', text: reader.open, offset: this.#offset + at });
      this.#pos = at + reader.open.length;
      return;
    }
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
    else this.#state = this.#thinking.resumeAfterBlock() ? Top.ThinkTag : Top.MidLine;
    return true;
  }

  #beginBlockAgain(): void {
    const reader = this.#table.all.find((r) => startsWithAt(this.#buf, this.#pos, r.open) === true);
    if (reader === undefined) this.#state = Top.MidLine;
    else this.#beginBlock(this.#pos, reader);
  }

  /**
   * Opens the block of the first of `candidates` whose opening stands at the line start `i`:
   * the step's answer (true: one opened, false: more input decides), else undefined.
   */
  #openBlockAt(i: number, candidates: Openings, final: boolean): boolean | undefined {
    const reader = lineStartOpening(this.#buf, i, candidates, final);
    // Row 'partial-opening': at the end, an opening not yet complete is no block.
    if (reader === undefined || (reader === null && final)) return undefined;
    // Only more of an opening decides: held (not at the input's start, its own openings).
    if (reader === null && this.#offset + i > 0 && !this.#prefilledStart.undecided)
      this.#openings.hold(this.#buf, i, this.#bufVersion, candidates.prefixes);
    if (reader === null) return false;
    this.#beginBlock(i, reader);
    return true;
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
    if (i >= n) return false; // Row 'line-start-blanks': the blanks are text already.
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
      // A fence's first line may be a list of calls (in ```json); never thinking there.
      const decided = this.#openBlockAt(i, table.bracketInFence, final);
      if (decided !== undefined) return decided;
    } else if (c === Char.OpenBrace && table.brace.readers.length > 0 && !fence.open) {
      const decided = this.#openBlockAt(i, table.brace, final);
      if (decided !== undefined) return decided;
    } else if (c === Char.OpenBrace && fence.callable && table.braceInFence.readers.length > 0) {
      // A fence's first line may be a call object (in ```json).
      const decided = this.#openBlockAt(i, table.braceInFence, final);
      if (decided !== undefined) return decided;
    } else if (table.other.readers.length > 0 && table.startsWith(c) && !fence.open) {
      const decided = this.#openBlockAt(i, table.other, final);
      if (decided !== undefined) return decided;
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
    const reader = this.#table.inputStartOpening(this.#buf, final);
    if (reader === null) return false;
    if (reader === undefined) return undefined;
    this.#beginBlock(0, reader);
    return true;
  }

  /**
   * A `<` at a line start: a block's opening (in a fence only while the fence holds nothing
   * else), or a thinking tag. Returns the step's answer, or undefined when the line is text.
   */
  #tagAtLineStart(i: number, final: boolean): boolean | undefined {
    const fence = this.#fence;
    if (!fence.open || fence.callable) {
      const decided = this.#openBlockAt(i, this.#table.tag, final);
      if (decided !== undefined) return decided;
    }
    if (fence.open) return undefined;
    const thinking = this.#thinkTagAt(i, final);
    return thinking === false ? undefined : thinking !== null;
  }

  /** A thinking tag at `i`: true when one opened, null when more input decides, else false. */
  #thinkTagAt(i: number, final: boolean): boolean | null {
    const tag = thinkTagAt(this.#buf, i, final, this.#table.thinkTags);
    if (tag === undefined) return false;
    if (tag === null) return null;
    this.#flushText(i);
    this.#prefilledStart.decideNot();
    this.#beginThinking(i, 'tag');
    this.#thinking.open(tag[1]);
    this.#pos = i + tag[0].length;
    this.#state = Top.ThinkTag;
    return true;
  }

  /** A `[` at a line start: a block's opening, a thinking tag, or bracketed thinking. */
  #bracketAtLineStart(i: number, final: boolean): boolean | undefined {
    const decided = this.#openBlockAt(i, this.#table.bracket, final);
    if (decided !== undefined) return decided;
    const thinking = this.#thinkTagAt(i, final);
    if (thinking !== false) return thinking === true;
    this.#flushText(i);
    this.#bracket.at = this.#offset + i;
    this.#pos = i;
    this.#state = Top.Bracket;
    return true;
  }

  // --- The rest of a line. ---

  /** The earliest opening that may stand mid-line in `buf[pos, end)`, outside fences. */
  #findAnywhere(end: number, final: boolean): FoundOpening | null {
    return this.#table.anywhere.length === 0 || this.#fence.open
      ? null
      : this.#openings.find(this.#buf, this.#pos, end, final, this.#bufVersion, this.#before);
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
    const newline = this.#newline.find(this.#buf, this.#pos, this.#bufVersion);
    if (newline !== -1 && (anywhere.length === 0 || this.#fence.open) && !prefilled.undecided)
      return this.#skipProse(newline, final);
    let end = newline === -1 ? n : newline + 1;
    const opening = this.#findAnywhere(end, final);
    if (opening?.undecided) {
      // What follows it decides whether it opens a call: the text waits there.
      end = opening.at;
    } else if (opening !== null) {
      const close = prefilled.undecided
        ? prefilled.closeBefore(buf, this.#offset, this.#pos, opening.at)
        : -1;
      if (close === -1) {
        this.#markText(this.#pos);
        this.#beginBlock(opening.at, opening.reader);
        return true;
      }
    } else if (newline === -1 && !final && anywhere.length > 0 && !this.#fence.open) {
      // Keep a partial opening for the next chunk (row 'partial-opening-mid-line': else text).
      end = Math.min(end, this.#table.anywherePrefixes.partialSuffixStart(buf, this.#pos));
      if (!prefilled.undecided) this.#openings.hold(buf, end, this.#bufVersion);
    }
    if (prefilled.undecided) {
      const close = prefilled.closeBefore(buf, this.#offset, this.#pos, end);
      if (close !== -1) {
        this.#markText(this.#pos);
        this.#decidePrefilled(this.#offset + close);
        this.#pos = close + THINK_CLOSE.length;
        return true;
      }
      // Keep a partial `</think>` for the next chunk (row 'prefilled-undecided': else text).
      if (newline === -1 && !final)
        end = Math.min(end, partialSuffixStart(buf, this.#pos, THINK_CLOSE));
    }
    // Row 'partial-surrogate': half a pair waits for its other half, unless the input ended.
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
    const nl = lastProseNewline(buf, newline, this.#fence, this.#table);
    this.#markText(this.#pos);
    if (nl === -1) {
      const n = buf.length;
      // Rows 'mid-line' and 'partial-surrogate': the line is text, to its end at the end.
      this.#pos = !final && isHighSurrogate(buf.charCodeAt(n - 1)) ? n - 1 : n;
      return false;
    }
    this.#pos = nl + 1;
    this.#state = Top.LineStart;
    return true;
  }

  // --- Thinking. ---

  /** Inside a thinking tag: thinking streams out until the closing tag. */
  #stepThinkTag(final: boolean): boolean {
    this.#pos = this.#thinking.run(this.#buf, this.#pos, this.#offset, final);
    if (this.#thinking.waiting) return false;
    this.#state = Top.MidLine;
    return true;
  }

  /** At a line-start `[`: thinking when its `]` ends a line and it is no markdown. */
  #stepBracket(final: boolean): boolean {
    const buf = this.#buf;
    const offset = this.#offset;
    let close = this.#bracket.close(buf, offset);
    if (close !== UNDECIDED && close !== UNMATCHED && this.#joinGathered()) return true;
    if (close === UNDECIDED) {
      if (!final) {
        this.#bracket.wait();
        return false;
      }
      close = UNMATCHED; // Row 'bracket-open': no `]` came, so the `[` is text.
    }
    const at = this.#bracket.at - offset;
    if (close !== UNMATCHED) {
      const rel = close - offset;
      // Row 'bracket-closed': blanks up to the end of the input end the line, so it is thinking.
      const thinking = isBracketThinking(buf, at, rel, LOOKAHEAD.bracketLineEnd.value, final);
      if (thinking === null) return false;
      if (thinking) {
        this.#beginThinking(at, 'bracket');
        this.#emit({ type: 'thinking-delta', text: buf.slice(at + 1, rel) });
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
   * Most chunks of a stream fall wholly inside a line of prose, thinking, or a value being
   * written: they are emitted as they are, without the buffer and the state machine (which the
   * cost per 4-character chunk is all about). Only when nothing is held back.
   */
  #fastPath(chunk: string): boolean {
    const state = this.#state;
    if (state === Top.MidLine || state === Top.LineStart) {
      const prefilled = this.#prefilledStart;
      // A special-token block can open anywhere: a chunk that may hold one takes the full path.
      // The buffer, all of it decided, may still hold the character before the chunk.
      const buf = this.#buf;
      const before = buf.length > 0 ? buf.charCodeAt(buf.length - 1) : this.#before;
      if (!this.#fence.open && this.#table.mayOpenIn(chunk, before)) return false;
      const lineStart = proseLineStarts(chunk, state === Top.LineStart, this.#fence, this.#table);
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
    } else if (state === Top.ThinkTag) {
      if (!this.#thinking.streamChunk(chunk, this.#offset + this.#pos)) return false;
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
}
