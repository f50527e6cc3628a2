import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import {
  buildDialectGrammar,
  buildToolGrammar,
  coerceArguments,
  createToolbox,
  DIALECTS,
  defineTool,
  GrammarError,
  type JsonSchema,
  type JsonValue,
  NestingLimitError,
  renderArguments,
  renderCallIn,
  startProxy,
  startReplayModel,
  type ToolArguments,
  toolPromptFor,
} from './support/all.js';
import { proxyAndModelPerTest } from './support/proxy-per-test.js';

const running = proxyAndModelPerTest();

async function client(options: { grammar?: 'llama.cpp' } = {}) {
  running.model = await startReplayModel({ replies: ['Fine.', 'Fine.', 'Fine.'] });
  running.proxy = await startProxy({ upstream: running.model.url, onError: () => {}, ...options });
  return new OpenAI({ baseURL: running.proxy.url, apiKey: 'none', maxRetries: 0 });
}

const tool = (parameters: Record<string, unknown>) => ({
  type: 'function' as const,
  function: { name: 'pick', parameters },
});

/** A schema whose `properties` nest `depth` levels (`{a: {type: object, properties: {a: …}}}`). */
function deepProperties(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < depth; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

/**
 * A request body whose tool's `items` nest `depth` deep, as text: JSON.stringify (and so the
 * `openai` client) cannot write one this deep.
 */
function deepItemsBody(depth: number): string {
  const list = `${'{"type": "array", "items": '.repeat(depth)}{"type": "string"}${'}'.repeat(depth)}`;
  return `{"model": "m", "messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function", "function": {"name": "pick", "parameters": {"type": "object", "properties": {"list": ${list}}}}}]}`;
}

/** A conversation after a call of `pick` whose arguments' `a` nests `depth` arrays, and its result. */
function afterCallNesting(depth: number): OpenAI.ChatCompletionMessageParam[] {
  const args = `{"a": ${'['.repeat(depth)}${']'.repeat(depth)}}`;
  return [
    { role: 'user', content: 'x' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'pick', arguments: args } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'ok' },
  ];
}

/** The status and message a request ends with (the client throws on 4xx and 5xx). */
async function outcome(run: () => Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await run();
    return { status: 200, message: '' };
  } catch (error) {
    if (!(error instanceof OpenAI.APIError)) throw error;
    return { status: error.status ?? 0, message: error.message };
  }
}

describe('tagcall serve bounds the work of one request', () => {
  it('an enum of 100,000 values is a 400 naming the limit, and other requests are answered', async () => {
    const openai = await client();
    const values = Array.from({ length: 100_000 }, (_, i) => `value-${i}`);
    const big = outcome(() =>
      openai.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'pick one' }],
        tools: [tool({ type: 'object', properties: { v: { type: 'string', enum: values } } })],
      }),
    );
    const small = openai.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hello' }],
    });
    const [refused, answered] = await Promise.all([big, small]);
    expect(refused.status).toBe(400);
    expect(refused.message).toContain('tools[0].function.parameters.properties.v.enum');
    expect(refused.message).toContain('100000 values; at most 1000');
    expect(answered.choices[0].message.content).toBe('Fine.');
  });

  it('an enum under the limit is checked for repeats (in linear time)', async () => {
    const openai = await client();
    const values = [...Array.from({ length: 999 }, (_, i) => `v${i}`), 'v5'];
    const refused = await outcome(() =>
      openai.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'pick one' }],
        tools: [tool({ type: 'object', properties: { v: { enum: values } } })],
      }),
    );
    expect(refused).toEqual({
      status: 400,
      message: expect.stringContaining('.properties.v.enum[999] repeats enum[5]'),
    });
  });

  it('too many schema nodes in one request is a 400 naming the limit', async () => {
    const openai = await client();
    const wide = Object.fromEntries(
      Array.from({ length: 30_000 }, (_, i) => [`p${i}`, { type: 'string' }]),
    );
    const refused = await outcome(() =>
      openai.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
        tools: [tool({ type: 'object', properties: wide })],
      }),
    );
    expect(refused.status).toBe(400);
    expect(refused.message).toMatch(/"tools" hold more than 50000 schema values/);
  });
});

