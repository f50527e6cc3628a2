import {
  closeSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { fromJsonText, type Message, toJsonText } from '../messages/index.js';
import {
  checkThreadId,
  type DamagedRecord,
  type LoadedThread,
  type MessageStore,
} from './message-store.js';

export interface JsonlStoreOptions {
  dir: string;
  /** `fsync` after every record: a record is on disk when `append` returns. Default false. */
  fsync?: boolean;
  /** A record (one line) longer than this is reported as damaged and skipped on load. Default 256 MiB. */
  maxRecordBytes?: number;
  /**
   * Told of a `.jsonl` file in `dir` whose name is not a thread id as the store writes it (not
   * `encodeURIComponent` of one, e.g. `a%zz.jsonl`): `list` skips it. Default: a process warning.
   */
  onForeignFile?: (name: string) => void;
}

export const JSONL_STORE_DEFAULTS = { maxRecordBytes: 256 * 1024 * 1024 };

/** An append that did not reach the file whole; the file was cut back to where it was. */
export class StoreWriteError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'StoreWriteError';
  }
}

const SUFFIX = '.jsonl';
const NEWLINE = 0x0a;
const CHUNK = 1024 * 1024;
/** How much of a damaged record its report quotes. */
const QUOTED_CHARS = 4096;

const quote = (bytes: Buffer) =>
  bytes.length > QUOTED_CHARS
    ? `${bytes.subarray(0, QUOTED_CHARS).toString('utf8')}…`
    : bytes.toString('utf8');

/** The thread id a file name encodes, or null when the store did not write that name. */
function threadIdOf(encoded: string): string | null {
  try {
    const id = decodeURIComponent(encoded);
    checkThreadId(id);
    return encodeURIComponent(id) === encoded ? id : null;
  } catch {
    return null;
  }
}

/** The byte offset just past the file's last newline (0 when it has none), read from the end. */
function lastLineEnd(fd: number, size: number): number {
  const buffer = Buffer.alloc(Math.min(CHUNK, size));
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - buffer.length);
    const read = readSync(fd, buffer, 0, end - start, start);
    const at = buffer.subarray(0, read).lastIndexOf(NEWLINE);
    if (at !== -1) return start + at + 1;
    end = start;
  }
  return 0;
}

/**
 * The embedded default: one append-only JSONL file per thread, one record per message.
 *
 * Guarantees: `append` writes the whole record or throws `StoreWriteError` with the file cut
 * back to where it was (a short write on a full disk is not taken for success); a file whose
 * last record is torn (a crash mid-write) is cut back to its last newline, by bytes, before
 * anything is appended, so records are never glued together. `load` reads the file as a
 * stream of lines (a thread of any size loads, one record at a time), reports a torn last
 * line and cuts it off, and reports and skips a corrupt line or one over `maxRecordBytes`.
 */
export function createJsonlStore(options: JsonlStoreOptions): MessageStore {
  mkdirSync(options.dir, { recursive: true });
  const maxRecordBytes = options.maxRecordBytes ?? JSONL_STORE_DEFAULTS.maxRecordBytes;
  const file = (threadId: string) => {
    checkThreadId(threadId);
    return join(options.dir, `${encodeURIComponent(threadId)}${SUFFIX}`);
  };

  function append(threadId: string, message: Message): void {
    const record = Buffer.from(`${toJsonText(message)}\n`);
    const fd = openSync(file(threadId), 'a+');
    try {
      let size = fstatSync(fd).size;
      if (size > 0) {
        const last = Buffer.alloc(1);
        readSync(fd, last, 0, 1, size - 1);
        if (last[0] !== NEWLINE) {
          size = lastLineEnd(fd, size);
          ftruncateSync(fd, size);
        }
      }
      try {
        for (let written = 0; written < record.length; )
          written += writeSync(fd, record, written, record.length - written);
        if (options.fsync) fsyncSync(fd);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        try {
          ftruncateSync(fd, size);
        } catch {
          // The next append cuts the torn tail before it writes.
        }
        throw new StoreWriteError(
          `could not append to thread ${JSON.stringify(threadId)}: ${(error as Error).message}`,
          code,
        );
      }
    } finally {
      closeSync(fd);
    }
  }

  function load(threadId: string): LoadedThread {
    let fd: number;
    try {
      fd = openSync(file(threadId), 'r+');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { messages: [], damaged: [] };
      throw error;
    }
    const messages: Message[] = [];
    const damaged: DamagedRecord[] = [];
    try {
      const chunk = Buffer.alloc(CHUNK);
      // The record being read: its pieces, its size, and where in the file it starts.
      let pieces: Buffer[] = [];
      let pending = 0;
      let skipping = false;
      let lineStart = 0;
      let position = 0;
      let line = 0;
      const endRecord = () => {
        line++;
        const bytes = Buffer.concat(pieces, pending);
        if (skipping) {
          damaged.push({ line, text: quote(bytes), kind: 'corrupt' });
        } else if (bytes.some((b) => b !== 0x20 && b !== 0x09 && b !== 0x0d)) {
          try {
            messages.push(fromJsonText<Message>(bytes.toString('utf8')));
          } catch {
            damaged.push({ line, text: quote(bytes), kind: 'corrupt' });
          }
        }
        pieces = [];
        pending = 0;
        skipping = false;
      };
      const take = (bytes: Buffer) => {
        if (skipping) return;
        if (pending + bytes.length > maxRecordBytes) {
          // Too long to be one string: keep only its start, for the report.
          skipping = true;
          const room = Math.max(0, QUOTED_CHARS - pending);
          pieces.push(Buffer.from(bytes.subarray(0, room)));
          pending += Math.min(room, bytes.length);
          return;
        }
        pieces.push(Buffer.from(bytes));
        pending += bytes.length;
      };
      for (;;) {
        const read = readSync(fd, chunk, 0, CHUNK, position);
        if (read === 0) break;
        let from = 0;
        for (let at = chunk.indexOf(NEWLINE, 0); at !== -1 && at < read; ) {
          take(chunk.subarray(from, at));
          endRecord();
          from = at + 1;
          lineStart = position + from;
          at = chunk.indexOf(NEWLINE, from);
        }
        if (from < read) take(chunk.subarray(from, read));
        position += read;
      }
      if (position > lineStart) {
        // No newline after the last record: its write never finished. Cut it, by bytes.
        damaged.push({
          line: line + 1,
          text: quote(Buffer.concat(pieces, pending)),
          kind: 'torn-tail',
        });
        ftruncateSync(fd, lineStart);
      }
    } finally {
      closeSync(fd);
    }
    return { messages, damaged };
  }

  // The file operations are synchronous inside: two appends to one thread in one process
  // never interleave their writes, and a record is whole on disk when its promise resolves.
  return {
    append: async (threadId, message) => append(threadId, message),
    load: async (threadId) => load(threadId),
    delete: async (threadId) => rmSync(file(threadId), { force: true }),
    list: async () => {
      const ids: string[] = [];
      for (const name of readdirSync(options.dir)) {
        if (!name.endsWith(SUFFIX)) continue;
        const id = threadIdOf(name.slice(0, -SUFFIX.length));
        if (id !== null) ids.push(id);
        else if (options.onForeignFile !== undefined) options.onForeignFile(name);
        else
          process.emitWarning(
            `${join(options.dir, name)} is no thread file of this store (its name is not an encoded thread id); skipped`,
            'TagcallStoreWarning',
          );
      }
      return ids;
    },
    close: async () => {},
  };
}
