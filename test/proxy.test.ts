import { once } from 'node:events';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { renderCall, startProxy, startReplayModel } from './support/all.js';
import { startTagcallServer } from './support/cli-child.js';
import { proxyAndModelPerTest } from './support/proxy-per-test.js';

const weather = {
  type: 'function' as const,
  function: {
    name: 'weather',
    description: 'Forecast for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' } },
      required: ['city'],
    },
  },
};
const call = (city: string, days: string) =>
  renderCall({ toolName: 'weather', arguments: { city, days } });
const TWO_CALLS = `[Two cities]\nChecking both.\n${call('Lyon', '3')}\n${call('Nantes "la belle"', '2')}\n`;

const running = proxyAndModelPerTest();

async function setUp(replies: string[], options: { delayMs?: number; failFirst?: number } = {}) {
  running.model = await startReplayModel({ replies, ...options });
  running.proxy = await startProxy({
    upstream: running.model.url,
    modelMap: { 'gpt-local': 'replay' },
  });
  return new OpenAI({ baseURL: running.proxy.url, apiKey: 'none', maxRetries: 0 });
}

describe('tagcall serve: an OpenAI-compatible proxy that adds tool calls', () => {
  it('streams parallel tool calls as delta.tool_calls whose arguments concatenate to JSON', async () => {
    const client = await setUp([TWO_CALLS]);
    const stream = await client.chat.completions.create({
      model: 'gpt-local',
      messages: [{ role: 'user', content: 'Weather in Lyon and Nantes?' }],
      tools: [weather],
      stream: true,
    });
    const calls: Array<{ id: string; name: string; arguments: string }> = [];
    let content = '';
    let reasoning = '';
    let finish: string | null = null;
    let fragments = 0;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      const delta = choice?.delta as typeof choice.delta & { reasoning_content?: string };
      content += delta?.content ?? '';
      reasoning += delta?.reasoning_content ?? '';
      for (const t of delta?.tool_calls ?? []) {
        calls[t.index] ??= { id: '', name: '', arguments: '' };
        if (t.id) calls[t.index].id = t.id;
        if (t.function?.name) calls[t.index].name = t.function.name;
        if (t.function?.arguments) {
          calls[t.index].arguments += t.function.arguments;
          fragments++;
        }
      }
      finish = choice?.finish_reason ?? finish;
    }
    expect(finish).toBe('tool_calls');
    expect(reasoning).toBe('Two cities');
    expect(content).toContain('Checking both.');
    expect(calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ['weather', { city: 'Lyon', days: 3 }],
      ['weather', { city: 'Nantes "la belle"', days: 2 }],
    ]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
    // Each call is held until it has ended, then sent whole: one fragment of arguments each.
    expect(fragments).toBe(2);
    // Upstream saw the text protocol and no tools, under the mapped model name.
    const sent = running.model?.bodies[0] as {
      model: string;
      tools?: unknown;
      messages: Array<{ role: string; content: string }>;
    };
    expect(sent.model).toBe('replay');
    expect(sent.tools).toBeUndefined();
    expect(sent.messages[0].content).toContain('## weather (server: local)');
  });

  it('answers stream: false with message.tool_calls, and a follow-up turn carries the results', async () => {
    const client = await setUp([`${call('Lyon', '3')}\n`, 'Sunny in Lyon.']);
    const first = await client.chat.completions.create({
      model: 'replay',
      messages: [{ role: 'user', content: 'Weather in Lyon?' }],
      tools: [weather],
      tool_choice: 'required',
    });
    const message = first.choices[0].message;
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(message.tool_calls?.[0]).toMatchObject({
      type: 'function',
      function: { name: 'weather', arguments: '{"city":"Lyon","days":3}' },
    });
    const toolCall = message.tool_calls?.[0];
    if (toolCall === undefined) throw new Error('no call');
    const second = await client.chat.completions.create({
      model: 'replay',
      messages: [
        { role: 'user', content: 'Weather in Lyon?' },
        message,
        { role: 'tool', tool_call_id: toolCall.id, content: 'sunny, 24°C' },
      ],
      tools: [weather],
    });
    expect(second.choices[0]).toMatchObject({
      finish_reason: 'stop',
      message: { role: 'assistant', content: 'Sunny in Lyon.' },
    });
    const sent = running.model?.bodies[1] as { messages: Array<{ role: string; content: string }> };
    expect(sent.messages.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: renderCall({ toolName: 'weather', arguments: { city: 'Lyon', days: 3 } }),
      },
      { role: 'user', content: 'Tool: weather\nsunny, 24°C' },
    ]);
    expect(
      (running.model?.bodies[0] as { messages: Array<{ content: string }> } | undefined)
        ?.messages[0].content,
    ).toContain('call at least one tool');
  });

  it('streams no whitespace-only content around calls: the streamed content matches the non-streamed null', async () => {
    const reply = `\n${call('Lyon', '3')}\n\n${call('Oslo', '1')}\n`;
    const client = await setUp([reply, reply]);
    const request = {
      model: 'replay',
      messages: [{ role: 'user' as const, content: 'Weather?' }],
      tools: [weather],
    };
    const stream = await client.chat.completions.create({ ...request, stream: true });
    let content: string | null = null;
    let calls = 0;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      if (delta?.content != null) content = (content ?? '') + delta.content;
      calls += delta?.tool_calls?.filter((t) => t.id !== undefined).length ?? 0;
    }
    expect(calls).toBe(2);
    expect(content).toBeNull();
    const whole = await client.chat.completions.create(request);
    expect(whole.choices[0].message.content).toBeNull();
  });

  it("with a dialect, reads replies in other models' call formats (Hermes here)", async () => {
    running.model = await startReplayModel({
      replies: [
        '<tool_call>{"name": "weather", "arguments": {"city": "Lyon", "days": "2"}}</tool_call>',
      ],
    });
    running.proxy = await startProxy({ upstream: running.model.url, parser: { dialect: 'auto' } });
    const client = new OpenAI({ baseURL: running.proxy.url, apiKey: 'none', maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: 'replay',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [weather],
    });
    expect(answer.choices[0].finish_reason).toBe('tool_calls');
    expect(answer.choices[0].message.tool_calls?.[0]).toMatchObject({
      function: { name: 'weather', arguments: '{"city":"Lyon","days":2}' },
    });
  });

  it('with --dialect qwen3-coder and streamCallsEarly, streams a file body as arguments fragments while it is written', async () => {
    const content = Array.from(
      { length: 200 },
      (_, i) => `const x${i} = a < b && "</parameter>";`,
    ).join('\n');
    running.model = await startReplayModel({
      replies: [
        `I will write it.\n<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/a.ts\n</parameter>\n<parameter=content>\n${content}\n</parameter>\n</function>\n</tool_call>`,
      ],
      chunkSizes: [7, 13, 64],
    });
    running.proxy = await startProxy({
      upstream: running.model.url,
      parser: { dialect: 'qwen3-coder' },
      streamCallsEarly: true,
    });
    const client = new OpenAI({ baseURL: running.proxy.url, apiKey: 'none', maxRetries: 0 });
    const writeFile = {
      type: 'function' as const,
      function: {
        name: 'write_file',
        parameters: {
          type: 'object',
          properties: { path: { type: 'string' }, content: { type: 'string' } },
        },
      },
    };
    const stream = await client.chat.completions.create({
      model: 'replay',
      messages: [{ role: 'user', content: 'Write it.' }],
      tools: [writeFile],
      stream: true,
    });
    const fragments: string[] = [];
    let name = '';
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta?.tool_calls ?? []) {
        name += call.function?.name ?? '';
        if (call.function?.arguments) fragments.push(call.function.arguments);
      }
    }
    expect(name).toBe('write_file');
    expect(fragments.length).toBeGreaterThan(20);
    expect(JSON.parse(fragments.join(''))).toEqual({ path: 'src/a.ts', content });
  });

  it('passes an upstream error through with its status', async () => {
    const client = await setUp(['never'], { failFirst: 1 });
    const error = await client.chat.completions
      .create({ model: 'replay', messages: [{ role: 'user', content: 'hi' }], tools: [weather] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(500);
    expect(String((error as Error).message)).toContain('injected failure');
  });

  it('aborts the upstream request when the client goes away mid-stream', async () => {
    const client = await setUp([`${'A long answer. '.repeat(200)}\n${call('Lyon', '1')}\n`], {
      delayMs: 5,
    });
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      {
        model: 'replay',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [weather],
        stream: true,
      },
      { signal: controller.signal },
    );
    let chunks = 0;
    try {
      for await (const _ of stream) if (++chunks === 3) controller.abort();
    } catch {
      // The client's own abort error, when it reports one.
    }
    // A chunk the SDK had already read may still come out after the abort.
    expect(chunks).toBeGreaterThanOrEqual(3);
    expect(chunks).toBeLessThan(10);
    await expect.poll(() => running.model?.abandoned, { timeout: 5000 }).toBe(1);
  });

  it('with --grammar llama.cpp sends a lazy grammar for auto and a strict one for a named tool', async () => {
    running.model = await startReplayModel({
      replies: [`${call('Lyon', '3')}\n`, `${call('Oslo', '1')}\n`],
    });
    running.proxy = await startProxy({ upstream: running.model.url, grammar: 'llama.cpp' });
    const client = new OpenAI({ baseURL: running.proxy.url, apiKey: 'none', maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: 'Weather?' }];
    await client.chat.completions.create({ model: 'replay', messages, tools: [weather] });
    const first = await client.chat.completions.create({
      model: 'replay',
      messages: [...messages, { role: 'assistant', content: 'Checking.' }],
      tools: [weather],
      tool_choice: { type: 'function', function: { name: 'weather' } },
    });
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    const [auto, named] = (running.model?.bodies ?? []) as Array<Record<string, unknown>>;
    expect(auto).toMatchObject({
      grammar_lazy: true,
      grammar_triggers: [{ type: 2, value: '(?:^|\\n)[ \\t]*(<tool>)' }],
    });
    expect(String(auto.grammar)).toContain('<tool_name>weather</tool_name>');
    expect(named).toMatchObject({ grammar_lazy: false, grammar_triggers: [] });
    // A completion (llama-server drops the lazy fields of a chat completion): the prompt the
    // server's template rendered, the grammar's tags preserved (#47).
    expect(auto.messages).toBeUndefined();
    expect(String(auto.prompt)).toMatch(/^<\|im_start\|>system\n[\s\S]*<\|im_start\|>assistant\n$/);
    expect(auto.preserved_tokens).toEqual(expect.arrayContaining(['<tool>', '</tool>']));
  });

  it('reads an upstream that answers stream: true with one JSON completion', async () => {
    const { createServer } = await import('node:http');
    const upstream = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          choices: [
            {
              message: { role: 'assistant', content: `${call('Lyon', '3')}\n` },
              finish_reason: 'stop',
            },
          ],
          usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
        }),
      );
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const { port } = upstream.address() as { port: number };
    running.proxy = await startProxy({ upstream: `http://127.0.0.1:${port}/v1` });
    try {
      const client = new OpenAI({ baseURL: running.proxy.url, apiKey: 'none', maxRetries: 0 });
      const answer = await client.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'Weather?' }],
        tools: [weather],
      });
      expect(answer.choices[0].finish_reason).toBe('tool_calls');
      expect(answer.usage?.total_tokens).toBe(12);
    } finally {
      upstream.closeAllConnections();
      upstream.close();
    }
  });

  it('answers 400 to a bad body, 413 to one over the limit, and lists models with aliases', async () => {
    running.model = await startReplayModel({ replies: [] });
    running.proxy = await startProxy({
      upstream: running.model.url,
      maxBodyBytes: 1000,
      modelMap: { alias: 'replay' },
    });
    const post = (body: string) =>
      fetch(`${running.proxy?.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
    const bad = await post('{"messages": 3');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain(
      'not JSON',
    );
    expect((await post('{"messages": []}')).status).toBe(400);
    expect(
      (await post(JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(2000) }] })))
        .status,
    ).toBe(413);
    const listed = (await (await fetch(`${running.proxy.url}/models`)).json()) as {
      data: Array<{ id: string }>;
    };
    expect(listed.data.map((m) => m.id)).toEqual(['replay', 'alias']);
  });

  it('runs as `tagcall serve --upstream URL --port 0` and stops on SIGTERM', async () => {
    running.model = await startReplayModel({ replies: [`${call('Lyon', '3')}\n`] });
    const { child, url } = await startTagcallServer([
      'serve',
      '--upstream',
      running.model.url,
      '--port',
      '0',
      '--model-map',
      'local=replay',
    ]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const client = new OpenAI({ baseURL: url, apiKey: 'none', maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: 'local',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [weather],
    });
    expect(answer.choices[0].message.tool_calls?.[0]).toMatchObject({
      function: { name: 'weather', arguments: '{"city":"Lyon","days":3}' },
    });
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });
});
