import type { ThinkingTags } from './block.js';
import { BracketMatcher, UNDECIDED } from './bracket-matcher.js';
import { isHighSurrogate, isLineEnd, isSpaceOrTab } from './chars.js';
import { END_OF_INPUT } from './end-of-input.js';
import type { ParserEvent } from './events.js';
import { type Recoveries, recoveryMessage } from './recoveries.js';
import { partialSuffixStart, startsWithAt } from './tag.js';

const THINKING_OPEN = END_OF_INPUT['thinking-open'];
const THINKING_AFTER_CALL = END_OF_INPUT['thinking-after-call'];

export const THINK_CLOSE = '</think>';
/**
 * The common thinking tag, of many families; also the close that ends pre-filled thinking
 * (see PrefilledStart). The families' own are in their declarations.
 */
export const THINK_TAG: ThinkingTags = ['<think>', THINK_CLOSE];

/**
 * The first of `tags` whose opening stands at `s[i]`, null when the input ends on the start
 * of one (more input decides), else undefined (at the end of the input, row
 * 'partial-think-tag': the start of a tag is text).
 */
export function thinkTagAt(
  s: string,
  i: number,
  final: boolean,
  tags: readonly ThinkingTags[],
): ThinkingTags | null | undefined {
  let waiting = false;
  for (const tag of tags) {
    const opens = startsWithAt(s, i, tag[0]);
    if (opens === true) return tag;
    if (opens === null) waiting = true;
  }
  return waiting && !final ? null : undefined;
}

/**
 * Thinking between tags, streamed until its close; or until the special token of a call (see
 * BlockReader.endsThinking), after whose block it goes on to the close, starting again only if
 * text comes (thinking interleaved with calls).
 */
export class TagThinking {
  /** After `run`: the thinking waits for input (else it ended, or a call's token stopped it). */
  waiting = false;
  #close: string = THINK_CLOSE;
  /** A call's token stopped the thinking: it goes on after the call's block, until this close. */
  #afterBlock: string | null = null;
  /** Its `thinking-start` is told only once text comes. */
  #startPending = false;

  constructor(
    private readonly emit: (event: ParserEvent) => void,
    /** The openings of calls that end thinking left open. */
    private readonly enders: readonly string[],
    /** The declarations' row for thinking the input ends in. */
    private readonly recoveries: Recoveries<'unclosed-thinking'>,
  ) {}

  /** Thinking begins (its start told by the caller); `close` ends it. */
  open(close: string): void {
    this.#close = close;
  }

