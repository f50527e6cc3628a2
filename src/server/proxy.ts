import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createParser as createSseParser } from 'eventsource-parser';
import { createNativeCalls } from '../adapters/index.js';
import type { ParserOptions } from '../protocol/index.js';
import { BadRequest, type ChatRequest, planUpstream, readChatRequest } from './chat-request.js';
import { ChatAnswer } from './chat-response.js';

export interface ProxyOptions {
  /** The model server's OpenAI-compatible base URL, e.g. `http://127.0.0.1:8080/v1`. */
  upstream: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port (see `url`). */
  port?: number;
  /** Client model names to upstream model names. */
  modelMap?: Record<string, string>;
  /** Larger request bodies get 413. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Send llama.cpp grammar fields with tool requests (lazy for `auto`). */
  grammar?: 'llama.cpp';
  /** Sent upstream as `Authorization: Bearer …`; otherwise the client's header is passed on. */
  apiKey?: string;
  parser?: Omit<ParserOptions, 'onEvent'>;
}

export interface RunningProxy {
  /** `http://HOST:PORT/v1` */
  url: string;
  close(): Promise<void>;
}

class PayloadTooLarge extends Error {}

function readBody(request: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    if (Number(request.headers['content-length'] ?? 0) > limit) {
      reject(new PayloadTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new PayloadTooLarge());
        request.destroy();
      } else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function sendError(response: ServerResponse, status: number, message: string, type: string): void {
  if (response.headersSent) return;
  response
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ error: { message, type, code: null, param: null } }));
}

interface UpstreamDelta {
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
}

interface UpstreamChunk {
  choices?: Array<{ delta?: UpstreamDelta; finish_reason?: string | null }>;
  usage?: unknown;
}

/**
 * The upstream's answer chunk by chunk: SSE as asked for, or, from a server that answered
 * `stream: true` with one JSON completion anyway, that completion as a single chunk.
 */
async function readUpstream(from: Response, take: (chunk: UpstreamChunk) => void): Promise<void> {
  if (from.headers.get('content-type')?.includes('application/json')) {
    const whole = (await from.json()) as {
      choices?: Array<{ message?: UpstreamDelta; finish_reason?: string | null }>;
      usage?: unknown;
    };
    take({
      choices: (whole.choices ?? []).map((c) => ({
        delta: c.message,
        finish_reason: c.finish_reason,
      })),
      usage: whole.usage,
    });
    return;
  }
  let done = false;
  const sse = createSseParser({
    onEvent(event) {
      if (event.data === '[DONE]') {
        done = true;
        return;
      }
      try {
        take(JSON.parse(event.data) as UpstreamChunk);
      } catch {
        // Not JSON (a comment or keep-alive): nothing to take.
      }
    },
  });
  const decoder = new TextDecoder();
  for await (const bytes of from.body as unknown as AsyncIterable<Uint8Array>) {
    sse.feed(decoder.decode(bytes, { stream: true }));
    if (done) break;
  }
}

