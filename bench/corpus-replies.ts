/**
 * Realistic replies as a server sees them: the bench corpus' messages that hold calls, a few
 * KB each (prose, code, the corpus' calls with file bodies of up to several KB), written as
 * Hermes and as Qwen3-Coder (`renderCallIn`), each whole in a fresh stream. tagcall against
 * @ai-sdk-tool/parser, bare and through the AI SDK middlewares, as `reply-peers.ts` does for
 * its three short replies (where the peer's stream set-up dominates).
 */
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool } from '@ai-sdk/provider';
import { tagcallMiddleware } from 'tagcall/ai-sdk';
import { parse, type ToolCall } from 'tagcall/protocol';
import { CORPUS_BYTES } from './cases.js';
import { generateCorpus } from './corpus.js';
import { inDialect } from './dialect-corpus.js';
import {
  FORMATS,
  peerBare,
  perReply,
  type ReplyFormat,
  tagcallBare,
  throughMiddleware,
} from './reply-peers.js';

export const CORPUS_REPLY_FORMATS: ReplyFormat[] = ['hermes', 'qwen3-coder'];
/** How many replies, and the most characters one may have. */
const REPLIES = 40;
const MAX_REPLY = 8192;

export interface CorpusReplyRow {
  format: ReplyFormat;
  replies: number;
  /** Mean characters a reply, and calls in all of them. */
  meanChars: number;
  calls: number;
  /** Microseconds a reply (median of rounds), for each of the four. */
  tagcall: number;
  peer: number;
  tagcallMiddleware: number;
  peerMiddleware: number;
}

/** A schema of the corpus' tools from their calls: each argument typed by its value. */
function toolsOf(calls: readonly ToolCall[]): LanguageModelV3FunctionTool[] {
  const properties = new Map<string, Record<string, { type: string }>>();
  for (const call of calls) {
    const props = properties.get(call.toolName) ?? {};
    for (const [key, value] of Object.entries(call.arguments))
      props[key] = { type: typeof value === 'object' ? 'object' : typeof value };
    properties.set(call.toolName, props);
  }
  return [...properties].map(([name, props]) => ({
    type: 'function',
    name,
    inputSchema: { type: 'object', properties: props },
  }));
}

export async function runCorpusReplies(format: ReplyFormat): Promise<CorpusReplyRow> {
  const picked = generateCorpus(CORPUS_BYTES)
    .messages.filter((m) => m.length <= MAX_REPLY && parse(m).calls.length > 0)
    .slice(0, REPLIES);
  const calls = picked.flatMap((m) => parse(m).calls);
  const tools = toolsOf(calls);
  const texts = inDialect(picked, FORMATS[format].dialect);
  const whole = texts.map((t) => [t]);
  const request = {
    prompt: [{ role: 'user', content: [{ type: 'text', text: 'Go on.' }] }],
    tools,
  } as LanguageModelV3CallOptions;
  const ours = tagcallMiddleware({ dialect: FORMATS[format].dialect });
  const each = (work: () => number | Promise<number>) => perReply(work, texts.length, calls.length);
  return {
    format,
    replies: texts.length,
    meanChars: Math.round(texts.reduce((sum, t) => sum + t.length, 0) / texts.length),
    calls: calls.length,
    tagcall: await each(() => tagcallBare(format, whole, tools)),
    peer: await each(() => peerBare(format, whole, tools)),
    tagcallMiddleware: await each(() => throughMiddleware(ours, whole, request)),
    peerMiddleware: await each(() => throughMiddleware(FORMATS[format].middleware, whole, request)),
  };
}
