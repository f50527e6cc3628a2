import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, tool } from 'ai';
import fc from 'fast-check';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import {
  createNativeCalls,
  createReplyBuilder,
  type Dialect,
  type NativeEvent,
  type ParserEvent,
  parse,
  startProxy,
  startReplayModel,
  textOf,
} from './support/all.js';
import { cutsArbitrary, feedChunks, splitAt } from './support/chunk.js';
import { cleanupsAfterEach } from './support/cleanups.js';

/**
 * A family's answer markers (docs/dialects.md, "Decisions"): the tokens its format writes around
 * the answer are structure, as its thinking tags are. They are out of the text, told as
 * `marker` events (so nothing is lost), whole and however the reply is cut.
 */
interface Case {
  name: string;
  dialects: ReadonlyArray<Dialect | 'auto'>;
  input: string;
  text: string;
  markers: readonly string[];
  calls?: number;
  thinking?: readonly string[];
}

const CASES: readonly Case[] = [
  {
    name: "Command R7B's response markers",
    dialects: ['command-r7b', 'auto'],
    input: "<|START_RESPONSE|>Hello, world!\nWhat's up?<|END_RESPONSE|>",
    text: "Hello, world!\nWhat's up?",
    markers: ['<|START_RESPONSE|>', '<|END_RESPONSE|>'],
  },
  {
    name: "Command R7B's thinking, then its response",
    dialects: ['command-r7b', 'auto'],
    input:
      "<|START_THINKING|>I'm\nthinking<|END_THINKING|><|START_RESPONSE|>Hello, world!\nWhat's up?<|END_RESPONSE|>",
    text: "Hello, world!\nWhat's up?",
    markers: ['<|START_RESPONSE|>', '<|END_RESPONSE|>'],
    thinking: ["I'm\nthinking"],
  },
  {
    name: "Kimi K3's response channel, then a call",
    dialects: ['kimi-k3', 'auto'],
    input:
      '<|open|>response<|sep|>Let me run it.<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="python" index="1"<|sep|><|open|>argument key="code" type="string"<|sep|>print(1)<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
    text: 'Let me run it.',
    markers: ['<|open|>response<|sep|>', '<|close|>response<|sep|>'],
    calls: 1,
  },
  {
    name: "Kimi K3's response channel and the message's close",
    dialects: ['kimi-k3', 'auto'],
    input: '<|open|>response<|sep|>hi there<|close|>response<|sep|><|close|>message<|sep|>',
    text: 'hi there',
    markers: ['<|open|>response<|sep|>', '<|close|>response<|sep|>', '<|close|>message<|sep|>'],
  },
  {
    name: "Granite 3.3's response tags after its thinking",
    dialects: ['granite'],
    input: "<think>I'm\nthinking</think><response>Hello, world!\nWhat's up?</response>",
    text: "Hello, world!\nWhat's up?",
    markers: ['<response>', '</response>'],
    thinking: ["I'm\nthinking"],
  },
  {
    name: "gpt-oss's final message after its analysis",
    dialects: ['gpt-oss', 'auto'],
    input:
      "<|channel|>analysis<|message|>I'm\nthinking<|end|><|start|>assistant<|channel|>final<|message|>Hello, world!\nWhat's up?<|return|>",
    text: "Hello, world!\nWhat's up?",
    markers: ['<|start|>assistant<|channel|>final<|message|>', '<|return|>'],
    thinking: ["I'm\nthinking"],
  },
  {
    name: "gpt-oss's final message opened by its channel",
    dialects: ['gpt-oss', 'auto'],
    input: 'Note. <|channel|>final<|message|>Done.',
    text: 'Note. Done.',
    markers: ['<|channel|>final<|message|>'],
  },
  {
    name: "functionary v3.2's answer to all at the reply's start, then a call",
    dialects: ['functionary'],
    input: 'all\nHello, world!\nnono\nWhat\'s up?>>>special_function\n{"arg1": 1}\n',
    text: "Hello, world!\nnono\nWhat's up?\n",
    markers: ['all\n'],
    calls: 1,
  },
  {
    name: "functionary v3.2's answer to all after a call",
    dialects: ['functionary'],
    input: 'get_weather\n{"city": "Paris"}>>>all\nIt is sunny.',
    text: 'It is sunny.',
    markers: ['>>>all\n'],
    calls: 1,
  },
];

/** The text, markers (as written, at their offsets) and calls of the events. */
function reading(input: string, events: readonly ParserEvent[]) {
  const markers: string[] = [];
  for (const event of events)
    if (event.type === 'marker') {
      expect(input.slice(event.offset, event.offset + event.text.length)).toBe(event.text);
      markers.push(event.text);
    }
  return markers;
}

