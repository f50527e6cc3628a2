/**
 * A cap on what one MCP message over streamable HTTP may hold, applied as the bytes arrive:
 * a JSON answer is one message, an SSE stream one per event (bytes since the last blank line).
 * Past the cap the body fails with `tooLarge` and the response is cancelled, so nothing larger
 * is ever held whole (the SDK reads a JSON answer with `response.json()`, and an SSE event
 * whole, before anything could cut it).
 */
export function cappedFetch(maxBytes: number, tooLarge: () => Error): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.body === null) return response;
    const eventStream = response.headers.get('content-type')?.includes('text/event-stream');
    let size = 0;
    let lineLength = 0;
    let afterReturn = false;
    const counted = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (eventStream) {
          for (const byte of chunk) {
            // A blank line (after \n, \r or \r\n) ends an event: the next one counts afresh.
            if (byte === 0x0a && afterReturn) {
              afterReturn = false;
              continue;
            }
            afterReturn = byte === 0x0d;
            if (byte === 0x0a || byte === 0x0d) {
              if (lineLength === 0) size = 0;
              lineLength = 0;
            } else {
              lineLength++;
              if (++size > maxBytes) break;
            }
          }
        } else size += chunk.length;
        if (size > maxBytes) controller.error(tooLarge());
        else controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counted), response);
  };
}

/**
 * The stdio transport's line buffer (the SDK's `ReadBuffer` interface) with the cap applied
 * to each line, in linear time: the SDK's copies everything buffered on every chunk (a
 * message of n chunks costs n copies of up to the cap, which held 60 MiB of garbage for a
 * 4 MiB cap), this keeps the chunks of the line being read and joins them once.
 */
export class CappedLineBuffer {
  #partial: Buffer[] = [];
  #partialBytes = 0;
  #lines: Buffer[] = [];
  /** Past the cap once, the rest of the stream is dropped while the transport closes. */
  #overflowed = false;

  constructor(
    private readonly maxBytes: number,
    private readonly read: (line: string) => unknown,
  ) {}

  append(chunk: Buffer): void {
    if (this.#overflowed) return;
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      this.#partialBytes += end - start;
      if (this.#partialBytes > this.maxBytes) {
        this.clear();
        this.#overflowed = true;
        // The SDK's own wording, which connectMcp recognizes.
        throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBytes} bytes`);
      }
      if (end > start) this.#partial.push(chunk.subarray(start, end));
      if (newline === -1) return;
      this.#lines.push(Buffer.concat(this.#partial, this.#partialBytes));
      this.#partial = [];
      this.#partialBytes = 0;
      start = newline + 1;
    }
  }

  readMessage(): unknown {
    const line = this.#lines.shift();
    return line === undefined ? null : this.read(line.toString('utf8').replace(/\r$/, ''));
  }

  clear(): void {
    this.#partial = [];
    this.#partialBytes = 0;
    this.#lines = [];
  }
}
