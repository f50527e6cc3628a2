import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { type RunningProxy, renderCall, startProxy, startReplayModel } from './support/all.js';
import { cleanupsAfterEach } from './support/cleanups.js';
import { listenLocal } from './support/local-server.js';

// #45 item 7: what OpenAI-style clients still missed from `tagcall serve` and `tagcall replay`.

const note = {
  type: 'function' as const,
  function: {
    name: 'write_note',
    parameters: { type: 'object', properties: { title: { type: 'string' } } },
  },
};
const call = (title: string) => renderCall({ toolName: 'write_note', arguments: { title } });

const cleanups = cleanupsAfterEach();

async function serve(replies: string[]) {
  const model = await startReplayModel({ replies });
  cleanups.push(() => model.close());
  const proxy: RunningProxy = await startProxy({ upstream: model.url, onError: () => {} });
  cleanups.push(() => proxy.close());
  return {
    model,
    proxy,
    client: new OpenAI({ baseURL: proxy.url, apiKey: 'none', maxRetries: 0 }),
  };
}

async function streamed(
  client: OpenAI,
  request: Omit<OpenAI.ChatCompletionCreateParams, 'stream'>,
) {
  const stream = await client.chat.completions.create({ ...request, stream: true });
  let content: string | null = null;
  const names: string[] = [];
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta;
    if (delta?.content != null) content = (content ?? '') + delta.content;
    for (const t of delta?.tool_calls ?? []) if (t.function?.name) names.push(t.function.name);
  }
  return { content, names };
}

describe('parallel_tool_calls: false without --grammar', () => {
  it('returns only the first call, its later one as text, and the prompt asks for one call', async () => {
    const reply = `Both.\n${call('a')}\n${call('b')}`;
    const { model, client } = await serve([reply, reply]);
    const request = {
      model: 'replay',
      messages: [{ role: 'user' as const, content: 'Two notes' }],
      tools: [note],
      parallel_tool_calls: false,
    };
    const whole = await client.chat.completions.create(request);
    const calls = whole.choices[0].message.tool_calls ?? [];
    expect(calls.map((c) => (c.type === 'function' ? c.function.arguments : ''))).toEqual([
      '{"title":"a"}',
    ]);
    expect(whole.choices[0].finish_reason).toBe('tool_calls');
    expect(whole.choices[0].message.content).toContain(call('b'));
    const stream = await streamed(client, request);
    expect(stream.names).toEqual(['write_note']);
    expect(stream.content).toContain(call('b'));
    const prompt = (model.bodies[0] as { messages: Array<{ content: string }> }).messages[0]
      .content;
    expect(prompt).toContain('At most one call per reply');
    expect(prompt).not.toContain('several blocks in one reply are allowed');
  });

  it('with parallel calls allowed (the default), both calls come back', async () => {
    const reply = `${call('a')}\n${call('b')}`;
    const { client } = await serve([reply]);
    const whole = await client.chat.completions.create({
      model: 'replay',
      messages: [{ role: 'user', content: 'Two notes' }],
      tools: [note],
    });
    expect(whole.choices[0].message.tool_calls).toHaveLength(2);
  });
});

describe('content without the blank lines left where thinking or calls were cut out', () => {
  it('streamed and not, the content is the text alone', async () => {
    const reply = `[I should write it]\n\nI'll write the note.\n\n\n${call('a')}\n`;
    const { client } = await serve([reply, reply]);
    const request = {
      model: 'replay',
      messages: [{ role: 'user' as const, content: 'A note' }],
      tools: [note],
    };
    const whole = await client.chat.completions.create(request);
    expect(whole.choices[0].message.content).toBe("I'll write the note.");
    expect(whole.choices[0].message.tool_calls).toHaveLength(1);
    expect((await streamed(client, request)).content).toBe("I'll write the note.");
  });

  it('blank lines between two texts around a call stay one separator', async () => {
    const reply = `First.\n\n${call('a')}\n\nThen this.\n`;
    const { client } = await serve([reply]);
    const whole = await client.chat.completions.create({
      model: 'replay',
      messages: [{ role: 'user', content: 'A note' }],
      tools: [note],
    });
    expect(whole.choices[0].message.content).toBe('First.\n\nThen this.');
  });
});

describe('tagcall replay reports usage', () => {
  it('the AI SDK shows token usage, from replay directly and through serve, streamed or not', async () => {
    const { model, proxy } = await serve(['A short answer.', 'A short answer.']);
    for (const url of [model.url, proxy.url]) {
      const provider = createOpenAI({ baseURL: url, apiKey: 'none' });
      const generated = await generateText({ model: provider.chat('replay'), prompt: 'hello' });
      expect(generated.usage.inputTokens).toBeGreaterThan(0);
      expect(generated.usage.outputTokens).toBe(4);
      const stream = streamText({
        model: provider.chat('replay'),
        prompt: 'hello',
        tools: { write_note: tool({ inputSchema: jsonSchema({ type: 'object' }) }) },
      });
      const usage = await stream.usage;
      expect(usage.inputTokens).toBeGreaterThan(0);
      expect(usage.outputTokens).toBe(4);
    }
  });
});

describe('tagcall serve passes an upstream refusal on for the client to retry', () => {
  it("a 429 keeps its Retry-After, so the openai client's own retry waits as asked", async () => {
    let requests = 0;
    const upstream = await listenLocal((request, response) => {
      request.resume();
      requests++;
      if (requests === 1) {
        response
          .writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' })
          .end('{"error":{"message":"slow down"}}');
        return;
      }
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(
          '{"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}',
        );
    });
    cleanups.push(upstream.close);
    const proxy = await startProxy({ upstream: `${upstream.origin}/v1`, onError: () => {} });
    cleanups.push(() => proxy.close());
    const refused = await fetch(`${proxy.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('0');
    requests = 0;
    const client = new OpenAI({ baseURL: proxy.url, apiKey: 'none', maxRetries: 1 });
    const answer = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(answer.choices[0].message.content).toBe('ok');
    // One attempt per request at the proxy: the client's retry is the second request.
    expect(requests).toBe(2);
  });
});
