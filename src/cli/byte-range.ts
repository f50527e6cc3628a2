import { open } from 'node:fs/promises';

const NEWLINE = 0x0a;
const BLOCK = 4 << 20;

/** The bytes of a JSONL file that hold the records starting in [start, end), and their first line. */
export interface RecordRange {
  /** First byte to read (a record's start). */
  start: number;
  /** Last byte to read, inclusive (the newline ending the last record, or the file's end). */
  end: number;
  /** The line number of the first record in the file. */
  firstLine: number;
}

/**
 * Where the records that start in bytes [start, end) of `path` lie: a record belongs to the
 * range its first byte is in, so ranges that tile a file read each record once. Reads the
 * bytes before `start` once, to count their lines (at memchr speed) so that lines and ids are
 * the whole file's.
 */
export async function recordRange(path: string, start: number, end: number): Promise<RecordRange> {
  const file = await open(path, 'r');
  try {
    const size = (await file.stat()).size;
    const buffer = Buffer.alloc(BLOCK);
    /** The first newline at or after `from`, or -1. */
    const newlineFrom = async (from: number): Promise<number> => {
      for (let at = from; at < size; at += BLOCK) {
        const { bytesRead } = await file.read(buffer, 0, BLOCK, at);
        const i = buffer.subarray(0, bytesRead).indexOf(NEWLINE);
        if (i !== -1) return at + i;
      }
      return -1;
    };
    let lines = 0;
    for (let at = 0; at < Math.min(start, size); at += BLOCK) {
      const { bytesRead } = await file.read(buffer, 0, Math.min(BLOCK, start - at), at);
      const bytes = buffer.subarray(0, bytesRead);
      for (let i = bytes.indexOf(NEWLINE); i !== -1; i = bytes.indexOf(NEWLINE, i + 1)) lines++;
    }
    let first = Math.min(start, size);
    if (first > 0) {
      const { bytesRead } = await file.read(buffer, 0, 1, first - 1);
      if (bytesRead === 1 && buffer[0] !== NEWLINE) {
        // Inside a record that began before the range: it is the previous range's.
        const nl = await newlineFrom(first);
        first = nl === -1 ? size : nl + 1;
        lines++;
      }
    }
    const limit = Math.min(end, size);
    if (first >= limit) return { start: first, end: first - 1, firstLine: lines + 1 };
    const nl = await newlineFrom(limit - 1);
    return { start: first, end: nl === -1 ? size - 1 : nl, firstLine: lines + 1 };
  } finally {
    await file.close();
  }
}
