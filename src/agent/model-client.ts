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
  /** Per request, until the stream ends. Default 120 s. */
  timeoutMs?: number;
  /** Retries on 429, 5xx and connection errors (backoff 250 ms × 2ⁿ). Default 3. */
  retries?: number;
  stop?: string[];
  /** End the reply right after the first `</tool>`, for models that ramble past their call. */
  stopAfterTool?: boolean;
  temperature?: number;
  /** Waits between retries; tests shorten it. */
  backoffMs?: number;
}

/** A request the server refused (4xx): retrying will not help. */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}

const TOOL_CLOSE = '</tool>';

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
  const retries = options.retries ?? 3;
  const backoff = options.backoffMs ?? 250;
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;

  async function* attempt(request: ModelRequest): AsyncGenerator<ModelDelta> {
    const signals = [AbortSignal.timeout(options.timeoutMs ?? 120_000)];
    if (request.signal !== undefined) signals.push(request.signal);
    const controller = new AbortController();
    signals.push(controller.signal);
    const signal = AbortSignal.any(signals);
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
      const body = await response.text().catch(() => '');
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
      const retryable = response.status === 429 || response.status >= 500;
      throw new ModelError(
        `model server answered ${response.status}: ${detail.slice(0, 500)}`,
        response.status,
        retryable,
      );
    }
    const queue: ModelDelta[] = [];
    let done = false;
    let tail = '';
    const sse = createSseParser({
      onEvent(event) {
        if (event.data === '[DONE]') {
          done = true;
          return;
        }
        let chunk: { choices?: ChunkChoice[] };
        try {
          chunk = JSON.parse(event.data) as { choices?: ChunkChoice[] };
        } catch {
          return;
        }
        const choice = chunk.choices?.[0];
        const reasoning = choice?.delta?.reasoning_content ?? choice?.delta?.reasoning;
        if (reasoning) queue.push({ type: 'reasoning', text: reasoning });
        const text = choice?.delta?.content;
        if (text) queue.push({ type: 'text', text });
        if (choice?.finish_reason) queue.push({ type: 'finish', reason: choice.finish_reason });
      },
    });
    const decoder = new TextDecoder();
    for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
      sse.feed(decoder.decode(bytes, { stream: true }));
      while (queue.length > 0) {
        const delta = queue.shift() as ModelDelta;
        if (delta.type === 'text' && options.stopAfterTool) {
          // Cut right after the first </tool>, which may be split across deltas.
          const seen = tail + delta.text;
          const at = seen.indexOf(TOOL_CLOSE);
          if (at !== -1) {
            const keep = at + TOOL_CLOSE.length - tail.length;
            if (keep > 0) yield { type: 'text', text: delta.text.slice(0, keep) };
            yield { type: 'finish', reason: 'stop' };
            controller.abort();
            return;
          }
          tail = seen.slice(-(TOOL_CLOSE.length - 1));
        }
        yield delta;
      }
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
          const retryable = error instanceof ModelError ? error.retryable : true;
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
          await sleep(backoff * 2 ** attemptNo, request.signal);
        }
      }
    },
  };
}
