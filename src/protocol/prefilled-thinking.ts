import type { ParserEvent } from './events.js';
import { clearPieces, createPieces, isEmptyPieces, joinPieces, pushPiece } from './pieces.js';

/**
 * Pre-filled thinking in `'auto'` mode: a chat template may have written `<think>` itself, so
 * the reply begins inside thinking and shows only its `</think>`. Until that is decided (a
 * `</think>` before any call or thinking block, or none within `maxHold`), the start of the
 * reply is held: events queue up and the chunks are kept, so it can still become one
 * thinking block.
 *
 * Held text is kept as text, not as an event a chunk: consecutive text events go out as one
 * when the start is decided (the folded events are the same; see docs/protocol.md), and the
 * held chunks are gathered as pieces. An event object and a chunk kept per 4-character
 * chunk, all alive until the decision, made prose in 4-character chunks cost 46 ns a chunk
 * while undecided (38.5 since), against 17 ns with `'never'`.
 */
export class PrefilledStart {
  /** The start is held, not yet decided. */
  undecided = false;
  #queue: ParserEvent[] = [];
  /** Text told since the last queued event, not yet queued. */
  readonly #text = createPieces();
  readonly #chunks = createPieces();

  constructor(private readonly onEvent: (event: ParserEvent) => void) {}

  begin(): void {
    this.undecided = true;
  }

  emit(event: ParserEvent): void {
    if (!this.undecided) this.onEvent(event);
    else if (event.type === 'text') pushPiece(this.#text, event.text);
    else {
      this.#queueText();
      this.#queue.push(event);
    }
  }

  /** Text of the start, told while it is held (the fast path's chunk of prose). */
  text(text: string): void {
    pushPiece(this.#text, text);
  }

  /** A chunk of the start, while it is held. */
  keep(chunk: string): void {
    if (this.undecided) pushPiece(this.#chunks, chunk);
  }

  /** No pre-filled thinking: what was held goes out in order, its text as one event. */
  decideNot(): void {
    if (!this.undecided) return;
    this.undecided = false;
    this.#queueText();
    clearPieces(this.#chunks);
    const events = this.#queue;
    this.#queue = [];
    for (const event of events) this.onEvent(event);
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
    clearPieces(this.#text);
    clearPieces(this.#chunks);
  }

  #queueText(): void {
    if (isEmptyPieces(this.#text)) return;
    this.#queue.push({ type: 'text', text: joinPieces(this.#text) });
    clearPieces(this.#text);
  }
}
