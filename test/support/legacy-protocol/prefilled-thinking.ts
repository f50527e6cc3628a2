import type { ParserEvent } from './events.js';

/**
 * Pre-filled thinking in `'auto'` mode: a chat template may have written `<think>` itself, so
 * the reply begins inside thinking and shows only its `</think>`. Until that is decided (a
 * `</think>` before any call or thinking block, or none within `maxHold`), the start of the
 * reply is held: events queue up and the chunks are kept, so it can still become one
 * thinking block.
 */
export class PrefilledStart {
  /** The start is held, not yet decided. */
  undecided = false;
  #queue: ParserEvent[] = [];
  #chunks: string[] = [];

  constructor(private readonly onEvent: (event: ParserEvent) => void) {}

  begin(): void {
    this.undecided = true;
  }

  emit(event: ParserEvent): void {
    if (this.undecided) this.#queue.push(event);
    else this.onEvent(event);
  }

  /** A chunk of the start, while it is held. */
  keep(chunk: string): void {
    if (this.undecided) this.#chunks.push(chunk);
  }

  /** No pre-filled thinking: what was held goes out as it was read. */
  decideNot(): void {
    if (!this.undecided) return;
    this.undecided = false;
    this.#chunks = [];
    const events = this.#queue;
    this.#queue = [];
    for (const event of events) this.onEvent(event);
  }

  /** Thinking up to absolute `at`, where a `</think>` of `closeLength` characters ends it. */
  decide(at: number, closeLength: number): void {
    this.undecided = false;
    const thinking = this.#chunks.join('').slice(0, at);
    this.#chunks = [];
    this.#queue = [];
    this.onEvent({ type: 'thinking-start', offset: 0, format: 'prefilled' });
    if (thinking !== '') this.onEvent({ type: 'thinking-delta', text: thinking });
    this.onEvent({ type: 'thinking-end', offset: at + closeLength });
  }

  reset(): void {
    this.undecided = false;
    this.#queue = [];
    this.#chunks = [];
  }
}
