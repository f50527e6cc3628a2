import type { ServerResponse } from 'node:http';
import { generateText, jsonSchema, streamText, tool, wrapLanguageModel } from 'ai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { tagcallMiddleware } from '../src/adapters/ai-sdk.js';
import { renderCall, startProxy } from './support/all.js';
import { cleanupsAfterEach } from './support/cleanups.js';
import { listenLocal } from './support/local-server.js';

// #28 items 4 and 5: tool_choice "none" is honoured (a call the model writes anyway stays
// text), a call of a tool the request did not offer is never offered for execution, and a
// non-streaming answer with tools carries the upstream's usage.

const cleanups = cleanupsAfterEach();

const weatherCall = renderCall({ toolName: 'weather', arguments: { city: 'Lyon' } });
const deleteCall = renderCall({ toolName: 'delete_everything', arguments: { path: '/' } });
const USAGE = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };

/** An upstream that streams `reply`, and its usage when the request asks for it. */
async function upstream(reply: string) {
  const bodies: Array<Record<string, unknown>> = [];
  const server = await listenLocal((request, response: ServerResponse) => {
    let body = '';
    request.on('data', (c: Buffer) => {
      body += c.toString();
    });
    request.on('end', () => {
      const parsed = JSON.parse(body) as { stream_options?: { include_usage?: boolean } };
      bodies.push(parsed);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const data = (o: unknown) => response.write(`data: ${JSON.stringify(o)}\n\n`);
      data({ choices: [{ index: 0, delta: { content: reply }, finish_reason: null }] });
      data({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      if (parsed.stream_options?.include_usage) data({ choices: [], usage: USAGE });
      response.end('data: [DONE]\n\n');
    });
  });
  cleanups.push(server.close);
  const proxy = await startProxy({ upstream: `${server.origin}/v1`, onError: () => {} });
  cleanups.push(() => proxy.close());
  return { client: new OpenAI({ baseURL: proxy.url, apiKey: 'none', maxRetries: 0 }), bodies };
}

const weather = {
  type: 'function' as const,
  function: {
    name: 'weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('tagcall serve, with the openai client', () => {
  it('tool_choice "none": a call the model writes anyway is content, not tool_calls', async () => {
    const { client, bodies } = await upstream(`Here:\n${weatherCall}\n`);
    const answer = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'weather?' }],
      tools: [weather],
      tool_choice: 'none',
    });
    expect(answer.choices[0].message.tool_calls ?? []).toEqual([]);
    expect(answer.choices[0].message.content).toContain('<tool_name>weather</tool_name>');
    expect(answer.choices[0].finish_reason).toBe('stop');
    expect(JSON.stringify(bodies[0].messages)).not.toContain('<tool_name>');
  });

  it('a call of a tool the request did not offer is content, the offered one a call', async () => {
    const { client } = await upstream(`${deleteCall}\n${weatherCall}\n`);
    const answer = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'go' }],
      tools: [weather],
    });
    const message = answer.choices[0].message;
    expect(message.tool_calls?.map((c) => c.type === 'function' && c.function.name)).toEqual([
      'weather',
    ]);
    expect(message.content).toContain('delete_everything');
  });

  it('a non-streaming answer with tools carries usage; a stream only when asked', async () => {
    const { client, bodies } = await upstream(`${weatherCall}\n`);
    const answer = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'go' }],
      tools: [weather],
    });
    expect(answer.usage).toEqual(USAGE);
    expect(bodies[0].stream_options).toEqual({ include_usage: true });
    const chunks = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'go' }],
      tools: [weather],
      stream: true,
    });
    let usage: unknown;
    for await (const chunk of chunks) usage ??= chunk.usage ?? undefined;
    expect(usage).toBeUndefined();
  });
});

describe('the AI SDK middleware', () => {
  /** A model that writes `reply` whatever it is asked. */
  const model = (reply: string) =>
    ({
      specificationVersion: 'v3',
      provider: 'test',
      modelId: 'writer',
      supportedUrls: {},
      doGenerate: async () => ({
        content: [{ type: 'text', text: reply }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        },
        warnings: [],
      }),
      doStream: async () => ({
        stream: new ReadableStream({
          start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] });
            controller.enqueue({ type: 'text-start', id: 't' });
            controller.enqueue({ type: 'text-delta', id: 't', delta: reply });
            controller.enqueue({ type: 'text-end', id: 't' });
            controller.enqueue({
              type: 'finish',
              finishReason: { unified: 'stop', raw: 'stop' },
              usage: {
                inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
                outputTokens: { total: 1, text: 1, reasoning: 0 },
              },
            });
            controller.close();
          },
        }),
      }),
    }) as never;
  const tools = {
    weather: tool({
      inputSchema: jsonSchema<{ city: string }>({
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      }),
    }),
  };

  it('toolChoice "none": generateText and streamText get text, no call (no ToolChoiceViolation)', async () => {
    const wrapped = wrapLanguageModel({
      model: model(`Sure.\n${weatherCall}\n`),
      middleware: tagcallMiddleware(),
    });
    const generated = await generateText({
      model: wrapped,
      tools,
      toolChoice: 'none',
      prompt: 'w?',
    });
    expect(generated.toolCalls).toEqual([]);
    expect(generated.text).toContain('<tool_name>weather</tool_name>');
    const streamed = streamText({ model: wrapped, tools, toolChoice: 'none', prompt: 'w?' });
    expect(await streamed.toolCalls).toEqual([]);
    expect(await streamed.text).toContain('<tool_name>weather</tool_name>');
  });

  it('a call of a tool not offered is text; the offered one is a call', async () => {
    const wrapped = wrapLanguageModel({
      model: model(`${deleteCall}\n${weatherCall}\n`),
      middleware: tagcallMiddleware(),
    });
    const generated = await generateText({ model: wrapped, tools, prompt: 'go' });
    expect(generated.toolCalls.map((c) => c.toolName)).toEqual(['weather']);
    expect(generated.text).toContain('delete_everything');
  });
});
