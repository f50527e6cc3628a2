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