  /** A call's block ended: whether the thinking it stopped goes on after it. */
  resumeAfterBlock(): boolean {
    if (this.#afterBlock === null) return false;
    this.#close = this.#afterBlock;
    this.#afterBlock = null;
    this.#startPending = true;
    return true;
  }

  /** Reads thinking in `buf` from `pos` (`offset` is `buf[0]`'s); returns where it stopped. */
  run(buf: string, pos: number, offset: number, final: boolean): number {
    const thinkClose = this.#close;
    let close = buf.indexOf(thinkClose, pos);
    // A call's special token inside thinking never closed: the thinking ends there.
    let ender = '';
    for (const opening of this.enders) {
      const at = buf.indexOf(opening, pos);
      if (at !== -1 && (close === -1 || at < close)) {
        close = at;
        ender = opening;
      }
    }
    let end = close === -1 ? buf.length : close;
    if (close === -1 && !final) {
      end = partialSuffixStart(buf, pos, thinkClose);
      for (const opening of this.enders) end = Math.min(end, partialSuffixStart(buf, pos, opening));
      if (end > pos && isHighSurrogate(buf.charCodeAt(end - 1))) end--;
    }
    if (end > pos) {
      if (this.#startPending) {
        this.#startPending = false;
        this.emit({ type: 'thinking-start', offset: offset + pos, format: 'tag' });
      }
      this.emit({ type: 'thinking-delta', text: buf.slice(pos, end) });
    }
    this.waiting = close === -1;
    if (close === -1) return end;
    const started = !this.#startPending;
    this.#startPending = false;
    if (ender !== '') {
      // The call is read; the thinking goes on after it.
      if (started) this.emit({ type: 'thinking-end', offset: offset + close });
      this.#afterBlock = thinkClose;
      return close;
    }
    // Right after a call's block, the close ends what had ended at the call.
    if (started) this.emit({ type: 'thinking-end', offset: offset + close + thinkClose.length });
    return close + thinkClose.length;
  }

  /**
   * A chunk that starts at absolute `offset`, nothing held before it, as `run` would read it:
   * true when it holds no close, no call's token and no start of either (its text is out);
   * else false, and the full path reads it.
   */
  streamChunk(chunk: string, offset: number): boolean {
    if (chunk.indexOf(this.#close[0]) !== -1) return false;
    for (const opening of this.enders) if (chunk.indexOf(opening[0]) !== -1) return false;
    if (isHighSurrogate(chunk.charCodeAt(chunk.length - 1))) return false;
    if (this.#startPending) {
      this.#startPending = false;
      this.emit({ type: 'thinking-start', offset, format: 'tag' });
    }
    this.emit({ type: 'thinking-delta', text: chunk });
    return true;
  }

  /**
   * The input ends inside thinking, at absolute `at`: row 'thinking-open' (a close held in part
   * was told as thinking by the last `run`); or row 'thinking-after-call', thinking a call's
   * block stopped and no text resumed, told ended already: only the warning.
   */
  endOfInput(at: number): void {
    const row = this.#startPending ? THINKING_AFTER_CALL : THINKING_OPEN;
    const recovery = this.recoveries[row.recovery];
    this.emit({
      type: 'warning',
      code: recovery.code,
      message: recoveryMessage(recovery, { close: this.#close }),
      offset: at,
    });
    if (!this.#startPending) this.emit({ type: 'thinking-end', offset: at });
  }

  reset(): void {
    this.#afterBlock = null;
    this.#startPending = false;
  }
}

/**
 * Whether a line-start bracket whose `]` is `s[close]` is thinking: its `]` ends the line (after
 * blanks, looked at as far as `lookahead`) and it is no markdown. Null while the input ends in
 * the blanks after it.
 */
export function isBracketThinking(
  s: string,
  open: number,
  close: number,
  lookahead: number,
  final: boolean,
): boolean | null {
  const n = s.length;
  let k = close + 1;
  const limit = k + lookahead;
  while (k < n && k < limit && isSpaceOrTab(s.charCodeAt(k))) k++;
  if (k >= n && k < limit && !final) return null;
  const endsLine = k < limit && (k >= n || isLineEnd(s.charCodeAt(k)));
  return endsLine && !isMarkdownBracket(s.slice(open + 1, close));
}

/** Markdown that a line-start bracket can be: a task box `[ ]` / `[x]`, or nothing at all. */
function isMarkdownBracket(content: string): boolean {
  return content === '' || content === ' ' || content === 'x' || content === 'X';
}

/**
 * A line-start `[` waiting for its `]` to tell whether it is bracketed thinking: while it
 * waits, chunks gather here instead of being joined to the buffer per feed.
 */
export class BracketWait {
  /** Absolute offset of the `[`. */
  at = 0;
  /** The chunks gathered while the `]` is undecided; null while nothing waits. */
  pending: string[] | null = null;
  /** Their length. */
  pendingLength = 0;
  readonly #matcher: BracketMatcher;

  constructor(maxSpan: number) {
    this.#matcher = new BracketMatcher(maxSpan);
  }

  /**
   * The absolute offset of the `]` that closes the `[` in `buf` (`offset` is `buf[0]`'s), or
   * UNDECIDED, or UNMATCHED.
   */
  close(buf: string, offset: number): number {
    return this.#matcher.match(this.at, buf, offset);
  }

  /** The `]` is still to come: chunks gather until it is decided (after those gathered). */
  wait(): void {
    this.pending ??= [];
  }

  /**
   * A chunk while waiting, after the gathered ones (the buffer ends at absolute `bufEnd`):
   * whether the `]` is decided. The chunks stay gathered (the matcher has read them) until the
   * scanner needs their text: the next line-start `[` mostly waits on text beyond them, and
   * joining them to the held text per `[` re-copied up to maxSpan characters a line.
   */
  gather(chunk: string, bufEnd: number): boolean {
    const start = bufEnd + this.pendingLength;
    (this.pending as string[]).push(chunk);
    this.pendingLength += chunk.length;
    return this.#matcher.match(this.at, chunk, start) !== UNDECIDED;
  }

  /** Everything gathered, in order; the wait is over. */
  drain(): string {
    const gathered = (this.pending as string[]).join('');
    this.pending = null;
    this.pendingLength = 0;
    return gathered;
  }

  reset(): void {
    this.pending = null;
    this.pendingLength = 0;
    this.#matcher.reset();
  }
}
