import type { ServerResponse } from 'node:http';
import type { ChatStream } from '../agent/chat-stream.js';

/**
 * Resolves once `out` drains, closes or fails, removing all three listeners as soon as one
 * fires (racing `events.once` leaves the losers' listeners behind: one per wait, thousands in
 * a long answer or a big scan).
 */
export function drained(out: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      out.off('drain', done);
      out.off('close', done);
      out.off('error', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
    out.on('error', done);
  });
}

/**
 * Resolves once the client's socket buffer has room again (or the client is gone): waiting
 * here before reading more from upstream is the backpressure, so a client that reads slowly,
 * or not at all, holds the upstream back instead of filling the proxy's memory.
 */
export function roomFor(client: ServerResponse): Promise<void> | undefined {
  if (!client.writableNeedDrain || client.destroyed) return undefined;
  return drained(client);
}

/** Copies the body to the client as it comes, waiting whenever the client is behind. */
export async function pipeBody(stream: ChatStream, client: ServerResponse): Promise<void> {
  for await (const bytes of stream.chunks()) {
    if (client.destroyed) return;
    client.write(bytes);
    await roomFor(client);
  }
}
