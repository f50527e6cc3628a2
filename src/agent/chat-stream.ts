import { createParser as createSseParser } from 'eventsource-parser';
import { redactUrl } from '../messages/redact-url.js';
import { isJsonObject } from '../protocol/json-call.js';

/**
 * One streaming request to an OpenAI-compatible server, as both the agent's model client and
 * `tagcall serve`'s upstream call make it: one fetch under a connect and an idle limit, its SSE
 * events under a size cap, each chunk decoded, errors that say what happened and where.
 */

export interface ChatStreamLimits {
  /** Until the response headers. */
  connectTimeoutMs: number;
  /** The longest pause between two chunks of the body. */
  idleTimeoutMs: number;
  /** One SSE event (or a whole JSON body read with `readCapped`). */
  maxEventBytes: number;
  /** How messages name the server. Default `the model server`. */
  serverName?: string;
}

/** The server did not answer in time: no headers within `connectTimeoutMs`, or a pause. */
export class StreamTimeout extends Error {
  constructor(
    message: string,
    readonly phase: 'connect' | 'idle',
  ) {
    super(message);
    this.name = 'StreamTimeout';
  }
}

/** The server sent more than a cap allows (the request is then aborted). */
export class StreamTooLarge extends Error {
  override name = 'StreamTooLarge';
}

/** The stream ended without `[DONE]` (a server that fell over mid-answer). */
export class StreamCutShort extends Error {
  override name = 'StreamCutShort';
}

/** The request reached no server; the message names the cause, the URL and what to try. */
export class Unreachable extends Error {
  constructor(
    message: string,
    /** The system's code (`ECONNREFUSED`, `ENOTFOUND`…), when there was one. */
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'Unreachable';
  }
}

const TLS_CODE = /^(ERR_SSL_|ERR_TLS_|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_)/;

/** What fetch's bare `fetch failed` was, from its cause: the words, the URL, what to try. */
export function unreachable(error: unknown, target: string, who = 'the model server'): Unreachable {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const url = redactUrl(target);
  // fetch's own messages may quote the URL as given, credentials and all.
  const detail = (typeof cause?.message === 'string' ? cause.message : String(error))
    .split(target)
    .join(url);
  const say = (message: string) => new Unreachable(message, code);
  if (code === 'ECONNREFUSED')
    return say(`nothing listens at ${url} (connection refused): is ${who} running?`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return say(`the host of ${url} was not found (DNS, ${code}): check the host name`);
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT')
    return say(
      `connecting to ${url} timed out (${code}): is the host up, and the port open to this machine?`,
    );
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return say(`the host of ${url} cannot be reached (${code}): check the network and the address`);
  if (code !== undefined && TLS_CODE.test(code))
    return say(
      `TLS with ${url} failed (${code}): an http:// server asked over https://, or a certificate Node does not trust (see NODE_EXTRA_CA_CERTS)`,
    );
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE')
    return say(
      `${url} closed the connection before answering (${code}): is it an HTTP server, and the URL its OpenAI-compatible base (…/v1)?`,
    );
  // fetch refuses the ports browsers block (1, 22, 25…), before any connection.
  if (detail === 'bad port')
    return say(
      `fetch refuses the port of ${url} (a blocked port, as browsers block it): use another port`,
    );
  return say(`the request to ${url} failed: ${detail}${code === undefined ? '' : ` (${code})`}`);
}

/** One request under way: its response, and its body read chunk by chunk. */
export interface ChatStream {
  readonly response: Response;
  /** The body as it comes, each chunk restarting the idle clock. Read it once. */
  chunks(): AsyncIterable<Uint8Array>;
  abort(reason: Error): void;
}

/**
 * Sends one request. It is aborted when `signal` aborts (its reason is then thrown), when the
 * headers take longer than `connectTimeoutMs` or the body pauses longer than `idleTimeoutMs`
 * (`StreamTimeout`). A request that reaches no server fails with `Unreachable`.
 */
export async function openChatStream(
  url: string,
  init: RequestInit,
  limits: ChatStreamLimits,
  signal?: AbortSignal,
): Promise<ChatStream> {
  const who = limits.serverName ?? 'the model server';
  const controller = new AbortController();
  // A listener removed when the request is over, not AbortSignal.any: a long-lived signal
  // (a whole agent run's) would keep every request's controller until it fires.
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const arm = (ms: number, timeout: () => StreamTimeout) => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(timeout()), ms);
    timer.unref();
  };
  const release = () => {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  };
  arm(
    limits.connectTimeoutMs,
    () =>
      new StreamTimeout(`${who} did not answer within ${limits.connectTimeoutMs} ms`, 'connect'),
  );
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: controller.signal });
  } catch (error) {
    release();
    throw controller.signal.aborted ? controller.signal.reason : unreachable(error, url, who);
  }
  const idle = () =>
    new StreamTimeout(`${who} sent nothing for ${limits.idleTimeoutMs} ms`, 'idle');
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
        release();
      }
    },
    abort(reason) {
      release();
      controller.abort(reason);
    },
  };
}

