import { createReadStream } from 'node:fs';

/**
 * Text chunks of a file, or of standard input for `-`: streamed, never read whole. `onBytes`
 * hears how many bytes each read brought (for a progress bar).
 */
export async function* readChunks(
  source: string,
  onBytes: (n: number) => void = () => {},
): AsyncGenerator<string> {
  const stream =
    source === '-' ? process.stdin : createReadStream(source, { highWaterMark: 1 << 20 });
  const decoder = new TextDecoder();
  for await (const bytes of stream as AsyncIterable<Buffer>) {
    onBytes(bytes.length);
    const text = decoder.decode(bytes, { stream: true });
    if (text !== '') yield text;
  }
  const tail = decoder.decode();
  if (tail !== '') yield tail;
}
