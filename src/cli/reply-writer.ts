import { once } from 'node:events';
import type { ParserEvent } from '../protocol/index.js';

/** Writes a parse's output as events arrive: `add` each event, `flush` after each chunk, then `end`. */
export interface ReplyWriter {
  add(event: ParserEvent): void;
  /** Writes what is ready, waiting while the output is full (backpressure). */
  flush(): Promise<void>;
  /** Writes the rest; the writer is done. */
  end(): Promise<void>;
}

/** Writes `text` and waits for `drain` when the stream's buffer is full. */
export async function writeOut(out: NodeJS.WritableStream, text: string): Promise<void> {
  if (text !== '' && !out.write(text)) await once(out, 'drain');
}

/** Output gathered while a chunk is parsed, written at once by `flush` (one write a chunk). */
export class PendingOutput {
  #text = '';
  constructor(readonly out: NodeJS.WritableStream) {}

  write(text: string): void {
    this.#text += text;
  }

  flush(): Promise<void> {
    const text = this.#text;
    this.#text = '';
    return writeOut(this.out, text);
  }
}