/** The whole body as text, refusing one over `maxBytes` (the request is then aborted). */
export async function readCapped(
  stream: ChatStream,
  maxBytes: number,
  who = 'the model server',
): Promise<string> {
  const pieces: Uint8Array[] = [];
  let size = 0;
  for await (const bytes of stream.chunks()) {
    size += bytes.length;
    if (size > maxBytes) {
      const error = new StreamTooLarge(`${who}'s reply passed ${maxBytes} bytes`);
      stream.abort(error);
      throw error;
    }
    pieces.push(bytes);
  }
  return Buffer.concat(pieces, size).toString('utf8');
}

/** At most the first `limit` bytes of the body, decoded (an error body, for its message). */
export async function readPrefix(stream: ChatStream, limit: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for await (const bytes of stream.chunks()) {
    size += bytes.length;
    text += decoder.decode(bytes, { stream: true });
    if (size >= limit) break;
  }
  return text.slice(0, limit);
}

/**
 * The data of each SSE event, in order, until `[DONE]`. An event over `maxEventBytes` (a stream
 * that never ends its event) fails with `StreamTooLarge`; with `requireDone`, a body that ends
 * without `[DONE]` fails with `StreamCutShort`.
 */
export async function* sseData(
  stream: ChatStream,
  limits: ChatStreamLimits,
  options: { requireDone?: boolean } = {},
): AsyncGenerator<string> {
  const who = limits.serverName ?? 'the model server';
  let done = false;
  let tooLarge = false;
  let events: string[] = [];
  const sse = createSseParser({
    maxBufferSize: limits.maxEventBytes,
    onError(error) {
      if (error.type === 'max-buffer-size-exceeded') tooLarge = true;
    },
    onEvent(event) {
      if (event.data === '[DONE]') done = true;
      else if (!done) events.push(event.data);
    },
  });
  const decoder = new TextDecoder();
  for await (const bytes of stream.chunks()) {
    sse.feed(decoder.decode(bytes, { stream: true }));
    if (tooLarge) {
      const error = new StreamTooLarge(
        `${who} sent an SSE event over ${limits.maxEventBytes} bytes`,
      );
      stream.abort(error);
      throw error;
    }
    const batch = events;
    events = [];
    yield* batch;
    if (done) return;
  }
  if (options.requireDone === true && !done)
    throw new StreamCutShort(`${who} ended its stream before [DONE]`);
}

/** What one chunk (or a whole completion) carries, for choice 0. */
export interface ChunkDelta {
  content?: string;
  reasoning?: string;
  finish?: string;
  usage?: unknown;
}

interface WireChoice {
  delta?: WireMessage | null;
  message?: WireMessage | null;
  /** A completion's (`/v1/completions`) text, instead of a message. */
  text?: unknown;
  finish_reason?: unknown;
}

interface WireMessage {
  content?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
}

/**
 * One SSE event's chunk (`choices[0].delta`), or a whole `chat.completion` (`choices[0].message`),
 * as what it carries; null for data that is no object (`null`, a number, broken JSON).
 * Reasoning is read from `reasoning_content` (llama.cpp, vLLM) or `reasoning` (Ollama, OpenRouter).
 */
export function decodeChunk(data: string): ChunkDelta | null {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  if (!isJsonObject(value)) return null;
  const out: ChunkDelta = {};
  if (value.usage !== undefined && value.usage !== null) out.usage = value.usage;
  const choice = (Array.isArray(value.choices) ? value.choices[0] : undefined) as
    | WireChoice
    | undefined;
  if (!isJsonObject(choice)) return out;
  const message = isJsonObject(choice.delta)
    ? choice.delta
    : isJsonObject(choice.message)
      ? choice.message
      : undefined;
  const reasoning = message?.reasoning_content ?? message?.reasoning;
  if (typeof reasoning === 'string' && reasoning !== '') out.reasoning = reasoning;
  const content = message?.content ?? choice.text;
  if (typeof content === 'string' && content !== '') out.content = content;
  if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '')
    out.finish = choice.finish_reason;
  return out;
}

/** The longest `Retry-After` a client waits: a server asking for more gets an error instead. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** `Retry-After` as seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) ? Math.max(0, ms) : undefined;
}

/**
 * The wait before retry `attempt` (0-based): the server's `Retry-After` when it gave one, else
 * `baseMs × 2ⁿ` with jitter, so clients that failed together do not all come back at once.
 */
export function retryDelayMs(attempt: number, baseMs: number, retryAfter?: number): number {
  return retryAfter ?? baseMs * 2 ** attempt * (0.5 + Math.random() / 2);
}
