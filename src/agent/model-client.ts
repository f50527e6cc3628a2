import {
  type ChatStream,
  decodeChunk,
  MAX_RETRY_AFTER_MS,
  openChatStream,
  readPrefix,
  retryAfterMs,
  retryDelayMs,
  StreamCutShort,
  StreamTimeout,
  StreamTooLarge,
  sseData,
  Unreachable,
} from './chat-stream.js';

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

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', abort, { once: true });
  });

/** The message of an error body: OpenAI's `{error: {message}}`, `{error}`, `{message}`, or the text. */
function errorDetail(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string } | string; message?: string };
    return (
      (typeof parsed.error === 'string' ? parsed.error : parsed.error?.message) ??
      parsed.message ??
      body
    );
  } catch {
    return body;
  }
}

/**
 * A client for OpenAI-compatible `/chat/completions` endpoints, streaming over SSE. Errors
 * before any output are retried; a stream that breaks mid-way is sent again and announced with
 * a `restart` delta, so the consumer starts its parse over.
 */
export function createOpenAIClient(options: OpenAIClientOptions): ModelClient {
  const retries = options.retries ?? MODEL_CLIENT_DEFAULTS.retries;
  const backoff = options.backoffMs ?? 250;
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const silence = options.timeoutMs ?? MODEL_CLIENT_DEFAULTS.timeoutMs;
  // The timeout is on silence (no byte, headers included), not on the whole answer: a CPU
  // model writing a long file for minutes is not cut off.
  const limits = {
    connectTimeoutMs: silence,
    idleTimeoutMs: silence,
    maxEventBytes: options.maxEventBytes ?? MODEL_CLIENT_DEFAULTS.maxEventBytes,
  };

  /** The shared client's failures, as the agent tells and retries them. */
  const asModelError = (error: unknown): unknown => {
    if (error instanceof StreamTimeout)
      return new SilenceError(
        `the model server sent nothing for ${silence} ms (timeoutMs, --timeout-ms)`,
        null,
        true,
      );
    if (error instanceof Unreachable || error instanceof StreamCutShort)
      return new ModelError(error.message, null, true);
    if (error instanceof StreamTooLarge) return new ModelError(error.message, null, false);
    return error;
  };

  async function refusal(stream: ChatStream): Promise<ModelError> {
    const { response } = stream;
    const body = await readPrefix(stream, ERROR_BODY_BYTES).catch(() => '');
    const wait = retryAfterMs(response.headers.get('retry-after'));
    const retryable =
      (response.status === 429 || response.status >= 500) &&
      (wait === undefined || wait <= MAX_RETRY_AFTER_MS);
    return new ModelError(
      `model server answered ${response.status}: ${errorDetail(body).slice(0, 500)}`,
      response.status,
      retryable,
      wait,
    );
  }

  /** One request, its deltas as they come. */
  async function* attempt(request: ModelRequest): AsyncGenerator<ModelDelta> {
    try {
      const stream = await openChatStream(
        url,
        {
          method: 'POST',
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
        },
        limits,
        request.signal,
      );
      if (!stream.response.ok || stream.response.body === null) throw await refusal(stream);
      for await (const data of sseData(stream, limits, { requireDone: true })) {
        const chunk = decodeChunk(data);
        if (chunk?.reasoning !== undefined) yield { type: 'reasoning', text: chunk.reasoning };
        if (chunk?.content !== undefined) yield { type: 'text', text: chunk.content };
        if (chunk?.finish !== undefined) yield { type: 'finish', reason: chunk.finish };
      }
    } catch (error) {
      throw asModelError(error);
    }
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
          const wait = retryDelayMs(
            attemptNo,
            backoff,
            error instanceof ModelError ? error.retryAfterMs : undefined,
          );
          await sleep(wait, request.signal);
        }
      }
    },
  };
}
