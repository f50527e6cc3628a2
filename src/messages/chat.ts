import { type Conversation, conversation } from './conversation.js';
import type { Message } from './message.js';

/** What changed: messages appended, one replaced, or the whole list swapped. */
export type ChatChange =
  | { type: 'append'; messages: readonly Message[] }
  | { type: 'replace'; index: number; message: Message }
  | { type: 'reset' };

/**
 * A mutable conversation that others can watch: seed 003's container. Each change swaps in a
 * new immutable `Conversation` in one step, so a reader holding `current()` never sees a
 * half-made change; listeners run after the swap, in the order they subscribed.
 */
export interface Chat {
  /** The conversation as it is now (an immutable value: later changes do not touch it). */
  current(): Conversation;
  readonly length: number;
  append(...messages: Message[]): void;
  /** Replaces the message at `index` (negative counts from the end); throws when none is there. */
  replace(index: number, message: Message): void;
  /** Swaps the whole list at once. */
  reset(messages: readonly Message[]): void;
  /** Calls `listener` after every change; returns the function that unsubscribes it. */
  subscribe(listener: (change: ChatChange, now: Conversation) => void): () => void;
  /**
   * Resolves with the conversation after the next change (seed 003's `Wait`); rejects with
   * the signal's reason when `signal` aborts first.
   */
  changed(signal?: AbortSignal): Promise<Conversation>;
}

export function createChat(initial: readonly Message[] = []): Chat {
  let now = conversation(initial);
  const listeners = new Set<(change: ChatChange, now: Conversation) => void>();
  const commit = (next: Conversation, change: ChatChange) => {
    now = next;
    for (const listener of [...listeners]) listener(change, now);
  };
  const subscribe = (listener: (change: ChatChange, now: Conversation) => void) => {
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  };
  return {
    current: () => now,
    get length() {
      return now.length;
    },
    append(...messages) {
      if (messages.length > 0) commit(now.append(...messages), { type: 'append', messages });
    },
    replace(index, message) {
      commit(now.replace(index, message), { type: 'replace', index, message });
    },
    reset(messages) {
      commit(conversation(messages), { type: 'reset' });
    },
    subscribe,
    changed(signal) {
      return new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const stop = () => {
          unsubscribe();
          reject(signal?.reason);
        };
        const unsubscribe = subscribe((_change, next) => {
          unsubscribe();
          signal?.removeEventListener('abort', stop);
          resolve(next);
        });
        signal?.addEventListener('abort', stop, { once: true });
      });
    },
  };
}
