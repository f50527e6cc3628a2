import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tagcallMiddleware } from '../src/adapters/ai-sdk.js';
import { parse, renderCall } from './support/all.js';
import { cutsArbitrary, splitAt } from './support/chunk.js';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 20, text: 20, reasoning: 0 },
};
const finish = { unified: 'stop', raw: 'stop' } as const;

function streamOf(chunks: readonly string[]) {
  const parts: LanguageModelV3StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    ...chunks.map((delta): LanguageModelV3StreamPart => ({ type: 'text-delta', id: 't', delta })),
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: finish, usage },
  ];
  return { stream: convertArrayToReadableStream(parts) };
}

const generated = (text: string) => ({
  content: [{ type: 'text' as const, text }],
  finishReason: finish,
  usage,
  warnings: [],
});

const weatherSchema = {
  type: 'object' as const,
  properties: { city: { type: 'string' as const }, days: { type: 'integer' as const } },
  required: ['city'],
};
const callText = renderCall({ toolName: 'weather', arguments: { city: 'Lyon', days: '3' } });
const reply = `[The user wants the forecast]\nLet me look.\n${callText}\n`;

async function collect(stream: ReadableStream<LanguageModelV3StreamPart>) {
  const parts: LanguageModelV3StreamPart[] = [];
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
  return parts;
}

