import type { ParserEvent } from './events.js';
import { clearPieces, createPieces, joinPieces, pushPiece } from './pieces.js';
import { THINK_CLOSE } from './thinking.js';

/** How far ahead of what is asked the `</think>` search looks: one close settles most replies. */
const CLOSE_SEARCH_STEP = 2048;

/**
 * Pre-filled thinking in `'auto'` mode: a chat template may have written `<think>` itself, so
 * the reply begins inside thinking and shows only its `</think>`. Until that is decided (a
 * `</think>` before any call or thinking block, or none within `maxHold`), the start of the
 * reply is held: events queue up and the chunks are kept, so it can still become one
 * thinking block.
 *
 * Held text is kept as ranges of the kept input, not as an event a chunk nor as a second copy
 * of the text: consecutive text events go out as one when the start is decided (the folded
 * events are the same; see docs/protocol.md). An event object and a chunk kept per
 * 4-character chunk, all alive until the decision, made prose in 4-character chunks cost
 * 46 ns a chunk while undecided; the text gathered as pieces beside the chunks, 36.5; as
 * ranges, 31; with `'never'`, 16.
 */
export class PrefilledStart {
  /** The start is held, not yet decided. */
  undecided = false;
  /** Every chunk of the start, in order: the input from its first character, while held. */
  readonly #chunks = createPieces();
  /** The held events; an array stands for one text event, its (from, to) ranges of the input. */
  #queue: (ParserEvent | number[])[] = [];
  /** Text told since the last queued event, as (from, to) ranges of the input. */
  #ranges: number[] = [];
  /**
   * The search for the `</think>` that decides it, in absolute offsets (the buffer only grows
   * at its end, so an answer stays true across feeds): the first close found, and how far no
   * close starts.
   */
  #closeAt = -1;
  #noCloseBefore = 0;

  constructor(
    private readonly onEvent: (event: ParserEvent) => void,
    private readonly maxHold: number,
  ) {}

  begin(): void {
    this.undecided = true;
  }

  /** An event other than text (text is told by `textAt`, by where it stands). */
  emit(event: ParserEvent): void {
    if (!this.undecided) this.onEvent(event);
    else {
      this.#queueText();
      this.#queue.push(event);
    }
  }

  /** Text of the start, told while it is held: the input from absolute `from` to `to`. */
  textAt(from: number, to: number): void {
    const ranges = this.#ranges;
    const last = ranges.length - 1;
    if (last > 0 && ranges[last] === from) ranges[last] = to;
    else ranges.push(from, to);
  }

  /** A chunk of the start, while it is held. */
  keep(chunk: string): void {
    if (this.undecided) pushPiece(this.#chunks, chunk);
  }

  /** No pre-filled thinking: what was held goes out in order, its text as one event a run. */
  decideNot(): void {
    if (!this.undecided) return;
    this.undecided = false;
    this.#queueText();
    const events = this.#queue;
    this.#queue = [];
    const input = events.some(Array.isArray) ? joinPieces(this.#chunks) : '';
    clearPieces(this.#chunks);
    for (const event of events) {
      if (!Array.isArray(event)) {
        this.onEvent(event);
        continue;
      }
      // Usually one range: `'' + text` is `text` itself, no copy.
      let text = '';
      for (let k = 0; k < event.length; k += 2) text += input.slice(event[k], event[k + 1]);
      this.onEvent({ type: 'text', text });
    }
  }

  /** Thinking up to absolute `at`, where a `</think>` of `closeLength` characters ends it. */
  decide(at: number, closeLength: number): void {
    this.undecided = false;
    const thinking = joinPieces(this.#chunks).slice(0, at);
    this.reset();
    this.onEvent({ type: 'thinking-start', offset: 0, format: 'prefilled' });
    if (thinking !== '') this.onEvent({ type: 'thinking-delta', text: thinking });
    this.onEvent({ type: 'thinking-end', offset: at + closeLength });
  }

  reset(): void {
    this.undecided = false;
    this.#queue = [];
    this.#ranges = [];
    clearPieces(this.#chunks);
    this.#closeAt = -1;
    this.#noCloseBefore = 0;
  }

  /**
   * Where the first `</think>` that starts in `buf[pos, limit)` (and within `maxHold`) is, or
   * -1; `offset` is `buf[0]`'s. The text is searched in steps, each character about once: the
   * whole 16 KiB window once per message cost 13% of a whole-string parse, though the first
   * call decides it.
   */
  closeBefore(buf: string, offset: number, pos: number, limit: number): number {
    const from = offset + pos;
    if (this.#closeAt !== -1 && this.#closeAt < from) this.#closeAt = -1;
    const last = Math.min(offset + limit, this.maxHold + 1);
    while (this.#closeAt === -1 && this.#noCloseBefore < last) {
      const start = Math.max(this.#noCloseBefore, from);
      const end = Math.min(
        offset + buf.length,
        Math.max(offset + limit, start + CLOSE_SEARCH_STEP) + THINK_CLOSE.length - 1,
      );
      const found = buf.slice(start - offset, end - offset).indexOf(THINK_CLOSE);
      if (found !== -1) this.#closeAt = start + found;
      else if (end - start < THINK_CLOSE.length) break;
      else this.#noCloseBefore = end - THINK_CLOSE.length + 1;
      if (end === offset + buf.length) break;
    }
    return this.#closeAt !== -1 && this.#closeAt < last ? this.#closeAt - offset : -1;
  }

  #queueText(): void {
    if (this.#ranges.length === 0) return;
    this.#queue.push(this.#ranges);
    this.#ranges = [];
  }
}
