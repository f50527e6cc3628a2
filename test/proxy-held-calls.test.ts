import { createOpenAI } from '@ai-sdk/openai';
import { jsonSchema, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { type ProxyOptions, startProxy } from './support/all.js';
import { cleanupsAfterEach } from './support/cleanups.js';
import { listenLocal } from './support/local-server.js';

// #44 item 1: a client is sent a call only once the parser is certain it ends as a call. The
// AI SDK runs every call still open when a stream ends, whatever the finish reason, so a call
// streamed early and then dropped by the parse would run with the arguments it had.

/** The model hit max_tokens inside the call. */
const TRUNCATED =
  'Writing it.\n<tool_call>\n{"name": "write_file", "arguments": {"path": "notes.txt", "content": "the first half of the fi';
/** JSON the repair drops: two strings in a row. */
const UNREADABLE =
  'Writing it.\n<tool_call>\n{"name": "write_file", "arguments": {"path": "notes.txt", "content": "x" "y"}}\n</tool_call>';
/**
 * Qwen3-Coder cut by max_tokens between two parameters: all the parser has is complete but for
 * its closers, which it reads as a call when the server stripped the stop tokens ('stop'), but
 * not when the token limit cut the reply ('length'): `content` was never written.
 */
const CUT_BETWEEN_ARGUMENTS =
  'Writing it.\n<tool_call>\n<function=write_file>\n<parameter=path>\nnotes.txt\n</parameter>\n';
const WELL_FORMED =
  'Writing it.\n<tool_call>\n{"name": "write_file", "arguments": {"path": "notes.txt", "content": "all of it"}}\n</tool_call>';

const writeFileSchema = {
  type: 'object',
  properties: { path: { type: 'string' }, content: { type: 'string' } },
  required: ['path', 'content'],
} as const;
const writeFile = {
  type: 'function' as const,
  function: { name: 'write_file', parameters: writeFileSchema },
};

const cleanups = cleanupsAfterEach();

/** An upstream on 127.0.0.1 that streams `reply` in small deltas, then `finish`. */
async function upstreamOf(reply: string, finish: string) {
  const server = await listenLocal((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: object, reason: string | null) =>
        response.write(
          `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: reason }] })}\n\n`,
        );
      for (let i = 0; i < reply.length; i += 6) chunk({ content: reply.slice(i, i + 6) }, null);
      chunk({}, finish);
      response.end('data: [DONE]\n\n');
    });
  });
  cleanups.push(server.close);
  return `${server.origin}/v1`;
}

async function proxyFor(reply: string, finish: string, options: Partial<ProxyOptions> = {}) {
  const proxy = await startProxy({
    upstream: await upstreamOf(reply, finish),
    parser: { dialect: 'hermes' },
    onError: () => {},
    ...options,
  });
  cleanups.push(() => proxy.close());
  return proxy.url;
}

/** What the openai client gathers from a stream: call entries, their arguments, content, finish. */
async function streamWithOpenAI(url: string) {
  const client = new OpenAI({ baseURL: url, apiKey: 'none', maxRetries: 0 });
  const stream = await client.chat.completions.create({
    model: 'm',
    messages: [{ role: 'user', content: 'Write notes.txt' }],
    tools: [writeFile],
    stream: true,
  });
  const calls: Array<{ name: string; arguments: string }> = [];
  let content = '';
  let finish: string | null = null;
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    content += choice?.delta?.content ?? '';
    for (const t of choice?.delta?.tool_calls ?? []) {
      calls[t.index] ??= { name: '', arguments: '' };
      calls[t.index].name += t.function?.name ?? '';
      calls[t.index].arguments += t.function?.arguments ?? '';
    }
    finish = choice?.finish_reason ?? finish;
  }
  return { calls, content, finish };
}

/** Runs the AI SDK against the proxy with a write_file tool; returns what the tool was run with. */
async function streamWithAiSdk(url: string) {
  const provider = createOpenAI({ baseURL: url, apiKey: 'none' });
  const ran: unknown[] = [];
  const result = streamText({
    model: provider.chat('m'),
    prompt: 'Write notes.txt',
    tools: {
      write_file: tool({
        inputSchema: jsonSchema<{ path: string; content: string }>(writeFileSchema),
        execute: async (input) => {
          ran.push(input);
          return 'written';
        },
      }),
    },
  });
  const text = await result.text;
  return { ran, text, toolCalls: await result.toolCalls, finish: await result.finishReason };
}

describe('tagcall serve sends a call only once it is certain (#44)', () => {
  for (const [name, reply, finish] of [
    ['a reply cut inside the call (max_tokens)', TRUNCATED, 'length'],
    ['a call whose JSON the repair drops', UNREADABLE, 'stop'],
  ] as const) {
    it(`${name}: the openai client gets no tool_calls entry, and the call's text as content`, async () => {
      const url = await proxyFor(reply, finish);
      const got = await streamWithOpenAI(url);
      expect(got.calls).toEqual([]);
      expect(got.finish).toBe(finish);
      // The answer says why: the call as the model wrote it comes back as text.
      expect(got.content).toBe(reply);
    });

    it(`${name}: the AI SDK runs no tool`, async () => {
      const url = await proxyFor(reply, finish);
      const got = await streamWithAiSdk(url);
      expect(got.ran).toEqual([]);
      expect(got.toolCalls).toEqual([]);
      expect(got.text).toBe(reply);
      expect(got.finish).toBe(finish === 'length' ? 'length' : 'stop');
    });
  }

  it('a call that ends well is sent whole once it has ended, and the AI SDK runs it', async () => {
    const url = await proxyFor(WELL_FORMED, 'stop');
    const viaOpenAI = await streamWithOpenAI(url);
    expect(viaOpenAI.finish).toBe('tool_calls');
    expect(viaOpenAI.calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ['write_file', { path: 'notes.txt', content: 'all of it' }],
    ]);
    const viaAiSdk = await streamWithAiSdk(url);
    expect(viaAiSdk.ran).toEqual([{ path: 'notes.txt', content: 'all of it' }]);
  });

  it('a reply the token limit cut between two arguments: no call, the text as content', async () => {
    const options = { parser: { dialect: 'qwen3-coder' as const } };
    const cut = await streamWithOpenAI(await proxyFor(CUT_BETWEEN_ARGUMENTS, 'length', options));
    expect(cut.calls).toEqual([]);
    expect(cut.finish).toBe('length');
    expect(cut.content).toBe(CUT_BETWEEN_ARGUMENTS);
    const viaAiSdk = await streamWithAiSdk(
      await proxyFor(CUT_BETWEEN_ARGUMENTS, 'length', options),
    );
    expect(viaAiSdk.ran).toEqual([]);
    // The same text when the server stripped its stop tokens ('stop') is a call, as documented.
    const stripped = await streamWithOpenAI(await proxyFor(CUT_BETWEEN_ARGUMENTS, 'stop', options));
    expect(stripped.finish).toBe('tool_calls');
    expect(stripped.calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ['write_file', { path: 'notes.txt' }],
    ]);
  });

  it('streamCallsEarly streams the fragments as written (unsafe: a broken call was already sent)', async () => {
    const url = await proxyFor(TRUNCATED, 'length', { streamCallsEarly: true });
    const got = await streamWithOpenAI(url);
    expect(got.calls.map((c) => c.name)).toEqual(['write_file']);
    expect(got.finish).toBe('length');
  });
});