describe('tagcallMiddleware (AI SDK 6)', () => {
  it('puts the tools in the system prompt and earlier calls and results in text', async () => {
    const middleware = tagcallMiddleware();
    const params: LanguageModelV3CallOptions = {
      prompt: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Weather in Lyon?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'need data' },
            { type: 'tool-call', toolCallId: 'a', toolName: 'weather', input: { city: 'Lyon' } },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'a',
              toolName: 'weather',
              output: { type: 'text', value: 'sunny' },
            },
          ],
        },
      ],
      tools: [
        { type: 'function', name: 'weather', description: 'Forecast', inputSchema: weatherSchema },
      ],
      toolChoice: { type: 'required' },
    };
    const out = await middleware.transformParams?.({
      type: 'generate',
      params,
      model: new MockLanguageModelV3(),
    });
    expect(out?.tools).toBeUndefined();
    const [system, , assistant, result] = out?.prompt ?? [];
    expect(system.content).toContain('Be brief.\n\n# Tools');
    expect(system.content).toContain('## weather (server: local)');
    expect(system.content).toContain('call at least one tool');
    expect(assistant).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'text',
          text: `[need data]\n\n${renderCall({ toolName: 'weather', arguments: { city: 'Lyon' } })}`,
        },
      ],
    });
    expect(result).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'Tool: weather\nsunny' }],
    });
  });

  it('streams text, reasoning and tool input deltas whatever the chunking, and drops nothing at the end', async () => {
    await fc.assert(
      fc.asyncProperty(cutsArbitrary, async (cuts) => {
        const model = wrapLanguageModel({
          model: new MockLanguageModelV3({
            doStream: streamOf(splitAt(`${reply}Tail without newline`, cuts)),
          }),
          middleware: tagcallMiddleware(),
        });
        const { stream } = await model.doStream({
          prompt: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
          tools: [{ type: 'function', name: 'weather', inputSchema: weatherSchema }],
        });
        const parts = await collect(stream);
        const text = parts.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : [])).join('');
        const reasoning = parts
          .flatMap((p) => (p.type === 'reasoning-delta' ? [p.delta] : []))
          .join('');
        const input = parts
          .flatMap((p) => (p.type === 'tool-input-delta' ? [p.delta] : []))
          .join('');
        expect(reasoning).toBe('The user wants the forecast');
        expect(text).toBe(parse(`${reply}Tail without newline`).text);
        expect(JSON.parse(input)).toEqual({ city: 'Lyon', days: 3 });
        const call = parts.find((p) => p.type === 'tool-call');
        expect(call).toMatchObject({ toolName: 'weather', input: '{"city":"Lyon","days":3}' });
        expect(parts.at(-1)).toMatchObject({
          type: 'finish',
          finishReason: { unified: 'tool-calls' },
        });
        // Every start has its end, in order.
        const open = new Set<string>();
        for (const p of parts) {
          if (p.type === 'stream-start' || !('id' in p) || typeof p.id !== 'string') continue;
          if (p.type.endsWith('-start')) open.add(p.id);
          if (p.type.endsWith('-end')) expect(open.delete(p.id)).toBe(true);
        }
        expect(open.size).toBe(0);
      }),
      { numRuns: 100 },
    );
  });

  it('generateText runs the tool and sends its result back in the text protocol', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [generated(reply), generated('It will be sunny in Lyon.')],
    });
    const seen: string[] = [];
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: tagcallMiddleware() }),
      prompt: 'Weather in Lyon?',
      tools: {
        weather: tool({
          description: 'Forecast for a city',
          inputSchema: jsonSchema<{ city: string; days?: number }>(weatherSchema),
          execute: async ({ city, days }) => {
            seen.push(`${city}/${typeof days}:${days}`);
            return `sunny for ${days} days`;
          },
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(seen).toEqual(['Lyon/number:3']);
    expect(result.text).toBe('It will be sunny in Lyon.');
    expect(result.steps[0].reasoningText).toBe('The user wants the forecast');
    const second = model.doGenerateCalls[1].prompt;
    expect(second.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'Tool: weather\nsunny for 3 days' }],
    });
  });

  it('streamText runs the tool from a stream and continues', async () => {
    const model = new MockLanguageModelV3({
      doStream: [streamOf([...reply]), streamOf(['Sunny', ' in Lyon.'])],
    });
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: tagcallMiddleware() }),
      prompt: 'Weather in Lyon?',
      tools: {
        weather: tool({
          inputSchema: jsonSchema<{ city: string; days?: number }>(weatherSchema),
          execute: async ({ city }) => `sunny in ${city}`,
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(await result.text).toBe('Sunny in Lyon.');
    const steps = await result.steps;
    expect(steps[0].toolResults[0]).toMatchObject({ toolName: 'weather', output: 'sunny in Lyon' });
  });

  it('streams tool-input-delta for every dialect while the value is written', async () => {
    const city = 'Saint-Étienne </parameter> & <b>';
    const replies = {
      'qwen3-coder': `<tool_call>\n<function=weather>\n<parameter=city>\n${city}\n</parameter>\n</function>\n</tool_call>`,
      'anthropic-xml': `<function_calls>\n<invoke name="weather">\n<parameter name="city">${city}</parameter>\n</invoke>\n</function_calls>`,
      hermes: `<tool_call>\n${JSON.stringify({ name: 'weather', arguments: { city } })}\n</tool_call>`,
    } as const;
    for (const [dialect, text] of Object.entries(replies)) {
      const model = wrapLanguageModel({
        model: new MockLanguageModelV3({ doStream: streamOf(splitAt(text, [40, 50, 60, 70])) }),
        middleware: tagcallMiddleware({ dialect: dialect as keyof typeof replies }),
      });
      const { stream } = await model.doStream({
        prompt: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
        tools: [{ type: 'function', name: 'weather', inputSchema: weatherSchema }],
      });
      const parts = await collect(stream);
      const deltas = parts.flatMap((p) => (p.type === 'tool-input-delta' ? [p.delta] : []));
      expect(deltas.length, dialect).toBeGreaterThan(2);
      expect(JSON.parse(deltas.join('')), dialect).toEqual({ city });
    }
  });

  it("with dialect 'auto' also reads a model's native Hermes calls", async () => {
    const hermesReply =
      '<tool_call>\n{"name": "weather", "arguments": {"city": "Oslo", "days": "2"}}\n</tool_call>\n';
    const model = wrapLanguageModel({
      model: new MockLanguageModelV3({ doGenerate: generated(hermesReply) }),
      middleware: tagcallMiddleware({ dialect: 'auto' }),
    });
    const result = await model.doGenerate({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] }],
      tools: [{ type: 'function', name: 'weather', inputSchema: weatherSchema }],
    });
    expect(result.content.find((p) => p.type === 'tool-call')).toMatchObject({
      toolName: 'weather',
      input: '{"city":"Oslo","days":2}',
    });
    expect(result.finishReason.unified).toBe('tool-calls');
  });
  it('a reply cut by the token limit between two arguments runs no tool, streamed or not', async () => {
    // All the parser has is complete but for its closers: a call when the server stripped its
    // stop tokens, no call when the token limit cut the reply ('length').
    const cut = '<tool_call>\n<function=weather>\n<parameter=city>\nLyon\n</parameter>\n';
    const limit = { unified: 'length', raw: 'length' } as const;
    const ran: unknown[] = [];
    const tools = {
      weather: tool({
        inputSchema: jsonSchema<{ city: string; days?: number }>(weatherSchema),
        execute: async (input) => {
          ran.push(input);
          return 'sunny';
        },
      }),
    };
    const middleware = tagcallMiddleware({ dialect: 'qwen3-coder' });
    const parts: LanguageModelV3StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      ...[...cut].map(
        (delta): LanguageModelV3StreamPart => ({ type: 'text-delta', id: 't', delta }),
      ),
      { type: 'finish', finishReason: limit, usage },
    ];
    const streamed = streamText({
      model: wrapLanguageModel({
        model: new MockLanguageModelV3({
          doStream: { stream: convertArrayToReadableStream(parts) },
        }),
        middleware,
      }),
      prompt: 'Weather in Lyon?',
      tools,
    });
    expect(await streamed.text).toBe(cut);
    expect(await streamed.toolCalls).toEqual([]);
    const generatedText = await generateText({
      model: wrapLanguageModel({
        model: new MockLanguageModelV3({ doGenerate: { ...generated(cut), finishReason: limit } }),
        middleware,
      }),
      prompt: 'Weather in Lyon?',
      tools,
    });
    expect(generatedText.toolCalls).toEqual([]);
    expect(generatedText.text).toBe(cut);
    expect(ran).toEqual([]);
    // The same reply ended by the model ('stop') is a call.
    const stopped = await wrapLanguageModel({
      model: new MockLanguageModelV3({ doGenerate: generated(cut) }),
      middleware,
    }).doGenerate({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Lyon?' }] }],
      tools: [{ type: 'function', name: 'weather', inputSchema: weatherSchema }],
    });
    expect(stopped.content.find((p) => p.type === 'tool-call')).toMatchObject({
      toolName: 'weather',
      input: '{"city":"Lyon"}',
    });
  });
});