/**
 * An OpenAI-compatible server in front of a model without native tool calling: requests with
 * `tools` go upstream in the text protocol, and the reply comes back with native `tool_calls`
 * (streamed as `delta.tool_calls` fragments), thinking as `reasoning_content`. Requests
 * without tools pass through as they are.
 */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const upstream = options.upstream.replace(/\/+$/, '');
  const modelMap = new Map(Object.entries(options.modelMap ?? {}));
  const limit = options.maxBodyBytes ?? 4 * 1024 * 1024;

  const upstreamHeaders = (request: IncomingMessage): Record<string, string> => {
    const auth =
      options.apiKey === undefined ? request.headers.authorization : `Bearer ${options.apiKey}`;
    return {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(auth !== undefined && { authorization: auth }),
    };
  };

  /** Fetches upstream, aborted when the client goes away before its answer is complete. */
  async function fetchUpstream(
    request: IncomingMessage,
    response: ServerResponse,
    path: string,
    init: RequestInit,
  ): Promise<Response | null> {
    const controller = new AbortController();
    response.on('close', () => {
      if (!response.writableFinished) controller.abort();
    });
    try {
      return await fetch(`${upstream}${path}`, {
        ...init,
        headers: upstreamHeaders(request),
        signal: controller.signal,
      });
    } catch (error) {
      if (!controller.signal.aborted)
        sendError(
          response,
          502,
          `upstream unreachable: ${(error as Error).message}`,
          'upstream_error',
        );
      return null;
    }
  }

  async function passThrough(from: Response, response: ServerResponse): Promise<void> {
    response.writeHead(from.status, {
      'content-type': from.headers.get('content-type') ?? 'application/json',
    });
    if (from.body !== null)
      for await (const bytes of from.body as unknown as AsyncIterable<Uint8Array>)
        response.write(bytes);
    response.end();
  }

  async function models(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const from = await fetchUpstream(request, response, '/models', { method: 'GET' });
    if (from === null) return;
    if (!from.ok || modelMap.size === 0) return passThrough(from, response);
    const list = (await from.json()) as { data?: Array<{ id: string }> };
    for (const alias of modelMap.keys())
      list.data?.push({ id: alias, object: 'model', owned_by: 'tagcall' } as { id: string });
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(list));
  }

  async function chat(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let body: ChatRequest;
    try {
      body = readChatRequest(await readBody(request, limit));
    } catch (error) {
      if (error instanceof PayloadTooLarge)
        return sendError(
          response,
          413,
          `request body over ${limit} bytes`,
          'invalid_request_error',
        );
      if (error instanceof BadRequest)
        return sendError(response, 400, error.message, 'invalid_request_error');
      throw error;
    }
    const usesTools =
      (body.tools?.length ?? 0) > 0 ||
      body.messages.some((m) => m.role === 'tool' || 'tool_calls' in m);
    if (!usesTools) {
      const model = body.model === undefined ? undefined : (modelMap.get(body.model) ?? body.model);
      const from = await fetchUpstream(request, response, '/chat/completions', {
        method: 'POST',
        body: JSON.stringify({ ...body, model }),
      });
      if (from !== null) await passThrough(from, response);
      return;
    }

    const plan = planUpstream(body, { modelMap, grammar: options.grammar });
    const from = await fetchUpstream(request, response, '/chat/completions', {
      method: 'POST',
      body: JSON.stringify(plan.body),
    });
    if (from === null) return;
    if (!from.ok || from.body === null) return passThrough(from, response);

    const id = `chatcmpl-${randomUUID()}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model ?? '';
    const streaming = body.stream === true;
    const chunk = (choices: unknown[], extra: object = {}) =>
      response.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`,
      );
    if (streaming)
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    // Every delta chunk is the same but for its delta: the rest is written out once.
    const deltaStart = `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model }).slice(0, -1)},"choices":[{"index":0,"delta":`;
    const answer = new ChatAnswer(
      streaming
        ? (delta) =>
            response.write(`${deltaStart}${JSON.stringify(delta)},"finish_reason":null}]}\n\n`)
        : undefined,
    );
    const native = createNativeCalls(
      { tools: plan.tools, parser: { prefilledThinking: 'never', ...options.parser } },
      (event) => answer.native(event),
    );
    let finish: string | null = null;
    let usage: unknown;
    const take = (data: UpstreamChunk) => {
      if (data.usage !== undefined && data.usage !== null) usage = data.usage;
      const choice = data.choices?.[0];
      const reasoning = choice?.delta?.reasoning_content ?? choice?.delta?.reasoning;
      if (reasoning) answer.reasoning(reasoning);
      if (choice?.delta?.content) native.feed(choice.delta.content);
      if (choice?.finish_reason) finish = choice.finish_reason;
    };
    try {
      await readUpstream(from, take);
    } catch (error) {
      if (response.destroyed) return;
      const message = `upstream stream failed: ${(error as Error).message}`;
      if (!streaming) return sendError(response, 502, message, 'upstream_error');
      response.end(`data: ${JSON.stringify({ error: { message, type: 'upstream_error' } })}\n\n`);
      return;
    }
    if (response.destroyed) return;
    native.end();
    const finishReason = answer.hasCalls ? 'tool_calls' : (finish ?? 'stop');
    if (streaming) {
      chunk([{ index: 0, delta: {}, finish_reason: finishReason }]);
      const include = (body.stream_options as { include_usage?: boolean } | undefined)
        ?.include_usage;
      if (include && usage !== undefined) chunk([], { usage });
      response.end('data: [DONE]\n\n');
      return;
    }
    // Only blank lines around the calls: no content, as native tool calling answers.
    if (answer.hasCalls && answer.message.content?.trim() === '') answer.message.content = null;
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          { index: 0, message: answer.message, finish_reason: finishReason, logprobs: null },
        ],
        ...(usage !== undefined && { usage }),
      }),
    );
  }

  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    const work =
      request.method === 'POST' && path.endsWith('/chat/completions')
        ? chat(request, response)
        : request.method === 'GET' && path.endsWith('/models')
          ? models(request, response)
          : Promise.resolve(
              sendError(response, 404, `no route ${request.method} ${path}`, 'not_found'),
            );
    work.catch((error: unknown) => {
      if (!response.headersSent)
        sendError(response, 500, String((error as Error).message ?? error), 'server_error');
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
