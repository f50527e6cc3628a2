import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ChatStream,
  type ChunkDelta,
  decodeChunk,
  openChatStream,
  readCapped,
  StreamTimeout,
  StreamTooLarge,
  sseData,
  Unreachable,
} from '../agent/chat-stream.js';
import type { ParserOptions } from '../protocol/index.js';
import { pipeBody, roomFor } from './backpressure.js';
import {
  BadRequest,
  type ChatRequest,
  planUpstream,
  readChatRequest,
  type UpstreamPlan,
} from './chat-request.js';
import { ChatAnswer } from './chat-response.js';
import { createGuard } from './guard.js';
import {
  completionRequest,
  createLazyReply,
  grammarTriggersOf,
  promptOf,
  templateRequest,
  upstreamRoot,
} from './llama-completion.js';

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
  /**
   * Tokens (estimated) the upstream's context holds for a request: a request whose tool
   * prompt alone is larger gets 400 with the numbers, as the model could not read its
   * messages. Default: no check (the upstream's own limit applies).
   */
  budget?: number;
  /** Sent upstream as `Authorization: Bearer …`; otherwise the client's header is passed on. */
  apiKey?: string;
  /** Clients must send `Authorization: Bearer <requireKey>` (401 otherwise); it is not passed on. */
  requireKey?: string;
  /** Host names served besides IP addresses and `localhost` (403 otherwise: DNS rebinding). */
  allowedHosts?: string[];
  /**
   * Web origins (`http://localhost:3000`) whose pages may call the proxy. A request with any
   * other `Origin` header gets 403: without it, any page the operator visits could spend the
   * upstream's key. Programs send no `Origin` and are not affected.
   */
  allowedOrigins?: string[];
  /** Until the upstream's response headers; then 504. Default 120 s. */
  connectTimeoutMs?: number;
  /** The longest pause in the upstream's body; then 504 (or an SSE error). Default 120 s. */
  idleTimeoutMs?: number;
  /** A buffered (non-streaming) answer or upstream JSON reply over this gets 502. Default 16 MiB. */
  maxAnswerBytes?: number;
  /** One upstream SSE event over this fails the answer. Default 8 MiB. */
  maxEventBytes?: number;
  /**
   * Stream each call's entry and argument fragments as the model writes them. Unsafe: a call
   * that then breaks off (the reply ends inside it, its JSON cannot be read) cannot be taken
   * back, and clients that run every call open at the end of a stream (AI SDK 6 with
   * `@ai-sdk/openai`) run it with the arguments it had. Default false: a call is held until it
   * has ended, then sent whole; one that breaks off is never sent.
   */
  streamCallsEarly?: boolean;
  /** Sees errors that are the proxy's own (answered 500); default: written to stderr. */
  onError?: (error: unknown) => void;
  /**
   * Sees each upstream failure answered 502 or 504 (unreachable, timed out, over a cap), in
   * words that name the cause and the URL; default: written to stderr.
   */
  onUpstreamError?: (message: string) => void;
  parser?: Omit<ParserOptions, 'onEvent'>;
}

export const PROXY_DEFAULTS = {
  host: '127.0.0.1',
  maxBodyBytes: 4 * 1024 * 1024,
  connectTimeoutMs: 120_000,
  idleTimeoutMs: 120_000,
  maxAnswerBytes: 16 * 1024 * 1024,
  maxEventBytes: 8 * 1024 * 1024,
};

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

function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  type: string,
  param: string | null = null,
): void {
  if (response.headersSent) return;
  response
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ error: { message, type, code: null, param } }));
}