describe("a family's answer markers are out of the text, each told as a marker", () => {
  for (const c of CASES)
    for (const dialect of c.dialects)
      describe(`${c.name} (${dialect})`, () => {
        it('whole', () => {
          const { result, events } = feedChunks([c.input], { dialect });
          expect(result.text).toBe(c.text);
          expect(reading(c.input, events)).toEqual(c.markers);
          expect(result.calls.length).toBe(c.calls ?? 0);
          expect(result.thinking).toEqual(c.thinking ?? []);
          expect(result.errors).toEqual([]);
          expect(parse(c.input, { dialect }).text).toBe(c.text);
        });

        it('in 1-character chunks and cut anywhere', () => {
          const ones = feedChunks([...c.input], { dialect });
          expect(ones.result.text).toBe(c.text);
          expect(reading(c.input, ones.events)).toEqual(c.markers);
          fc.assert(
            fc.property(cutsArbitrary, (cuts) => {
              const { result, events } = feedChunks(splitAt(c.input, cuts), { dialect });
              expect(result.text).toBe(c.text);
              expect(reading(c.input, events)).toEqual(c.markers);
              expect(result.calls.length).toBe(c.calls ?? 0);
            }),
            { numRuns: 200 },
          );
        });
      });

  it("a marker inside a call's value is the value's", () => {
    const kimi =
      '<|open|>tools<|sep|><|open|>call tool="say" index="1"<|sep|><|open|>argument key="text" type="string"<|sep|>a<|open|>response<|sep|>b<|close|>message<|sep|><|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>';
    const r7b =
      '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "say", "parameters": {"text": "a<|START_RESPONSE|>b"}}]<|END_ACTION|>';
    for (const [dialect, input, value] of [
      ['kimi-k3', kimi, 'a<|open|>response<|sep|>b<|close|>message<|sep|>'],
      ['command-r7b', r7b, 'a<|START_RESPONSE|>b'],
    ] as const) {
      for (const chunks of [[input], [...input]]) {
        const { result, events } = feedChunks(chunks, { dialect });
        expect(result.calls.map((call) => call.arguments.text)).toEqual([value]);
        expect(events.filter((e) => e.type === 'marker')).toEqual([]);
      }
    }
  });

  it("another family's markers stay text in a dialect that names one family", () => {
    const input = '<|START_RESPONSE|>hi<|END_RESPONSE|>';
    expect(parse(input, { dialect: 'kimi-k3' }).text).toBe(input);
    expect(parse(input).text).toBe(input);
  });

  it("functionary's all is a marker only as its header: at the input's start or after >>>", () => {
    for (const input of ['Hello all\nthere', 'x\nall\ny', 'allowed\n']) {
      expect(parse(input, { dialect: 'functionary' }).text).toBe(input);
      expect(parse(input, { dialect: 'functionary' }).markers).toBeUndefined();
    }
    expect(parse('all\nok', { dialect: 'auto' }).text).toBe('all\nok');
  });

  it("Granite's plain <response> tags are its dialect's only: auto leaves them as text", () => {
    const input = 'See <response>Hello.</response>';
    expect(parse(input, { dialect: 'auto' }).text).toBe(input);
    expect(parse(input, { dialect: 'granite' }).text).toBe('See Hello.');
  });

  it('a marker cut short at the end of the input is text', () => {
    const { result, events } = feedChunks(['hi<|START_RESP'], { dialect: 'command-r7b' });
    expect(result.text).toBe('hi<|START_RESP');
    expect(events.filter((e) => e.type === 'marker')).toEqual([]);
  });

  it("the adapters (tagcall serve, the AI SDK middleware) and the agent's reply leave them out", () => {
    for (const c of CASES)
      for (const dialect of c.dialects) {
        const events: NativeEvent[] = [];
        const native = createNativeCalls(
          {
            tools: [{ name: 'python', inputSchema: { type: 'object' } }],
            idPrefix: 'c',
            parser: { dialect },
          },
          (e) => events.push(e),
        );
        for (const ch of c.input) native.feed(ch);
        native.end();
        const text = events.map((e) => (e.type === 'text' ? e.text : '')).join('');
        expect(text).toBe(c.text);

        const builder = createReplyBuilder();
        const { result, events: parsed } = feedChunks([c.input], { dialect });
        for (const event of parsed) builder.add(event);
        expect(textOf(builder.finish())).toBe(result.text);
        expect(result.text).toBe(c.text);
      }
  });

  describe('through tagcall serve, to the openai client and the AI SDK', () => {
    const cleanups = cleanupsAfterEach();
    it("the reply's content is the answer's words, whole and streamed", async () => {
      const reply = "<|START_RESPONSE|>Hello, world!\nWhat's up?<|END_RESPONSE|>";
      const model = await startReplayModel({ replies: [reply, reply, reply] });
      cleanups.push(() => model.close());
      const proxy = await startProxy({
        upstream: model.url,
        parser: { dialect: 'command-r7b' },
        onError: () => {},
      });
      cleanups.push(() => proxy.close());
      const client = new OpenAI({ baseURL: proxy.url, apiKey: 'none', maxRetries: 0 });
      // A request that offers tools is read (one without passes through untouched).
      const request = {
        model: 'replay',
        messages: [{ role: 'user' as const, content: 'Hi' }],
        tools: [
          {
            type: 'function' as const,
            function: { name: 'python', parameters: { type: 'object', properties: {} } },
          },
        ],
      };
      const whole = await client.chat.completions.create(request);
      expect(whole.choices[0].message.content).toBe("Hello, world!\nWhat's up?");
      let streamed = '';
      for await (const chunk of await client.chat.completions.create({ ...request, stream: true }))
        streamed += chunk.choices[0]?.delta?.content ?? '';
      expect(streamed).toBe("Hello, world!\nWhat's up?");
      const openai = createOpenAI({ baseURL: proxy.url, apiKey: 'none' });
      const { text } = await generateText({
        model: openai.chat('replay'),
        prompt: 'Hi',
        tools: { python: tool({ inputSchema: jsonSchema({ type: 'object', properties: {} }) }) },
      });
      expect(text).toBe("Hello, world!\nWhat's up?");
    });
  });
});
