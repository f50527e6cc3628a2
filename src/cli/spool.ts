import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeOut } from './reply-writer.js';

/**
 * Text held in memory up to this many characters; past it, in a temporary file. Held as the
 * small pieces it was written in, it costs several times its length (4 Mi characters took the
 * 96 MB parse under a 48 MB heap to its limit), and a spill joins it all once more.
 */
export const SPOOL_MEMORY_CHARS = 1024 * 1024;

/**
 * Text to write later, in order, held in memory while it is small and in a temporary file once
 * it is not, so output that must come after a long stream (the JSON keys after `text`) costs
 * bounded memory. `drainTo` writes it all to a stream with backpressure and removes the file.
 */
export class Spool {
  #pieces: string[] = [];
  #chars = 0;
  #dir: string | null = null;
  #fd: number | null = null;
  // `process.exit` (the CLI's answer to a closed output) skips `finally`: remove the file then too.
  readonly #onExit = () => this.discard();

  write(text: string): void {
    if (text.length === 0) return;
    this.#pieces.push(text);
    this.#chars += text.length;
    if (this.#chars >= SPOOL_MEMORY_CHARS) this.#spill();
  }

  #spill(): void {
    if (this.#fd === null) {
      this.#dir = mkdtempSync(join(tmpdir(), 'tagcall-spool-'));
      this.#fd = openSync(join(this.#dir, 'spool'), 'w');
      process.once('exit', this.#onExit);
    }
    writeSync(this.#fd, this.#pieces.join(''));
    this.#pieces = [];
    this.#chars = 0;
  }

  async drainTo(out: NodeJS.WritableStream): Promise<void> {
    try {
      if (this.#fd !== null && this.#dir !== null) {
        this.#spill();
        closeSync(this.#fd);
        this.#fd = null;
        for await (const data of createReadStream(join(this.#dir, 'spool'), { encoding: 'utf8' }))
          await writeOut(out, data);
      } else {
        await writeOut(out, this.#pieces.join(''));
      }
    } finally {
      this.discard();
    }
  }

  /** Forgets what was written and removes the temporary file (also after a failed drain). */
  discard(): void {
    if (this.#fd !== null) closeSync(this.#fd);
    if (this.#dir !== null) rmSync(this.#dir, { recursive: true, force: true });
    this.#fd = null;
    this.#dir = null;
    process.removeListener('exit', this.#onExit);
    this.#pieces = [];
    this.#chars = 0;
  }
}