/** What an upstream failure is for the client: its status, type and message. */
function upstreamFailure(error: unknown): { status: number; type: string; message: string } {
  if (error instanceof StreamTimeout)
    return { status: 504, type: 'upstream_timeout', message: error.message };
  if (error instanceof StreamTooLarge)
    return { status: 502, type: 'upstream_error', message: error.message };
  if (error instanceof Unreachable)
    return {
      status: 502,
      type: 'upstream_error',
      message: `upstream unreachable: ${error.message}`,
    };
  return {
    status: 502,
    type: 'upstream_error',
    message: `upstream failed: ${(error as Error).message ?? String(error)}`,
  };
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
  const limit = options.maxBodyBytes ?? PROXY_DEFAULTS.maxBodyBytes;
  const maxAnswerBytes = options.maxAnswerBytes ?? PROXY_DEFAULTS.maxAnswerBytes;
  const limits = {
    connectTimeoutMs: options.connectTimeoutMs ?? PROXY_DEFAULTS.connectTimeoutMs,
    idleTimeoutMs: options.idleTimeoutMs ?? PROXY_DEFAULTS.idleTimeoutMs,
    maxEventBytes: options.maxEventBytes ?? PROXY_DEFAULTS.maxEventBytes,
    serverName: 'the upstream',
  };
  const guard = createGuard(options);
  const onError =
    options.onError ??
    ((error: unknown) =>
      process.stderr.write(`tagcall serve: ${(error as Error).stack ?? error}\n`));
  const onUpstreamError =
    options.onUpstreamError ??
    ((message: string) => process.stderr.write(`tagcall serve: ${message}\n`));
  /** Answers an upstream failure (an SSE error once streaming) and logs it. */
  const failUpstream = (response: ServerResponse, error: unknown) => {
    const failure = upstreamFailure(error);
    onUpstreamError(failure.message);
    if (!response.headersSent)
      return sendError(response, failure.status, failure.message, failure.type);
    response.end(
      `data: ${JSON.stringify({ error: { message: failure.message, type: failure.type } })}\n\n`,
    );
  };

  const upstreamHeaders = (request: IncomingMessage): Record<string, string> => {
    // A client's key for this proxy (requireKey) is not the upstream's: never pass it on.
    const passed = options.requireKey === undefined ? request.headers.authorization : undefined;
    const auth = options.apiKey === undefined ? passed : `Bearer ${options.apiKey}`;
    return {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(auth !== undefined && { authorization: auth }),
    };
  };

  /**
   * Calls upstream, aborted when the client goes away; on failure answers the client (502, or
   * 504 on a timeout) and returns null. One attempt: a failure is the client's to retry (the
   * upstream's status and `Retry-After` are passed on), so retries do not multiply.
   */
  async function fetchUpstream(
    request: IncomingMessage,
    response: ServerResponse,
    path: string,
    init: RequestInit,
    base = upstream,
  ): Promise<ChatStream | null> {
    const gone = new AbortController();
    response.on('close', () => {
      if (!response.writableFinished) gone.abort(new Error('the client went away'));
    });
    try {
      return await openChatStream(
        `${base}${path}`,
        { ...init, headers: upstreamHeaders(request) },
        limits,
        gone.signal,
      );
    } catch (error) {
      if (!response.destroyed) failUpstream(response, error);
      return null;
    }
  }

  /** The upstream's answer as it is (status, type, body), streamed with backpressure. */
  async function passThrough(call: ChatStream, response: ServerResponse): Promise<void> {
    const retryAfter = call.response.headers.get('retry-after');
    response.writeHead(call.response.status, {
      'content-type': call.response.headers.get('content-type') ?? 'application/json',
      ...(retryAfter !== null && { 'retry-after': retryAfter }),
    });
    try {
      await pipeBody(call, response);
      response.end();
    } catch (error) {
      // Headers are out: the client learns of the failure by a cut answer.
      if (!response.destroyed) response.destroy(error as Error);
    }
  }

  async function models(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const call = await fetchUpstream(request, response, '/models', { method: 'GET' });
    if (call === null) return;
    if (!call.response.ok || modelMap.size === 0) return passThrough(call, response);
    let list: { data?: Array<{ id: string }> };
    try {
      list = JSON.parse(await readCapped(call, maxAnswerBytes, 'the upstream')) as typeof list;
    } catch (error) {
      return failUpstream(response, error);
    }
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
        return sendError(response, 400, error.message, 'invalid_request_error', error.param);
      throw error;
    }
    const usesTools =
      (body.tools?.length ?? 0) > 0 ||
      body.messages.some((m) => m.role === 'tool' || 'tool_calls' in m);
    if (!usesTools) {
      const model = body.model === undefined ? undefined : (modelMap.get(body.model) ?? body.model);
      const call = await fetchUpstream(request, response, '/chat/completions', {
        method: 'POST',
        body: JSON.stringify({ ...body, model }),
      });
      if (call !== null) await passThrough(call, response);
      return;
    }

    let plan: UpstreamPlan;
    try {
      plan = planUpstream(body, {
        modelMap,
        grammar: options.grammar,
        dialect: options.parser?.dialect,
        budget: options.budget,
      });
    } catch (error) {
      if (error instanceof BadRequest)
        return sendError(response, 400, error.message, 'invalid_request_error', error.param);
      throw error;
    }
    let path = '/chat/completions';
    let upstreamBody = plan.body;
    const triggers = grammarTriggersOf(plan.body);
    if (plan.body.grammar !== undefined) {
      // llama-server honours a lazy grammar on a completion only (llama-completion.ts).
      const rendered = await fetchUpstream(
        request,
        response,
        '/apply-template',
        { method: 'POST', body: JSON.stringify(templateRequest(plan.body)) },
        upstreamRoot(upstream),
      );
      if (rendered === null) return;
      if (!rendered.response.ok) return passThrough(rendered, response);
      try {
        upstreamBody = completionRequest(
          plan.body,
          promptOf(await readCapped(rendered, maxAnswerBytes, 'the upstream')),
        );
      } catch (error) {
        if (response.destroyed) return;
        return failUpstream(response, error);
      }
      path = '/completions';
    }
    const call = await fetchUpstream(request, response, path, {
      method: 'POST',
      body: JSON.stringify(upstreamBody),
    });
    if (call === null) return;
    if (!call.response.ok || call.response.body === null) return passThrough(call, response);

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
    const answer = streaming
      ? new ChatAnswer({
          onDelta: (delta) =>
            response.write(`${deltaStart}${JSON.stringify(delta)},"finish_reason":null}]}\n\n`),
          keep: false,
          callsEarly: options.streamCallsEarly === true,
        })
      : new ChatAnswer();
    const native = createLazyReply(
      {
        tools: plan.tools,
        // Only the tools the request offers (none with tool_choice "none") are called.
        onlyListed: true,
        // parallel_tool_calls: false: the first call that ends well is the one; later ones are text.
        maxCalls: body.parallel_tool_calls === false ? 1 : undefined,
        // The request's tools are the names Cline's form is read by (dialect cline or auto).
        parser: {
          prefilledThinking: 'never',
          toolNames: plan.tools.map((t) => t.name),
          ...options.parser,
        },
      },
      (event) => answer.native(event),
      triggers,
    );
    let finish: string | null = null;
    let usage: unknown;
    const take = (data: ChunkDelta | null) => {
      if (data === null) return;
      if (data.usage !== undefined) usage = data.usage;
      if (data.reasoning !== undefined) answer.reasoning(data.reasoning);
      if (data.content !== undefined) native.feed(data.content);
      if (data.finish !== undefined) finish = data.finish;
      if (!streaming && answer.size > maxAnswerBytes) {
        const error = new StreamTooLarge(`the upstream's answer passed ${maxAnswerBytes} bytes`);
        call.abort(error);
        throw error;
      }
    };
    try {
      if (call.response.headers.get('content-type')?.includes('application/json')) {
        // A server that answered `stream: true` with one JSON completion anyway.
        take(decodeChunk(await readCapped(call, maxAnswerBytes, 'the upstream')));
      } else {
        for await (const data of sseData(call, limits)) {
          take(decodeChunk(data));
          await roomFor(response);
        }
      }
    } catch (error) {
      if (response.destroyed) return;
      return failUpstream(response, error);
    }
    if (response.destroyed) return;
    // A reply the token limit cut may have been cut between two arguments of a call.
    native.end({ cutShort: finish === 'length' });
    answer.end();
    // A call that broke off is never offered for execution: no tool_calls finish for it.
    const finishReason =
      answer.hasCalls && !answer.hasFailedCalls ? 'tool_calls' : (finish ?? 'stop');
    if (streaming) {
      chunk([{ index: 0, delta: {}, finish_reason: finishReason }]);
      const include = (body.stream_options as { include_usage?: boolean } | undefined)
        ?.include_usage;
      if (include && usage !== undefined) chunk([], { usage });
      response.end('data: [DONE]\n\n');
      return;
    }
    const message = answer.finalMessage();
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message,
            finish_reason: answer.hasCalls ? 'tool_calls' : (finish ?? 'stop'),
            logprobs: null,
          },
        ],
        ...(usage !== undefined && { usage }),
      }),
    );
  }

  const server = createServer((request, response) => {
    const refused = guard(request);
    if (refused !== null) {
      request.resume();
      return sendError(
        response,
        refused.status,
        refused.message,
        refused.status === 401
          ? 'authentication_error'
          : refused.status === 415
            ? 'invalid_request_error'
            : 'forbidden',
      );
    }
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
      // The proxy's own fault: its details go to onError, not to the client.
      onError(error);
      if (!response.headersSent)
        sendError(response, 500, 'internal error in tagcall serve', 'server_error');
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? PROXY_DEFAULTS.host, resolve);
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
