/**
 * Replies as a server sees them: each one a fresh parser, fed in chunks of 1 to 64 characters
 * or whole. tagcall against @ai-sdk-tool/parser (4.1.26), the AI SDK middleware that reads
 * tool calls out of text, on the formats both read: Hermes' `<tool_call>` JSON, Qwen3-Coder's
 * tags, and the tool-named XML (its "morph-xml", tagcall's `cline` dialect). Two paths each:
 * the bare parser (tagcall's `createParser`, the peer's `createStreamParser`), and the AI SDK
 * middleware (`tagcallMiddleware`, the peer's `…ToolMiddleware`) around a model that streams
 * the reply, `transformParams` included, as a request pays for it.
 */
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3Middleware,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import {
  hermesProtocol,
  hermesToolMiddleware,
  morphXmlProtocol,
  morphXmlToolMiddleware,
  qwen3CoderProtocol,
  qwen3CoderToolMiddleware,
  type TCMProtocol,
} from '@ai-sdk-tool/parser';
import { createParser, type ParserEvent } from 'tagcall';
import { tagcallMiddleware } from 'tagcall/ai-sdk';
import type { Dialect } from 'tagcall/protocol';
import { now, splitEvery } from './measure.js';

export const REPLY_CHUNKS = [1, 4, 16, 64, 0];

const TOOLS: LanguageModelV3FunctionTool[] = [
  {
    type: 'function',
    name: 'write_file',
    description: 'Write a file in the workspace.',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
    },
  },
  {
    type: 'function',
    name: 'read_file',
    description: 'Read a file.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
];

const CODE = Array.from(
  { length: 24 },
  (_, i) => `  const line${i} = items.filter((x) => x.size < ${i} && x.ok);`,
).join('\n');

/** A reply format: tagcall's dialect for it, and the peer's parser and middleware for it. */
interface Format {
  dialect: Dialect;
  protocol: TCMProtocol;
  /** The peer's (typed against its own copy of @ai-sdk/provider, the same interface). */
  middleware: LanguageModelV3Middleware;
}

const peerMiddleware = (m: unknown) => m as LanguageModelV3Middleware;

export const FORMATS: Record<'hermes' | 'qwen3-coder' | 'tool-named XML', Format> = {
  hermes: {
    dialect: 'hermes',
    protocol: hermesProtocol(),
    middleware: peerMiddleware(hermesToolMiddleware),
  },
  'qwen3-coder': {
    dialect: 'qwen3-coder',
    protocol: qwen3CoderProtocol(),
    middleware: peerMiddleware(qwen3CoderToolMiddleware),
  },
  'tool-named XML': {
    dialect: 'cline',
    protocol: morphXmlProtocol(),
    middleware: peerMiddleware(morphXmlToolMiddleware),
  },
};
export type ReplyFormat = keyof typeof FORMATS;
export const REPLY_FORMATS = Object.keys(FORMATS) as ReplyFormat[];

/** Three replies a model writes: a short call, a file write with prose, two calls. */
function replies(format: ReplyFormat): string[] {
  const { protocol } = FORMATS[format];
  const call = (toolName: string, input: Record<string, string>, i: number) =>
    protocol.formatToolCall({
      type: 'tool-call',
      toolCallId: `c${i}`,
      toolName,
      input: JSON.stringify(input),
    });
  return [
    call('read_file', { path: 'src/index.ts' }, 0),
    `I'll add the filter to the module.\n\n${call('write_file', { path: 'src/filter.ts', content: `export function run(items) {\n${CODE}\n}\n` }, 1)}`,
    `First the config, then the entry point.\n${call('read_file', { path: 'tsconfig.json' }, 2)}\n${call('read_file', { path: 'src/main.ts' }, 3)}`,
  ];
}

const CALLS_PER_ROUND = 4;

/** `chunked` replies, each read by a fresh tagcall parser; the calls it read. */
export function tagcallBare(
  format: ReplyFormat,
  chunked: readonly string[][],
  tools: readonly LanguageModelV3FunctionTool[] = TOOLS,
): number {
  let calls = 0;
  const onEvent = (event: ParserEvent) => {
    if (event.type === 'tool-end') calls++;
  };
  const options = { dialect: FORMATS[format].dialect, toolNames: tools.map((t) => t.name) };
  for (const chunks of chunked) {
    const parser = createParser({ ...options, onEvent });
    for (const chunk of chunks) parser.feed(chunk);
    parser.end();
  }
  return calls;
}

