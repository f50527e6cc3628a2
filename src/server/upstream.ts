import type { ServerResponse } from 'node:http';
import { createParser as createSseParser } from 'eventsource-parser';

/** The upstream did not answer in time: 504 for the client. */
export class UpstreamTimeout extends Error {}
/** The upstream sent more than a cap allows: 502 for the client. */
export class UpstreamTooLarge extends Error {}

export interface UpstreamLimits {
  /** Until the response headers. */
  connectTimeoutMs: number;
  /** Between two chunks of the body. */
  idleTimeoutMs: number;
  /** One SSE event, or a whole JSON body. */
  maxEventBytes: number;
}

/**
 * One request upstream: aborted when the client goes away, when the headers take longer than
 * `connectTimeoutMs`, or when the body pauses longer than `idleTimeoutMs` (`UpstreamTimeout`
 * is then the reason).
 */
export interface UpstreamCall {
  response: Response;
  /** Reads the body as it comes, a chunk at a time, each read restarting the idle clock. */
  chunks(): AsyncIterable<Uint8Array>;
  abort(reason: Error): void;
}

export async function callUpstream(
  url: string,
  init: RequestInit,
  client: ServerResponse,
  limits: UpstreamLimits,
): Promise<UpstreamCall> {
  const controller = new AbortController();
  client.on('close', () => {
    if (!client.writableFinished) controller.abort(new Error('the client went away'));
  });
  let timer: NodeJS.Timeout | undefined;
  const arm = (ms: number, what: string) => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(new UpstreamTimeout(what)), ms);
    timer.unref();
  };
  arm(limits.connectTimeoutMs, `the upstream did not answer within ${limits.connectTimeoutMs} ms`);
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: controller.signal });
  } catch (error) {
    clearTimeout(timer);
    throw controller.signal.aborted ? controller.signal.reason : error;
  }
  const idle = `the upstream sent nothing for ${limits.idleTimeoutMs} ms`;
  arm(limits.idleTimeoutMs, idle);
  return {
    response,
    async *chunks() {
      try {
        if (response.body === null) return;
        for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
          arm(limits.idleTimeoutMs, idle);
          yield bytes;
        }
      } catch (error) {
        throw controller.signal.aborted ? controller.signal.reason : error;
      } finally {
        clearTimeout(timer);
      }
    },
    abort(reason) {
      clearTimeout(timer);
      controller.abort(reason);
    },
  };
}

/**
 * Resolves once the client's socket buffer has room again (or the client is gone): waiting
 * here before reading more from upstream is the backpressure, so a client that reads slowly,
 * or not at all, holds the upstream back instead of filling the proxy's memory.
 */
export function roomFor(client: ServerResponse): Promise<void> | undefined {
  if (!client.writableNeedDrain || client.destroyed) return undefined;
  // Both listeners go as soon as one fires (racing two `events.once` leaves the loser's
  // listeners behind: one per wait, thousands in a long answer).
  return new Promise((resolve) => {
    const done = () => {
      client.off('drain', done);
      client.off('close', done);
      resolve();
    };
    client.on('drain', done);
    client.on('close', done);
  });
}

/** Copies the body to the client as it comes, waiting whenever the client is behind. */
export async function pipeBody(call: UpstreamCall, client: ServerResponse): Promise<void> {
  for await (const bytes of call.chunks()) {
    if (client.destroyed) return;
    client.write(bytes);
    await roomFor(client);
  }
}

/** The whole body as text, refusing one over `maxBytes` (the upstream is then aborted). */
export async function readCapped(call: UpstreamCall, maxBytes: number): Promise<string> {
  const pieces: Uint8Array[] = [];
  let size = 0;
  for await (const bytes of call.chunks()) {
    size += bytes.length;
    if (size > maxBytes) {
      const error = new UpstreamTooLarge(`the upstream's reply passed ${maxBytes} bytes`);
      call.abort(error);
      throw error;
    }
    pieces.push(bytes);
  }
  return Buffer.concat(pieces, size).toString('utf8');
}

/**
 * The SSE events' data, in order, through `take`; stops at `[DONE]`. An event larger than
 * `maxEventBytes` (a stream that never ends its event) fails with `UpstreamTooLarge`. After
 * each chunk, `pace` may return a promise to wait on before the next read (backpressure).
 */
export async function readEvents(
  call: UpstreamCall,
  maxEventBytes: number,
  take: (data: string) => void,
  pace: () => Promise<void> | undefined,
): Promise<void> {
  let done = false;
  let tooLarge = false;
  const sse = createSseParser({
    maxBufferSize: maxEventBytes,
    onError(error) {
      if (error.type === 'max-buffer-size-exceeded') tooLarge = true;
    },
    onEvent(event) {
      if (event.data === '[DONE]') done = true;
      else if (!done) take(event.data);
    },
  });
  const decoder = new TextDecoder();
  for await (const bytes of call.chunks()) {
    sse.feed(decoder.decode(bytes, { stream: true }));
    if (tooLarge) {
      const error = new UpstreamTooLarge(
        `the upstream sent an SSE event over ${maxEventBytes} bytes`,
      );
      call.abort(error);
      throw error;
    }
    if (done) return;
    await pace();
  }
}