describe('deep input is a 400 naming the limit, never a 500 (stack overflow)', () => {
  for (const grammar of [undefined, 'llama.cpp'] as const) {
    const flag = grammar === undefined ? '' : ', with --grammar';
    it(`parameters whose properties nest 2,000 deep (the openai client)${flag}`, async () => {
      const openai = await client({ grammar });
      const refused = await outcome(() =>
        openai.chat.completions.create({
          model: 'm',
          messages: [{ role: 'user', content: 'x' }],
          tools: [tool(deepProperties(2_000))],
        }),
      );
      expect(refused.status).toBe(400);
      expect(refused.message).toContain('tools[0].function.parameters nests deeper than 64 levels');
    });

    it(`parameters whose items nest 20,000 deep${flag}`, async () => {
      await client({ grammar });
      const response = await fetch(`${running.proxy?.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: deepItemsBody(20_000),
      });
      expect(response.status).toBe(400);
      const { error } = (await response.json()) as { error: { message: string } };
      expect(error.message).toBe('tools[0].function.parameters nests deeper than 64 levels');
    });
  }

  it('a field passed through to the upstream, nested 20,000 deep', async () => {
    await client();
    const response = await fetch(`${running.proxy?.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"model": "m", "messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function", "function": {"name": "pick"}}], "metadata": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`,
    });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { message: string } };
    expect(error.message).toBe('the request body nests deeper than 128 levels');
    expect(running.model?.bodies).toEqual([]);
  });

  it('an earlier call whose arguments nest 5,000 arrays', async () => {
    const openai = await client();
    const refused = await outcome(() =>
      openai.chat.completions.create({ model: 'm', messages: afterCallNesting(5_000) }),
    );
    expect(refused.status).toBe(400);
    expect(refused.message).toContain(
      'messages[1].tool_calls[0].function.arguments nests deeper than 32 levels',
    );
  });

  it('a list of lists 30 deep is served (its prompt example grows with the schema, not 2^30)', async () => {
    const openai = await client();
    let list: Record<string, unknown> = { type: 'integer' };
    for (let i = 0; i < 30; i++) list = { type: 'array', items: list };
    const answer = await openai.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      tools: [tool({ type: 'object', properties: { grid: list } })],
    });
    expect(answer.choices[0].message.content).toBe('Fine.');
    const prompt = JSON.stringify(running.model?.bodies.at(-1));
    expect(prompt.length).toBeLessThan(20_000);
  });

  it('nesting within the limits is served', async () => {
    const openai = await client({ grammar: 'llama.cpp' });
    const answer = await openai.chat.completions.create({
      model: 'm',
      messages: afterCallNesting(30),
      tools: [tool(deepProperties(20))],
    });
    expect(answer.choices[0].message.content).toBe('Fine.');
  });
});

describe('deep input to the library: the limit named, never a stack overflow', () => {
  /** `[[[…]]]` nested `depth` deep, built without recursion. */
  function nestedArrays(depth: number): JsonValue {
    let value: JsonValue = [];
    for (let i = 0; i < depth; i++) value = [value];
    return value;
  }
  function nestedItems(depth: number): JsonSchema {
    let schema: JsonSchema = { type: 'integer' };
    for (let i = 0; i < depth; i++) schema = { type: 'array', items: schema };
    return { type: 'object', properties: { grid: schema } };
  }
  const deepTool = {
    serverName: 'local',
    name: 'grid',
    description: 'Takes a grid.',
    inputSchema: nestedItems(20_000),
  };

  it('the renderers (the <tool> protocol and every dialect)', () => {
    const args = { grid: nestedArrays(20_000) } as ToolArguments;
    expect(() => renderArguments(args)).toThrow(NestingLimitError);
    expect(() => renderArguments(args)).toThrow('the arguments nests deeper than 256 levels');
    for (const dialect of DIALECTS)
      expect(() => renderCallIn(dialect, { toolName: 'grid', arguments: args }), dialect).toThrow(
        'the arguments of grid nests deeper than 256 levels',
      );
  });

  it('the grammar builders', () => {
    expect(() => buildToolGrammar([deepTool])).toThrow(GrammarError);
    expect(() => buildToolGrammar([deepTool])).toThrow(
      'the schema of grid nests deeper than 64 levels',
    );
    expect(() => buildDialectGrammar('hermes', [deepTool])).toThrow(
      'the schema of grid nests deeper than 64 levels',
    );
  });

  it('coercion and the tool prompt', () => {
    const args = { grid: nestedArrays(20_000) } as ToolArguments;
    expect(() => coerceArguments(args, deepTool.inputSchema)).toThrow(
      'the schema nests deeper than 64 levels',
    );
    expect(() => toolPromptFor([deepTool])).toThrow(
      'the schema of grid nests deeper than 64 levels',
    );
  });

  it('a dispatched call whose tool has such a schema fails with the limit named', async () => {
    const toolbox = createToolbox({
      tools: [defineTool({ ...deepTool, handler: () => 'ran' })],
    });
    const report = await toolbox.run({
      id: 'c1',
      serverName: 'local',
      toolName: 'grid',
      arguments: { grid: nestedArrays(20_000) } as ToolArguments,
    });
    expect(report.outcome).toBe('threw');
    expect(report.result.output).toBe('grid failed: the schema nests deeper than 64 levels');
  });
});
