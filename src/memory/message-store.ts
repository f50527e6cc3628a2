import type { Message } from '../messages/index.js';

/** A line of a stored thread that could not be read: where it was, and what it held. */
export interface DamagedRecord {
  line: number;
  text: string;
  /** A torn last line (a crash mid-write) or a corrupt line in the middle. */
  kind: 'torn-tail' | 'corrupt';
}

export interface LoadedThread {
  messages: Message[];
  damaged: DamagedRecord[];
}

/** Where memories persist: one thread of messages per id. Other stores implement the same. */
export interface MessageStore {
  append(threadId: string, message: Message): void;
  load(threadId: string): LoadedThread;
  delete(threadId: string): void;
  list(): string[];
}
