import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { charEstimate, MESSAGE_OVERHEAD } from '../messages/index.js';

/**
 * A recorded reply, or two: `afterError` is served instead of `reply` when the request's last
 * message is a failed tool result, so that a recorded answer never claims a call worked
 * when it did not (the demo's MCP server may be missing).
 */
export type RecordedReply = string | { reply: string; afterError: string };

export interface ReplayModelOptions {
  /** Recorded replies: the Nth is served when the request holds N-1 assistant messages. */
  replies: RecordedReply[];
  /** Characters per SSE delta, cycled (like a tokenizer's uneven tokens). Default [3, 5, 2, 7, 4]. */
  chunkSizes?: number[];
  /** Pause between deltas, in ms. Default 0. */
  delayMs?: number;
  /** Fault injection for tests: answer the first N requests with 500. */
  failFirst?: number;
  /** Fault injection: on the first request only, drop the connection after this many characters. */
  dropAfterChars?: number;
  /** Default 0: a free port. */
  port?: number;
}

export interface ReplayModel {
  /** The OpenAI-compatible base URL, `http://127.0.0.1:PORT/v1`. */
  url: string;
  requests: number;
  /** The chat request bodies received, in order (for tests to see what was sent). */
  bodies: unknown[];
  /** Replies cut short because the client went away. */
  abandoned: number;
  close(): Promise<void>;
}

interface ChatMessage {
  role: string;
  content?: string | Array<{ type: string; text?: string }> | null;
}

/**
 * Whether the request ends with a failed tool result: `Tool: NAME` then `Error: …` in the text
 * protocol (what tagcall sends), or a `tool` message whose content starts with `Error: `.
 */
function lastResultFailed(messages: readonly ChatMessage[]): boolean {
  const last = messages.at(-1);
  if (last === undefined) return false;
  const text =
    typeof last.content === 'string'
      ? last.content
      : (last.content ?? []).map((part) => part.text ?? '').join('');
  return last.role === 'tool' ? text.startsWith('Error: ') : /^Tool: [^\n]*\nError: /.test(text);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => resolve(body));
    request.on('error', reject);
  });
}

/** The messages in ChatML, with the generation prompt: what llama-server's `/apply-template` answers. */
function chatMl(messages: Array<{ role: string; content?: unknown }>): string {
  const text = (content: unknown) => (typeof content === 'string' ? content : '');
  return `${messages.map((m) => `<|im_start|>${m.role}\n${text(m.content)}<|im_end|>\n`).join('')}<|im_start|>assistant\n`;
}

/**
 * Token counts as a server reports them, estimated (characters / 4 and a few per message: the
 * replay has no tokenizer), so clients that show usage show numbers.
 */
function usageOf(messages: Array<{ content?: unknown }>, reply: string) {
  let prompt = 0;
  for (const m of messages)
    prompt +=
      MESSAGE_OVERHEAD +
      charEstimate.count(
        typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''),
      );
  const completion = charEstimate.count(reply);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}

/**
 * A model server for demos and tests: a real HTTP server on 127.0.0.1 (a free port unless given) that
 * speaks the OpenAI protocol and replays recorded replies: in small SSE deltas to a request with
 * `stream: true`, as one `chat.completion` to one without. As llama-server, it also renders
 * messages at `/apply-template` (ChatML) and answers a completion (`/v1/completions`, the
 * reply's turn counted from the prompt's assistant turns), which `tagcall serve --grammar
 * llama.cpp` asks.
 */
export async function startReplayModel(options: ReplayModelOptions): Promise<ReplayModel> {
  const sizes = options.chunkSizes ?? [3, 5, 2, 7, 4];
  const state = { requests: 0, abandoned: 0, bodies: [] as unknown[] };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method === 'GET' && request.url?.endsWith('/models')) {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"object":"list","data":[{"id":"replay","object":"model","owned_by":"tagcall"}]}');
      return;
    }
    if (request.method === 'POST' && request.url?.endsWith('/apply-template')) {
      const body = JSON.parse(await readBody(request)) as {
        messages?: Array<{ role: string; content?: unknown }>;
      };
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ prompt: chatMl(body.messages ?? []) }));
      return;
    }
    state.requests++;
    const number = state.requests;
    const completion = request.url?.endsWith('/v1/completions') === true;
    if (request.method !== 'POST' || !(completion || request.url?.endsWith('/chat/completions'))) {
      response
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"error":{"message":"not found"}}');
      return;
    }
    const body = JSON.parse(await readBody(request)) as {
      messages?: ChatMessage[];
      prompt?: string;
      stream?: boolean;
      stream_options?: { include_usage?: boolean };
    };
    state.bodies.push(body);
    if (number <= (options.failFirst ?? 0)) {
      response
        .writeHead(500, { 'content-type': 'application/json' })
        .end('{"error":{"message":"replay: injected failure"}}');
      return;
    }
    const turn = completion
      ? (body.prompt ?? '').split('<|im_start|>assistant\n').length - 2
      : (body.messages ?? []).filter((m) => m.role === 'assistant').length;
    const recorded = options.replies[turn];
    const reply =
      typeof recorded === 'object'
        ? lastResultFailed(body.messages ?? [])
          ? recorded.afterError
          : recorded.reply
        : recorded;
    if (reply === undefined) {
      response
        .writeHead(400, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ error: { message: `replay: no recorded reply for turn ${turn + 1}` } }),
        );
      return;
    }
    const usage = usageOf(body.messages ?? [], reply);
    if (body.stream !== true) {
      // A client that does not stream (the openai client's default, the AI SDK's
      // generateText) gets one chat.completion, as a model server answers it.
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `replay-${number}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: 'replay',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: reply },
              finish_reason: 'stop',
            },
          ],
          usage,
        }),
      );
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (delta: { content?: string }, finish: string | null) =>
      response.write(
        `data: ${JSON.stringify(
          completion
            ? {
                id: `replay-${number}`,
                object: 'text_completion',
                choices: [{ index: 0, text: delta.content ?? '', finish_reason: finish }],
              }
            : {
                id: `replay-${number}`,
                object: 'chat.completion.chunk',
                choices: [{ index: 0, delta, finish_reason: finish }],
              },
        )}\n\n`,
      );
    // Code points, so no delta splits a surrogate pair (servers send whole tokens).
    const chars = Array.from(reply);
    let sent = 0;
    for (let i = 0, k = 0; i < chars.length; k++) {
      if (response.destroyed) {
        state.abandoned++;
        return;
      }
      const piece = chars.slice(i, i + sizes[k % sizes.length]).join('');
      i += sizes[k % sizes.length];
      if (
        number === 1 + (options.failFirst ?? 0) &&
        options.dropAfterChars !== undefined &&
        sent >= options.dropAfterChars
      ) {
        response.destroy();
        return;
      }
      send({ content: piece }, null);
      sent += piece.length;
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    }
    send({}, 'stop');
    if (body.stream_options?.include_usage === true)
      response.write(
        `data: ${JSON.stringify({ id: `replay-${number}`, object: 'chat.completion.chunk', choices: [], usage })}\n\n`,
      );
    response.end('data: [DONE]\n\n');
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return state.requests;
    },
    bodies: state.bodies,
    get abandoned() {
      return state.abandoned;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
