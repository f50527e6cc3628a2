// The families' grammars, without a sampler (dialect-grammar-sampler.test.ts samples them):
// what each writes around a call, what it refuses, its lazy triggers, and the recognizer on
// long values.
import { describe, expect, it } from 'vitest';
import {
  buildDialectGrammar,
  DIALECTS,
  dialectTriggers,
  type GrammarDialect,
  GrammarError,
  llamaCppGrammarFields,
  parse,
  printGbnf,
  readMarks,
  recognize,
  renderCallIn,
  type ToolArguments,
  type ToolLike,
  WRITTEN_FORMS,
} from './support/all.js';

const tool = (name: string, inputSchema: ToolLike['inputSchema']): ToolLike => ({
  serverName: 'local',
  name,
  inputSchema,
});
const weather = tool('get_weather', {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer' } },
  required: ['city'],
});
const FAMILIES = DIALECTS.filter((d): d is GrammarDialect => d !== 'tagcall');

describe('family grammars', () => {
  it('accept the call their family writes, and the parser reads it as that call', () => {
    const written: Partial<Record<GrammarDialect, string>> = {
      'qwen3-coder':
        '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis & <b> </parameter\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>',
      hermes:
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris </tool_call>", "days": 3}}\n</tool_call>',
      mistral: '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris \\u003c", "days": 3}',
      'gpt-oss':
        '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "日本"}<|call|>',
      glm: '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>a < b && c</arg_value>\n</tool_call>',
      lfm2: '<|tool_call_start|>[get_weather(city="Paris", days=3)]<|tool_call_end|>',
      minicpm3:
        '<|tool_call_start|>\n```python\nget_weather(city="a ``` b <|tool_call_end|>", days=3)\n```\n<|tool_call_end|>',
      gemma4: '<|tool_call>call:get_weather{city:<|"|>x <b> y<|"|>,days:3}<tool_call|>',
      cline: '<get_weather>\n<city>Paris</city>\n<days>3</days>\n</get_weather>',
    };
    for (const [dialect, text] of Object.entries(written) as Array<[GrammarDialect, string]>) {
      const grammar = buildDialectGrammar(dialect, [weather], { allowText: false });
      expect(recognize(grammar, text), dialect).toBe(true);
      const options = dialect === 'cline' ? { dialect, toolNames: ['get_weather'] } : { dialect };
      const { calls, errors, warnings } = parse(text, options);
      expect([errors, warnings], dialect).toEqual([[], []]);
      expect(
        calls.map((c) => c.toolName),
        dialect,
      ).toEqual(['get_weather']);
    }
  });

  it("reject what would not be read as the call: the form's own close in a value, an unknown tool, text after the calls", () => {
    const qwen = buildDialectGrammar('qwen3-coder', [weather], { allowText: false });
    expect(
      recognize(
        qwen,
        '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</parameter>\n</function>\n</tool_call>',
      ),
    ).toBe(false);
    const hermes = buildDialectGrammar('hermes', [weather]);
    expect(
      recognize(hermes, 'Sure.\n<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'),
    ).toBe(false);
    expect(
      recognize(
        hermes,
        'Sure.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "x"}}\n</tool_call>\nDone.',
      ),
    ).toBe(false);
    // Free text holds no opening of the family: a <tool_call> in prose would be a call.
    expect(recognize(hermes, 'I use <tool_call> tags.')).toBe(false);
    expect(recognize(hermes, 'Plain prose, a < b.')).toBe(true);
  });

  it('refuse a required property the form cannot name, naming tool and property', () => {
    const spaced = tool('t', {
      type: 'object',
      properties: { 'my key': { type: 'string' }, ok: { type: 'string' } },
      required: ['my key'],
    });
    for (const dialect of ['lfm2', 'olmo3', 'llama4', 'gemma4', 'cline'] as const)
      expect(() => buildDialectGrammar(dialect, [spaced]), dialect).toThrow(
        new GrammarError(
          `t: ${dialect} cannot write the required property "my key" as an argument name`,
        ),
      );
    // The JSON forms and Qwen's tags can name it.
    for (const dialect of ['hermes', 'qwen3-coder', 'anthropic-xml'] as const)
      expect(() => buildDialectGrammar(dialect, [spaced])).not.toThrow();
    // Optional, it is left out.
    const optional = tool('t', { type: 'object', properties: { 'my key': { type: 'string' } } });
    const g = buildDialectGrammar('lfm2', [optional], { allowText: false });
    expect(printGbnf(g)).not.toContain('my key');
  });

  it("engage lazily on the family's own opening", () => {
    expect(dialectTriggers('qwen3-coder', [weather])).toEqual([{ type: 1, value: '<tool_call>' }]);
    expect(dialectTriggers('kimi-k2', [weather])).toEqual([
      { type: 1, value: '<|tool_calls_section_begin|>' },
    ]);
    expect(dialectTriggers('llama4', [weather])).toEqual([{ type: 1, value: '[get_weather(' }]);
    // Cline's tag at a line start, and mid-line before the first parameter's tag (#47).
    expect(dialectTriggers('cline', [weather])).toEqual([
      { type: 2, value: '(?:^|\\n)[ \\t]*(<get_weather>)' },
      { type: 2, value: '(<get_weather>)\\n(?:<city>)' },
    ]);
    // functools is a word: the trigger fires only at a word start, as the parser opens it.
    expect(dialectTriggers('functools', [weather])).toEqual([
      { type: 2, value: '(?:^|[^A-Za-z0-9_])(functools\\[)' },
    ]);
    const fields = llamaCppGrammarFields([weather], { dialect: 'hermes' });
    expect(fields.grammar_lazy).toBe(true);
    expect(fields.grammar).toMatch(/^root ::= calls ws\n/);
    const required = llamaCppGrammarFields([weather], {
      dialect: 'hermes',
      toolChoice: 'required',
    });
    expect([required.grammar_lazy, required.grammar_triggers]).toEqual([false, []]);
  });

  it('accept what the renderer writes for the family: both read one written form', () => {
    // Values a JSON form writes as they are (a grammar escapes `<` in some): quotes, unicode,
    // a newline, an empty list of properties too.
    const calls: Array<{ toolName: string; arguments: ToolArguments }> = [
      { toolName: 'get_weather', arguments: { city: 'Paris "é" 日本 🎉\nx', days: 3 } },
      { toolName: 'get_weather', arguments: { city: '' } },
    ];
    for (const dialect of FAMILIES)
      for (const call of calls) {
        const { lead } = WRITTEN_FORMS[dialect];
        const rendered = renderCallIn(dialect, call);
        expect(rendered.startsWith(lead?.rendered ?? ''), dialect).toBe(true);
        // A model's reply begins without what only the template writes, with what only a grammar asks.
        const reply = `${lead?.generated ?? ''}${rendered.slice(lead?.rendered?.length ?? 0)}`;
        const grammar = buildDialectGrammar(dialect, [weather], { allowText: false });
        expect(recognize(grammar, reply), `${dialect}: ${JSON.stringify(reply)}`).toBe(true);
      }
  });

  it('every family has a grammar, and one call a reply where the form holds one', () => {
    for (const dialect of FAMILIES)
      expect(() => buildDialectGrammar(dialect, [weather])).not.toThrow();
    const gptOss = buildDialectGrammar('gpt-oss', [weather], { allowText: false, maxCalls: 4 });
    const one =
      '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "a"}<|call|>';
    expect(recognize(gptOss, one)).toBe(true);
    expect(recognize(gptOss, one + one)).toBe(false);
  });

  it('the recognizer runs free text as an automaton: a 200,000-character value, no deep recursion', () => {
    const grammar = buildDialectGrammar('qwen3-coder', [weather], { allowText: false });
    const value = 'x < y && z\n'.repeat(20_000);
    const text = `<tool_call>\n<function=get_weather>\n<parameter=city>\n${value}\n</parameter>\n</function>\n</tool_call>`;
    const marks = readMarks(grammar, text);
    expect(marks?.[0].children[0].children[0].children[0].text).toBe(value);
  });
});
