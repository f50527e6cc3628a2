import { createReadStream } from 'node:fs';

/** Text chunks of a file, or of standard input for `-`: streamed, never read whole. */
export async function* readChunks(source: string): AsyncGenerator<string> {
  const stream = source === '-' ? process.stdin : createReadStream(source);
  stream.setEncoding('utf8');
  for await (const chunk of stream) yield chunk as string;
}
