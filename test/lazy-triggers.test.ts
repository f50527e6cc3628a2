// Lazy grammars' triggers against the parser's openings (#47 item 3): a trigger fires where the
// family's parser reads an opening and only there, and `tagcall serve` reads a reply sampled
// under a lazy grammar as the grammar wrote it, whatever the free text before the trigger
// left unfinished. The four disagreements the issue found, each a case here.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTriggerSearch } from '../src/grammar/trigger-search.js';
import { createLazyReply } from '../src/server/llama-completion.js';
import {
  createNativeCalls,
  type Dialect,
  dialectTriggers,
  type GrammarDialect,
  type JsonSchema,
  llamaCppGrammarFields,
  type NativeEvent,
  parse,
  type ToolLike,
} from './support/all.js';
import { triggerStart } from './support/grammar-sampler.js';

const tool = (name: string, properties: Record<string, JsonSchema>): ToolLike => ({
  serverName: 'local',
  name,
  inputSchema: { type: 'object', properties, required: Object.keys(properties) },
});
const WEATHER = tool('get_weather', { city: { type: 'string' } });
const NOTE = tool('note', { text: { type: 'string' } });
const EDIT = tool('edit_file', { path: { type: 'string' } });

/** Where the parser reads its first call in `text`, or -1 for none. */
function firstOpening(text: string, dialect: Dialect, tools: readonly ToolLike[]): number {
  const result = parse(text, { dialect, toolNames: tools.map((t) => t.name) });
  const call = result.calls[0];
  return call === undefined ? -1 : text.indexOf(call.raw);
}

/** Where the trigger fires: llama.cpp's way (the sampler's emulation) and serve's, which must agree. */
function triggerAt(text: string, dialect: GrammarDialect, tools: readonly ToolLike[]): number {
  const triggers = dialectTriggers(dialect, tools);
  const emulated = triggerStart(text, triggers);
  const search = createTriggerSearch(triggers);
  let found = -1;
  for (const char of text) if (found === -1) found = search.push(char);
  expect(found, `serve's search against llama.cpp's on ${JSON.stringify(text)}`).toBe(emulated);
  return emulated;
}

describe('a trigger fires where the parser reads an opening, and only there', () => {
  const cases: Array<[GrammarDialect, ToolLike[], string]> = [
    // functools is a word: no trigger inside `Afunctools[` (the parser reads text there).
    ['functools', [WEATHER], 'Afunctools[{"name": "get_weather", "arguments": {"city": "P"}}]'],
    ['functools', [WEATHER], 'my_functools[{"name": "get_weather", "arguments": {}}]'],
    ['functools', [WEATHER], 'A functools[{"name": "get_weather", "arguments": {"city": "P"}}]'],
    ['functools', [WEATHER], 'functools[{"name": "get_weather", "arguments": {"city": "P"}}]'],
    // Cline's tag opens mid-line before a parameter's tag: the trigger fires there too.
    ['cline', [NOTE, EDIT], 'see <note>\n<text>y</text>\n</note>'],
    ['cline', [NOTE, EDIT], 'Done.\n<edit_file>\n<path>a</path>\n</edit_file>'],
    ['cline', [NOTE, EDIT], 'use <edit_file> to change it'],
    [
      'hermes',
      [WEATHER],
      'Sure. <tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>',
    ],
  ];
  for (const [dialect, tools, text] of cases)
    it(`${dialect}: ${JSON.stringify(text)}`, () => {
      expect(triggerAt(text, dialect, tools)).toBe(firstOpening(text, dialect, tools));
    });
});

interface Told {
  text: string;
  calls: Array<{ name: string; arguments: unknown }>;
  failed: string[];
}

/** What serve tells of a reply sampled under `triggers`, fed `size` characters at a time. */
function told(
  reply: string,
  dialect: Dialect,
  tools: readonly ToolLike[],
  triggers: ReadonlyArray<{ type: number; value: string }>,
  size: number,
): Told {
  const out: Told = { text: '', calls: [], failed: [] };
  const reader = createLazyReply(
    {
      tools: tools.map((t) => ({ name: t.name, inputSchema: t.inputSchema })),
      onlyListed: true,
      parser: { prefilledThinking: 'never', dialect, toolNames: tools.map((t) => t.name) },
    },
    (event: NativeEvent) => {
      if (event.type === 'text') out.text += event.text;
      else if (event.type === 'call-end')
        out.calls.push({ name: event.name, arguments: JSON.parse(event.argumentsJson) });
      else if (event.type === 'call-failed') out.failed.push(event.name);
    },
    triggers,
  );
  for (let i = 0; i < reply.length; i += size) reader.feed(reply.slice(i, i + size));
  reader.end();
  return out;
}