export async function drain(stream: ReadableStream<LanguageModelV3StreamPart>): Promise<number> {
  let calls = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return calls;
    if (value.type === 'tool-call') calls++;
  }
}

/** `chunked` replies, each read by a fresh stream parser of the peer; the calls it read. */
export async function peerBare(
  format: ReplyFormat,
  chunked: readonly string[][],
  tools: LanguageModelV3FunctionTool[] = TOOLS,
): Promise<number> {
  let calls = 0;
  for (const chunks of chunked) {
    const parser = FORMATS[format].protocol.createStreamParser({ tools });
    const writer = parser.writable.getWriter();
    const read = drain(parser.readable);
    writer.write({ type: 'text-start', id: 't' });
    for (const delta of chunks) writer.write({ type: 'text-delta', id: 't', delta });
    writer.write({ type: 'text-end', id: 't' });
    writer.close();
    calls += await read;
  }
  return calls;
}

const PARAMS = {
  prompt: [{ role: 'user', content: [{ type: 'text', text: 'Add the filter.' }] }],
  tools: TOOLS,
} as LanguageModelV3CallOptions;

/** A model that streams `chunks` as one text part, then finishes. */
function modelStream(chunks: readonly string[]) {
  return async () => ({
    stream: new ReadableStream<LanguageModelV3StreamPart>({
      start(controller) {
        controller.enqueue({ type: 'stream-start', warnings: [] });
        controller.enqueue({ type: 'text-start', id: 't' });
        for (const delta of chunks) controller.enqueue({ type: 'text-delta', id: 't', delta });
        controller.enqueue({ type: 'text-end', id: 't' });
        controller.enqueue({
          type: 'finish',
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: {
            inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 10, text: 10, reasoning: 0 },
          },
        });
        controller.close();
      },
    }),
  });
}

/** `chunked` replies, each a fresh model stream through `middleware`, asked with `request`. */
export async function throughMiddleware(
  middleware: LanguageModelV3Middleware,
  chunked: readonly string[][],
  request: LanguageModelV3CallOptions = PARAMS,
): Promise<number> {
  let calls = 0;
  for (const chunks of chunked) {
    const params =
      (await middleware.transformParams?.({
        params: request,
        type: 'stream',
        model: null as never,
      })) ?? request;
    const { stream } = await (middleware.wrapStream as NonNullable<typeof middleware.wrapStream>)({
      doStream: modelStream(chunks) as never,
      doGenerate: null as never,
      params,
      model: null as never,
    });
    calls += await drain(stream);
  }
  return calls;
}

export interface ReplyRow {
  format: ReplyFormat;
  chunk: number;
  /** Microseconds a reply (median of rounds), for each of the four. */
  tagcall: number;
  peer: number;
  tagcallMiddleware: number;
  peerMiddleware: number;
}

/** Median µs per reply of `work` over `replyCount` replies, after a warm-up. */
export async function perReply(
  work: () => number | Promise<number>,
  replyCount: number,
  callsPerRound = CALLS_PER_ROUND,
): Promise<number> {
  const budget = 400;
  const times: number[] = [];
  for (let k = 0; k < 3; k++) await work();
  const started = now();
  while (times.length < 5 || (now() - started < budget && times.length < 200)) {
    const t0 = now();
    const calls = await work();
    times.push(now() - t0);
    if (calls !== callsPerRound) throw new Error(`read ${calls} calls of ${callsPerRound}`);
  }
  times.sort((a, b) => a - b);
  return (1000 * times[times.length >> 1]) / replyCount;
}

export async function runReplies(format: ReplyFormat): Promise<ReplyRow[]> {
  const texts = replies(format);
  const ours = tagcallMiddleware({ dialect: FORMATS[format].dialect });
  const rows: ReplyRow[] = [];
  for (const chunk of REPLY_CHUNKS) {
    const chunked = texts.map((t) => (chunk === 0 ? [t] : splitEvery(t, chunk)));
    rows.push({
      format,
      chunk,
      tagcall: await perReply(() => tagcallBare(format, chunked), texts.length),
      peer: await perReply(() => peerBare(format, chunked), texts.length),
      tagcallMiddleware: await perReply(() => throughMiddleware(ours, chunked), texts.length),
      peerMiddleware: await perReply(
        () => throughMiddleware(FORMATS[format].middleware, chunked),
        texts.length,
      ),
    });
  }
  return rows;
}
