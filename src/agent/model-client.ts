import { createParser as createSseParser } from 'eventsource-parser';

/** What a model streams back: text, reasoning, and — after a dropped connection — a restart. */
export type ModelDelta =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  /** The stream failed mid-way and the request is being sent again: forget what came so far. */
  | { type: 'restart'; reason: string }
  | { type: 'finish'; reason: string };

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ModelRequest {
  messages: ChatMessage[];
  signal?: AbortSignal;
}

/** Any backend that streams a reply to chat messages. */
export interface ModelClient {
  stream(request: ModelRequest): AsyncIterable<ModelDelta>;
}

export interface OpenAIClientOptions {
  /** e.g. `http://127.0.0.1:8080/v1` (llama.cpp), `http://127.0.0.1:11434/v1` (Ollama). */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /**
   * The longest silence of the server (no byte, headers included) before the request is given
   * up; a stream that keeps coming is never cut. Default 120 s.
   */
  timeoutMs?: number;
  /**
   * Retries on 429, 5xx, connection errors and a server silent before it began (after the
   * server's `Retry-After`, up to 60 s, else 250 ms × 2ⁿ with jitter). Default 3.
   */
  retries?: number;
  stop?: string[];
  temperature?: number;
  /** Waits between retries; tests shorten it. */
  backoffMs?: number;
  /** One SSE event larger than this fails the request (a stream that never ends its event). Default 8 MiB. */
  maxEventBytes?: number;
}

export const MODEL_CLIENT_DEFAULTS = { timeoutMs: 120_000, retries: 3, maxEventBytes: 8 << 20 };

/** How much of an error body is read for its message. */
const ERROR_BODY_BYTES = 64 * 1024;

/** At most `limit` bytes of a body, decoded; the rest is not read. */
async function readSome(response: Response, limit: number): Promise<string> {
  if (response.body === null) return '';
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += bytes.length;
    text += decoder.decode(bytes, { stream: true });
    if (size >= limit) break;
  }
  return text.slice(0, limit);
}

/** A request the server refused (4xx): retrying will not help. */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly retryable: boolean,
    /** The server's `Retry-After`, in ms, when it gave one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}

/** The server sent nothing for the whole timeout. */
class SilenceError extends ModelError {}

/** The longest `Retry-After` honoured: a server asking for more is answered with an error. */
const MAX_RETRY_AFTER_MS = 60_000;

/** `Retry-After` as seconds or an HTTP date, in ms; undefined when absent or unreadable. */
function retryAfter(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) ? Math.max(0, ms) : undefined;
}

/** Whether `error` is fetch's failure to connect because nothing listens there. */
const refused = (error: unknown) =>
  (error as { cause?: { code?: string } } | null)?.cause?.code === 'ECONNREFUSED';

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

interface ChunkChoice {
  delta?: { content?: string | null; reasoning_content?: string | null; reasoning?: string | null };
  finish_reason?: string | null;
}

/**
 * A client for OpenAI-compatible `/chat/completions` endpoints, streaming over SSE. Errors
 * before any output are retried; a stream that breaks mid-way is sent again and announced with
 * a `restart` delta, so the consumer starts its parse over.
 */
