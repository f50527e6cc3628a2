import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { fromJsonText, type Message, toJsonText } from '../messages/index.js';
import type { DamagedRecord, LoadedThread, MessageStore } from './message-store.js';

export interface JsonlStoreOptions {
  dir: string;
  /** `fsync` after every record: a record is on disk when `append` returns. Default false. */
  fsync?: boolean;
}

const SUFFIX = '.jsonl';

/**
 * The embedded default: one append-only JSONL file per thread, one record per message.
 * A crash mid-write leaves a torn last line; `load` reports it, cuts it off the file (so the
 * next record starts on a line of its own) and returns every complete record before it.
 */
export function createJsonlStore(options: JsonlStoreOptions): MessageStore {
  mkdirSync(options.dir, { recursive: true });
  const file = (threadId: string) => join(options.dir, `${encodeURIComponent(threadId)}${SUFFIX}`);
  return {
    append(threadId, message) {
      const fd = openSync(file(threadId), 'a');
      try {
        writeSync(fd, `${toJsonText(message)}\n`);
        if (options.fsync) fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    },
    load(threadId): LoadedThread {
      let text: string;
      try {
        text = readFileSync(file(threadId), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT')
          return { messages: [], damaged: [] };
        throw error;
      }
      const messages: Message[] = [];
      const damaged: DamagedRecord[] = [];
      let start = 0;
      let line = 0;
      while (start < text.length) {
        const newline = text.indexOf('\n', start);
        line++;
        if (newline === -1) {
          // No newline: the write of this record never finished.
          damaged.push({ line, text: text.slice(start), kind: 'torn-tail' });
          truncateSync(file(threadId), Buffer.byteLength(text.slice(0, start)));
          break;
        }
        const record = text.slice(start, newline);
        start = newline + 1;
        if (record.trim() === '') continue;
        try {
          messages.push(fromJsonText<Message>(record));
        } catch {
          damaged.push({ line, text: record, kind: 'corrupt' });
        }
      }
      return { messages, damaged };
    },
    delete(threadId) {
      rmSync(file(threadId), { force: true });
    },
    list() {
      return readdirSync(options.dir)
        .filter((name) => name.endsWith(SUFFIX))
        .map((name) => decodeURIComponent(name.slice(0, -SUFFIX.length)));
    },
  };
}
