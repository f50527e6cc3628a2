import { fromJsonText, type Message } from '../messages/index.js';

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

/**
 * Where memories persist: one thread of messages per id, in the order they were appended.
 * Every method returns a promise, so a database is as easy to plug in as a file: the JSONL
 * store (the zero-setup default), SQLite and PostgreSQL implement it. `append` resolves once
 * the message is stored (as durable as the store is configured to be); `close` releases the
 * store's connections.
 */
export interface MessageStore {
  append(threadId: string, message: Message): Promise<void>;
  load(threadId: string): Promise<LoadedThread>;
  delete(threadId: string): Promise<void>;
  /** The ids of the stored threads. */
  list(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * A thread from the JSON texts of its rows, in order (the database stores): a row that is not
 * a message (edited by hand) is reported as `corrupt` with its place, and the rest load.
 */
export function threadOfRows(texts: readonly string[]): LoadedThread {
  const messages: Message[] = [];
  const damaged: DamagedRecord[] = [];
  texts.forEach((text, index) => {
    try {
      messages.push(fromJsonText<Message>(text));
    } catch {
      damaged.push({ line: index + 1, text, kind: 'corrupt' });
    }
  });
  return { messages, damaged };
}