describe('serve reads the text before the trigger on its own (an unfinished construct ends there)', () => {
  const cases: Array<{
    name: string;
    dialect: GrammarDialect;
    tools: ToolLike[];
    free: string;
    call: string;
    expected: { name: string; arguments: unknown };
    text: string;
  }> = [
    {
      name: 'llama3-json: a broken {"name" line before <|python_tag|>',
      dialect: 'llama3-json',
      tools: [WEATHER],
      free: '{"name": "x\n',
      call: '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}',
      expected: { name: 'get_weather', arguments: { city: 'Paris' } },
      text: '{"name": "x\n',
    },
    {
      name: 'gpt-oss: a stray <|channel|> just before the trigger',
      dialect: 'gpt-oss',
      tools: [WEATHER],
      free: 'Hello<|channel|>',
      call: '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>',
      expected: { name: 'get_weather', arguments: { city: 'Paris' } },
      text: 'Hello<|channel|>',
    },
    {
      name: 'hermes: an open fence before the call',
      dialect: 'hermes',
      tools: [WEATHER],
      free: 'Look:\n```\ncode\n',
      call: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
      expected: { name: 'get_weather', arguments: { city: 'Paris' } },
      text: 'Look:\n```\ncode\n',
    },
    {
      name: 'qwen3-coder: a bare <function=…> call in free text stays text (no trigger fired on it)',
      dialect: 'qwen3-coder',
      tools: [WEATHER],
      free: 'Try:\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n',
      call: '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>',
      expected: { name: 'get_weather', arguments: { city: 'Paris' } },
      text: 'Try:\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n',
    },
    {
      name: 'qwen3-coder: an unclosed <think> before the call',
      dialect: 'qwen3-coder',
      tools: [WEATHER],
      free: '<think>the city',
      call: '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>',
      expected: { name: 'get_weather', arguments: { city: 'Paris' } },
      text: '',
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const reply = c.free + c.call;
      const { grammar_triggers: triggers } = llamaCppGrammarFields(c.tools, { dialect: c.dialect });
      expect(triggerStart(reply, triggers)).toBe(c.free.length);
      for (const size of [1, 3, reply.length]) {
        const result = told(reply, c.dialect, c.tools, triggers, size);
        expect(result.calls, `fed ${size} at a time`).toEqual([c.expected]);
        expect(result.text, `fed ${size} at a time`).toBe(c.text);
      }
    });

  it('one parser over the whole reply (serve before #47) reads these differently', () => {
    const reply =
      '{"name": "x\n<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}';
    const calls: string[] = [];
    const native = createNativeCalls(
      {
        tools: [{ name: 'get_weather', inputSchema: WEATHER.inputSchema }],
        parser: { dialect: 'llama3-json' },
      },
      (event) => {
        if (event.type === 'call-end') calls.push(event.name);
      },
    );
    native.feed(reply);
    native.end();
    expect(calls).not.toEqual(['get_weather']);
  });
});

describe("serve's trigger search", () => {
  it('finds where llama.cpp begins the grammar, however the reply is chunked', () => {
    const families: GrammarDialect[] = ['cline', 'functools', 'hermes', 'gpt-oss', 'llama4'];
    const pieces = [
      'a',
      ' ',
      '\n',
      '\t',
      '_',
      'functools',
      '[',
      '<note>',
      '<text>',
      '<edit_file>',
      '<path>',
      '<tool_call>',
      '<|channel|>',
      'commentary to=functions.',
      '[get_weather(',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...families),
        fc.array(fc.constantFrom(...pieces), { maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 8 }),
        (dialect, parts, sizes) => {
          const text = parts.join('');
          const triggers = dialectTriggers(dialect, [WEATHER, NOTE, EDIT]);
          const search = createTriggerSearch(triggers);
          let found = -1;
          for (let i = 0, k = 0; i < text.length && found === -1; k++) {
            const size = sizes[k % sizes.length];
            found = search.push(text.slice(i, i + size));
            i += size;
          }
          // llama.cpp searches after every token: the first prefix that matches decides.
          let expected = -1;
          for (let end = 1; end <= text.length && expected === -1; end++)
            expected = triggerStart(text.slice(0, end), triggers);
          if (found === -1) expect(expected).toBe(-1);
          else expect(found).toBe(expected === -1 ? triggerStart(text, triggers) : expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('preserved_tokens', () => {
  it('lists the one-token trigger words and every special token the grammar writes', () => {
    const llama3 = llamaCppGrammarFields([WEATHER], { dialect: 'llama3-json' });
    expect(llama3.preserved_tokens).toContain('<|python_tag|>');
    const harmony = llamaCppGrammarFields([WEATHER], { dialect: 'gpt-oss' });
    for (const token of ['<|channel|>', '<|constrain|>', '<|message|>', '<|call|>'])
      expect(harmony.preserved_tokens).toContain(token);
    const mistral = llamaCppGrammarFields([WEATHER], { dialect: 'mistral' });
    expect(mistral.preserved_tokens).toEqual(expect.arrayContaining(['[TOOL_CALLS]', '[ARGS]']));
    const qwen = llamaCppGrammarFields([WEATHER], { dialect: 'hermes' });
    expect(qwen.preserved_tokens).toEqual(expect.arrayContaining(['<tool_call>', '</tool_call>']));
    // Every word trigger is listed: one that is a single token is refused otherwise.
    for (const dialect of ['deepseek', 'kimi-k2', 'mistral', 'hermes', 'gemma4'] as const) {
      const fields = llamaCppGrammarFields([WEATHER], { dialect });
      for (const trigger of fields.grammar_triggers)
        if (trigger.type === 1) expect(fields.preserved_tokens).toContain(trigger.value);
    }
  });
});
