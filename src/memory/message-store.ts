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

/** A thread id no store can keep as given; thrown before the store is touched. */
export class InvalidThreadIdError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidThreadIdError';
  }
}

const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Refuses a thread id that a store would not keep as written: NUL (SQLite's C strings cut
 * the id at it, PostgreSQL's text refuses it) and a lone surrogate (UTF-8 has no bytes for
 * it: the id would come back as another). Every store checks each id it is given.
 */
export function checkThreadId(threadId: string): void {
  if (typeof threadId !== 'string')
    throw new InvalidThreadIdError(`a thread id is a string, not ${typeof threadId}`);
  if (threadId.includes('\u0000'))
    throw new InvalidThreadIdError(
      `thread id ${JSON.stringify(threadId)} holds NUL (U+0000), which stores cannot keep: choose an id without it`,
    );
  if (LONE_SURROGATE.test(threadId))
    throw new InvalidThreadIdError(
      `thread id ${JSON.stringify(threadId)} holds a lone surrogate (not well-formed Unicode), which stores cannot keep: choose a well-formed id`,
    );
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