export function createOpenAIClient(options: OpenAIClientOptions): ModelClient {
  const retries = options.retries ?? MODEL_CLIENT_DEFAULTS.retries;
  const maxEventBytes = options.maxEventBytes ?? MODEL_CLIENT_DEFAULTS.maxEventBytes;
  const backoff = options.backoffMs ?? 250;
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;

  const silence = options.timeoutMs ?? MODEL_CLIENT_DEFAULTS.timeoutMs;

  /**
   * One request. The timeout is on silence (no byte for `timeoutMs`, headers included), not on
   * the whole answer: a CPU model writing a long file for minutes is not cut off.
   */
  async function* attempt(request: ModelRequest): AsyncGenerator<ModelDelta> {
    const controller = new AbortController();
    let silent = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const heard = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        silent = true;
        controller.abort();
      }, silence);
    };
    const signals = [controller.signal];
    if (request.signal !== undefined) signals.push(request.signal);
    const signal = AbortSignal.any(signals);
    heard();
    try {
      yield* answer(request, signal, controller, heard);
    } catch (error) {
      if (silent)
        throw new SilenceError(
          `the model server sent nothing for ${silence} ms (timeoutMs, --timeout-ms)`,
          null,
          true,
        );
      if (refused(error))
        throw new ModelError(
          `nothing listens at ${url} (connection refused): is the model server running?`,
          null,
          true,
        );
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  async function* answer(
    request: ModelRequest,
    signal: AbortSignal,
    controller: AbortController,
    heard: () => void,
  ): AsyncGenerator<ModelDelta> {
    const response = await fetch(url, {
      method: 'POST',
      signal,
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        ...(options.apiKey !== undefined && { authorization: `Bearer ${options.apiKey}` }),
      },
      body: JSON.stringify({
        model: options.model,
        messages: request.messages,
        stream: true,
        ...(options.stop !== undefined && { stop: options.stop }),
        ...(options.temperature !== undefined && { temperature: options.temperature }),
      }),
    });
    if (!response.ok || response.body === null) {
      const body = await readSome(response, ERROR_BODY_BYTES).catch(() => '');
      let detail = body;
      try {
        const parsed = JSON.parse(body) as {
          error?: { message?: string } | string;
          message?: string;
        };
        detail =
          (typeof parsed.error === 'string' ? parsed.error : parsed.error?.message) ??
          parsed.message ??
          body;
      } catch {
        // Not JSON: the body as it is.
      }
      const wait = retryAfter(response.headers.get('retry-after'));
      const retryable =
        (response.status === 429 || response.status >= 500) &&
        (wait === undefined || wait <= MAX_RETRY_AFTER_MS);
      throw new ModelError(
        `model server answered ${response.status}: ${detail.slice(0, 500)}`,
        response.status,
        retryable,
        wait,
      );
    }
    const queue: ModelDelta[] = [];
    let done = false;
    let tooLarge: ModelError | null = null;
    const sse = createSseParser({
      maxBufferSize: maxEventBytes,
      onError(error) {
        if (error.type === 'max-buffer-size-exceeded')
          tooLarge = new ModelError(
            `the model server sent an SSE event over ${maxEventBytes} bytes`,
            null,
            false,
          );
      },
      onEvent(event) {
        if (event.data === '[DONE]') {
          done = true;
          return;
        }
        let chunk: { choices?: ChunkChoice[] } | null;
        try {
          chunk = JSON.parse(event.data) as { choices?: ChunkChoice[] } | null;
        } catch {
          return;
        }
        // `data: null`, a number, a list: not a chunk, nothing to take.
        if (chunk === null || typeof chunk !== 'object') return;
        const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
        const reasoning = choice?.delta?.reasoning_content ?? choice?.delta?.reasoning;
        if (typeof reasoning === 'string' && reasoning !== '')
          queue.push({ type: 'reasoning', text: reasoning });
        const text = choice?.delta?.content;
        if (typeof text === 'string' && text !== '') queue.push({ type: 'text', text });
        if (typeof choice?.finish_reason === 'string' && choice.finish_reason !== '')
          queue.push({ type: 'finish', reason: choice.finish_reason });
      },
    });
    const decoder = new TextDecoder();
    heard();
    for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
      heard();
      sse.feed(decoder.decode(bytes, { stream: true }));
      if (tooLarge !== null) {
        controller.abort();
        throw tooLarge;
      }
      while (queue.length > 0) yield queue.shift() as ModelDelta;
      if (done) return;
    }
    if (!done) throw new ModelError('the model stream ended before [DONE]', null, true);
  }

  return {
    async *stream(request) {
      for (let attemptNo = 0; ; attemptNo++) {
        let produced = false;
        try {
          for await (const delta of attempt(request)) {
            produced = true;
            yield delta;
          }
          return;
        } catch (error) {
          if (request.signal?.aborted) throw request.signal.reason ?? error;
          // A stream that went silent after it had begun is not asked again from scratch: the
          // model was writing, and a new request would start its whole answer over.
          const retryable =
            error instanceof ModelError
              ? error.retryable && !(produced && error instanceof SilenceError)
              : true;
          if (!retryable || attemptNo >= retries) {
            throw error instanceof ModelError
              ? error
              : new ModelError(
                  `model request failed: ${String((error as Error).message ?? error)}`,
                  null,
                  false,
                );
          }
          if (produced)
            yield { type: 'restart', reason: String((error as Error).message ?? error) };
          // The server's Retry-After when it gave one; else exponential backoff with jitter,
          // so clients that failed together do not all come back at once.
          const wait =
            error instanceof ModelError && error.retryAfterMs !== undefined
              ? error.retryAfterMs
              : backoff * 2 ** attemptNo * (0.5 + Math.random() / 2);
          await sleep(wait, request.signal);
        }
      }
    },
  };
}
