import { createReadStream } from 'node:fs';

/**
 * Text chunks of a file (or of its bytes `range.start` to `range.end`, inclusive), or of
 * standard input for `-`: streamed, never read whole. `onBytes` hears how many bytes each read
 * brought (for a progress bar).
 */
export async function* readChunks(
  source: string,
  onBytes: (n: number) => void = () => {},
  range?: { start: number; end: number },
): AsyncGenerator<string> {
  if (range !== undefined && range.end < range.start) return;
  const stream =
    source === '-' ? process.stdin : createReadStream(source, { highWaterMark: 1 << 20, ...range });
  const decoder = new TextDecoder();
  for await (const bytes of stream as AsyncIterable<Buffer>) {
    onBytes(bytes.length);
    const text = decoder.decode(bytes, { stream: true });
    if (text !== '') yield text;
  }
  const tail = decoder.decode();
  if (tail !== '') yield tail;
}
