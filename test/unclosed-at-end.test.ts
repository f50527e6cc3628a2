import { describe, expect, it } from 'vitest';
import { DIALECTS, type Dialect, parse, renderCallIn } from './support/all.js';

// #26 item 1: servers strip their stop tokens (llama.cpp and Ollama end gpt-oss at <|call|>
// without writing it) and users pass `</tool_call>` or `</tool>` as a stop sequence, so a
// complete call often arrives without its last close. Such a call is a call, with a warning;
// a reply cut inside a value is still no call.

/** Every close a dialect writes after a call's last value, longest first. */
const CLOSES = [
  '</tool>',
  '</tool_call>',
  '</function_calls>',
  '</minimax:tool_call>',
  '</｜DSML｜function_calls>',
  '</seed:tool_call>',
  '<｜tool▁calls▁end｜>',
  '<｜tool▁call▁end｜>',
  '<|tool_calls_section_end|>',
  '<|tool_call_end|>',
  '</TOOLCALL>',
  '<|END_ACTION|>',
  '</tool_calls>',
  '<|call|>',
  '<tool_call|>',
  '</function>',
  '</get_weather>',
];

/** The call as its family writes it, with every close after its last value stripped. */
function withoutCloses(dialect: Dialect, args: Record<string, unknown>): string {
  let text = renderCallIn(dialect, { toolName: 'get_weather', arguments: args } as never).trimEnd();
  for (let again = true; again; ) {
    again = false;
    for (const close of CLOSES)
      if (text.endsWith(close)) {
        text = text.slice(0, -close.length).trimEnd();
        again = true;
      }
  }
  return text;
}

const options = (dialect: Dialect) => ({ dialect, toolNames: ['get_weather'] });

describe('a call complete at the end of the input is a call, told (unclosed-call-at-end)', () => {
  for (const dialect of DIALECTS)
    it(`${dialect}: only the closes are missing`, () => {
      const text = withoutCloses(dialect, { city: 'Paris', unit: 'C' });
      for (const ending of ['', '\n']) {
        const result = parse(text + ending, options(dialect));
        expect(result.errors).toEqual([]);
        expect(result.calls.map((c) => [c.toolName, { ...c.arguments }])).toEqual([
          ['get_weather', { city: 'Paris', unit: 'C' }],
        ]);
        // The dialects whose calls have no close at all (Mistral, Llama 3, Llama 4) need none.
        if (
          text !==
          renderCallIn(dialect, {
            toolName: 'get_weather',
            arguments: { city: 'Paris', unit: 'C' },
          }).trimEnd()
        )
          expect(result.warnings.map((w) => w.code)).toContain('unclosed-call-at-end');
      }
    });

  for (const dialect of DIALECTS)
    it(`${dialect}: a reply cut inside its last value is still no call`, () => {
      const text = withoutCloses(dialect, { unit: 'C', city: 'Paris, France' });
      const cut = text.slice(0, text.lastIndexOf('Paris') + 3);
      const result = parse(cut, options(dialect));
      expect(result.calls).toEqual([]);
      expect(result.errors.map((e) => e.code)).toEqual(['incomplete-tool-call']);
    });

  it('a complete body that is no call stays an error whose text comes back (nothing lost)', () => {
    const text = '<function_calls>{"path": "a"}';
    const result = parse(text, { dialect: 'olmo3' });
    expect(result.calls).toEqual([]);
    expect(result.errors.map((e) => e.code)).toEqual(['missing-tool-name']);
    expect(result.text).toBe(text);
  });

  it('<tool>: </arguments> must have been read; a cut between arguments is no call', () => {
    const text = withoutCloses('tagcall', { city: 'Paris', unit: 'C' });
    const between = text.slice(0, text.indexOf('</city>') + '</city>'.length);
    expect(parse(between).calls).toEqual([]);
    expect(parse(`${between}\n</arguments>`).calls).toHaveLength(1);
  });

  it('gpt-oss served by llama.cpp: the reply ends after the JSON, <|call|> stripped', () => {
    const reply =
      '<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"location": "Paris"}';
    const result = parse(reply, { dialect: 'gpt-oss' });
    expect(result.calls.map((c) => c.arguments)).toEqual([{ location: 'Paris' }]);
    expect(result.warnings.map((w) => w.code)).toEqual(['unclosed-call-at-end']);
    expect(result.thinking).toEqual(['Need weather.']);
  });

  it('hermes with </tool_call> as the stop sequence: the reply ends after the JSON and a newline', () => {
    const result = parse('<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n', {
      dialect: 'hermes',
    });
    expect(result.calls.map((c) => [c.toolName, { ...c.arguments }])).toEqual([['f', { a: 1 }]]);
  });
});

// #43: Granite 3.1 served by llama-box ended its reply after the list's last call, its `]` not
// written (gpustack/llama-box#17). A list complete but for its `]` (and its block's close) is
// a call, told, in every family that writes its calls as a list; a comma after the last call
// promised another, so the reply was cut there: no call.
describe('a list of calls missing only its ] at the end is a call, told (unclosed-call-at-end)', () => {
  const LISTS: readonly [Dialect, string, string][] = [
    ['granite', '<tool_call>[{"name": "get_weather", "arguments": {"location": "ShenZhen"}}', ']'],
    [
      'granite',
      '<|tool_call|>[{"name": "get_weather", "arguments": {"location": "ShenZhen"}}',
      ']',
    ],
    ['mistral', '[TOOL_CALLS][{"name": "get_weather", "arguments": {"location": "ShenZhen"}}', ']'],
    [
      'jamba',
      '<tool_calls>[{"name": "get_weather", "arguments": {"location": "ShenZhen"}}',
      ']</tool_calls>',
    ],
    [
      'nemotron',
      '<TOOLCALL>[{"name": "get_weather", "arguments": {"location": "ShenZhen"}}',
      ']</TOOLCALL>',
    ],
    ['xlam', '[{"name": "get_weather", "arguments": {"location": "ShenZhen"}}', ']'],
    ['functools', 'functools[{"name": "get_weather", "arguments": {"location": "ShenZhen"}}', ']'],
    ['apertus', '<|tools_prefix|>[{"get_weather": {"location": "ShenZhen"}}', ']<|tools_suffix|>'],
    [
      'hermes',
      '<tool_call>[{"name": "get_weather", "arguments": {"location": "ShenZhen"}}',
      ']</tool_call>',
    ],
    [
      'command-r7b',
      '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"location": "ShenZhen"}}',
      ']<|END_ACTION|>',
    ],
    ['llama4', '[get_weather(location="ShenZhen")', ']'],
    ['lfm2', '<|tool_call_start|>[get_weather(location="ShenZhen")', ']<|tool_call_end|>'],
    [
      'generic-json',
      '{"tool_calls": [{"name": "get_weather", "arguments": {"location": "ShenZhen"}}',
      ']}',
    ],
    [
      'generic-json',
      '{"tool_call": {"name": "get_weather", "arguments": {"location": "ShenZhen"}}',
      '}',
    ],
    [
      'generic-json',
      '{"tool_calls": [{"name": "get_weather", "arguments": {"location": "ShenZhen"}}]',
      '}',
    ],
  ];
  for (const [dialect, text, close] of LISTS)
    it(`${dialect}: ${text.slice(0, 16)}… read, the warning naming ${close}`, () => {
      for (const ending of ['', '\n']) {
        const result = parse(text + ending, { dialect });
        expect(result.errors).toEqual([]);
        expect(result.calls.map((c) => [c.toolName, { ...c.arguments }])).toEqual([
          ['get_weather', { location: 'ShenZhen' }],
        ]);
        expect(result.warnings.map((w) => [w.code, w.message])).toEqual([
          [
            'unclosed-call-at-end',
            `the call was complete but not closed with ${close}; it ends with the input`,
          ],
        ]);
      }
    });

  it('two calls, the list left open after the second: both read, told once', () => {
    const result = parse(
      '<|tool_call|>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": 1}}',
      { dialect: 'granite' },
    );
    expect(result.calls.map((c) => c.toolName)).toEqual(['a', 'b']);
    expect(result.warnings.map((w) => w.code)).toEqual(['unclosed-call-at-end']);
  });

  it('a comma after the last call: the reply was cut, no call of it', () => {
    const result = parse('<|tool_call|>[{"name": "a", "arguments": {}},', { dialect: 'granite' });
    expect(result.calls).toEqual([]);
    expect(result.errors.map((e) => e.code)).toEqual(['incomplete-tool-call']);
  });

  it('a list of data in a list (no call object) stays no call', () => {
    const result = parse('<|tool_call|>[[1, 2]', { dialect: 'granite' });
    expect(result.calls).toEqual([]);
    expect(result.errors).toHaveLength(1);
  });
});
