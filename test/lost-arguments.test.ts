import { describe, expect, it } from 'vitest';
import { DIALECTS, type ParseOptions, renderCallIn } from './support/all.js';
import { feedChunks, readCharByChar } from './support/chunk.js';

/**
 * #43 item 3: a call whose body holds text its family cannot read as parameters is no call.
 * It fails with `unreadable-arguments` pointing at that text, its text comes back as text, and
 * nothing of it is offered for execution; the calls before it in its block stay calls.
 */

const DSML_OPEN = '<｜DSML｜function_calls>';
const DSML_CLOSE = '</｜DSML｜function_calls>';
const dsmlInvoke = (name: string, body: string) =>
  `<｜DSML｜invoke name="${name}">${body}</｜DSML｜invoke>`;
const dsmlParameter = (key: string, value: string) =>
  `<｜DSML｜parameter name="${key}" string="true">${value}</｜DSML｜parameter>`;

/** The error of a failed call: its code, and the text it points at. */
function failure(text: string, options: ParseOptions) {
  const result = readCharByChar(text, options);
  expect(result.errors).toHaveLength(1);
  const [error] = result.errors;
  return { result, error, at: text.slice(error.offset).trimStart() };
}

describe('a call whose parameters cannot be read fails (never runs with arguments lost)', () => {
  it('DSML: a parameter tag that misses its ｜DSML｜ marker', () => {
    const text = `${DSML_OPEN}${dsmlInvoke('set_flag', '<parameter name="enabled">true</｜DSML｜parameter>')}${DSML_CLOSE}`;
    const { result, error, at } = failure(text, { dialect: 'deepseek-dsml' });
    expect(result.calls).toEqual([]);
    expect(error).toMatchObject({ code: 'unreadable-arguments', format: 'deepseek-dsml' });
    expect(error.partial?.toolName).toBe('set_flag');
    expect(at.startsWith('<parameter name="enabled">')).toBe(true);
    // Its text is given back: every character is text.
    expect(result.text).toBe(text);
  });

  it('DSML: prose between two parameters', () => {
    const body = `${dsmlParameter('a', '1')}\nand now the flag:\n${dsmlParameter('enabled', 'true')}`;
    const text = `${DSML_OPEN}\n${dsmlInvoke('set_flag', body)}\n${DSML_CLOSE}`;
    const { result, error, at } = failure(text, { dialect: 'deepseek-dsml' });
    expect(result.calls).toEqual([]);
    expect(error.code).toBe('unreadable-arguments');
    expect(at.startsWith('and now the flag:')).toBe(true);
    expect(result.text).toBe(text);
  });

  it('DSML: a good call before a bad one stays a call; the calls after the bad one do not run', () => {
    const good = dsmlInvoke('first', dsmlParameter('x', '1'));
    const bad = dsmlInvoke('set_flag', '<parameter name="enabled">true</｜DSML｜parameter>');
    const after = dsmlInvoke('last', dsmlParameter('y', '2'));
    const text = `Sure.${DSML_OPEN}\n${good}\n${bad}\n${after}\n${DSML_CLOSE}\nDone.`;
    const { result, error } = failure(text, { dialect: 'deepseek-dsml' });
    expect(result.calls.map((c) => [c.toolName, c.arguments])).toEqual([['first', { x: '1' }]]);
    expect(error.code).toBe('unreadable-arguments');
    // The bad call and everything after it in the block is text, the block's close included.
    const from = text.indexOf(bad) - 1;
    expect(result.text).toBe(`Sure.${text.slice(from)}`);
    // Auto reads the same.
    const auto = readCharByChar(text, { dialect: 'auto' });
    expect(auto.calls.map((c) => c.toolName)).toEqual(['first']);
    expect(auto.errors.map((e) => e.code)).toEqual(['unreadable-arguments']);
  });

  it('GLM-4.7: a value written without its <arg_value> opener', () => {
    const text = '<tool_call>get_weather\n<arg_key>city</arg_key>\nParis</arg_value>\n</tool_call>';
    const { result, error, at } = failure(text, { dialect: 'glm' });
    expect(result.calls).toEqual([]);
    expect(error).toMatchObject({ code: 'unreadable-arguments', format: 'glm' });
    expect(at.startsWith('<arg_key>city</arg_key>\nParis')).toBe(true);
    expect(result.text).toBe(text);
  });

  it('GLM: text between </arg_key> and <arg_value>', () => {
    const text = '<tool_call>f\n<arg_key>k</arg_key> = <arg_value>v</arg_value>\n</tool_call>';
    const { result, error } = failure(text, { dialect: 'glm' });
    expect(result.calls).toEqual([]);
    expect(error.code).toBe('unreadable-arguments');
  });

  it('GLM: escaped newlines between its tags (a logged reply) are still blanks', () => {
    const text =
      '<tool_call>todo_write\\n<arg_key>todos</arg_key>\\n<arg_value>[1]</arg_value>\\n<arg_key>n</arg_key>\\n<arg_value>2</arg_value>\\n</tool_call>';
    const result = readCharByChar(text, { dialect: 'glm' });
    expect(result.errors).toEqual([]);
    expect(result.calls[0].arguments).toEqual({ todos: '[1]', n: '2' });
  });

  it('Qwen3-Coder, Anthropic XML, Step-3: prose between parameters', () => {
    const cases: Array<[ParseOptions['dialect'], string]> = [
      [
        'qwen3-coder',
        '<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\nthen b:\n<parameter=b>\n2\n</parameter>\n</function>\n</tool_call>',
      ],
      [
        'anthropic-xml',
        '<function_calls>\n<invoke name="f">\n<parameter name="a">1</parameter>\nthen b:\n<parameter name="b">2</parameter>\n</invoke>\n</function_calls>',
      ],
      [
        'step3',
        '<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f"><steptml:parameter name="a">1</steptml:parameter>then b:<steptml:parameter name="b">2</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>',
      ],
    ];
    for (const [dialect, text] of cases) {
      const { result, error, at } = failure(text, { dialect });
      expect(result.calls, dialect).toEqual([]);
      expect(error.code, dialect).toBe('unreadable-arguments');
      expect(at.startsWith('then b:'), dialect).toBe(true);
      expect(result.text).toBe(text);
    }
  });

  it('Cline: prose between a tool tag’s parameters', () => {
    const text = '<read_file>\n<path>a.ts</path>\nand the range\n<start>3</start>\n</read_file>';
    const { result, error } = failure(text, { dialect: 'cline', toolNames: ['read_file'] });
    expect(result.calls).toEqual([]);
    expect(error.code).toBe('unreadable-arguments');
  });

  it('<tool>: prose among the arguments, or where the arguments stand', () => {
    for (const text of [
      '<tool>\n<tool_name>f</tool_name>\n<arguments>\n<a>1</a>\n<b>2</b>\nand c is 3\n</arguments>\n</tool>\n',
      '<tool>\n<tool_name>read_file</tool_name>\npath: a.txt\n</tool>\n',
      '<tool>\n<tool_name>f</tool_name>\n<arguments>\n<<![CDATA[x]]>\n<path>a</path>\n</arguments>\n</tool>\n',
    ]) {
      const { result, error } = failure(text, {});
      expect(result.calls, text).toEqual([]);
      expect(error.code, text).toBe('unreadable-arguments');
    }
  });

  it('GigaChat, Hermes, and every JSON family: a call object with a name and no "arguments"', () => {
    const cases: Array<[ParseOptions['dialect'], string]> = [
      ['gigachat', '<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "get_weather"}'],
      ['gigachat', '<|function_call|>{"name": "get_weather", "city": "Paris"}'],
      ['hermes', '<tool_call>\n{"name": "get_weather", "city": "Paris"}\n</tool_call>'],
      ['mistral', '[TOOL_CALLS][{"name": "get_weather"}]'],
      ['internlm', '<|action_start|><|plugin|>\n{"name": "get_weather"}<|action_end|>'],
      ['longcat', '<longcat_tool_call>{"name": "get_weather"}</longcat_tool_call>'],
    ];
    for (const [dialect, text] of cases) {
      const { result, error } = failure(text, { dialect });
      expect(result.calls, text).toEqual([]);
      expect(error.code, text).toBe('unreadable-arguments');
      expect(error.message, text).toContain('"arguments"');
    }
  });

  it('a tool that takes no arguments is still written {} and is a call', () => {
    const result = readCharByChar('<tool_call>\n{"name": "now", "arguments": {}}\n</tool_call>', {
      dialect: 'hermes',
    });
    expect(result.errors).toEqual([]);
    expect(result.calls.map((c) => [c.toolName, c.arguments])).toEqual([['now', {}]]);
  });

  it('in a JSON list, the call before the one without arguments stays; the one after does not run', () => {
    const text =
      '[TOOL_CALLS][{"name": "a", "arguments": {}}, {"name": "b"}, {"name": "c", "arguments": {}}]';
    const result = readCharByChar(text, { dialect: 'mistral' });
    expect(result.calls.map((c) => c.toolName)).toEqual(['a']);
    expect(result.errors.map((e) => e.code)).toContain('unreadable-arguments');
  });
});

describe('no family runs a call whose body held text it could not read (every dialect)', () => {
  /**
   * Each family's renderer writes a call of two arguments; a word, or a line of prose, is put
   * at every place from the end of the first value to the second's name (in the value, in its
   * close, between the two, in the second's opening). Whatever the parse makes of it, whole or
   * in 3-character chunks, a call it runs holds every written value and the inserted text
   * (read as part of a value, or the call fails): nothing of the body is skipped.
   */
  const ARGS = { first: 'alpha', second: 'omega' };
  const written = (dialect: (typeof DIALECTS)[number]) =>
    renderCallIn(dialect, { toolName: 'set_flag', arguments: ARGS });

  for (const dialect of DIALECTS)
    it(dialect, () => {
      const text = written(dialect);
      const from = text.indexOf(ARGS.first) + ARGS.first.length;
      const to = text.indexOf('second', from);
      expect(to).toBeGreaterThan(from);
      const options: ParseOptions = { dialect, toolNames: ['set_flag'] };
      let failed = 0;
      for (const inserted of ['NOTE', '\nNOTE: then the second one.\n'])
        for (let at = from; at <= to; at++) {
          const input = text.slice(0, at) + inserted + text.slice(at);
          const { result } = feedChunks([input], options);
          expect(feedChunks(input.match(/[\s\S]{1,3}/g) ?? [], options).result).toEqual(result);
          for (const call of result.calls) {
            const values = JSON.stringify(call.arguments);
            for (const kept of [ARGS.first, ARGS.second, 'NOTE'])
              expect(values, `${dialect}: ${JSON.stringify(input)}`).toContain(kept);
          }
          if (result.calls.length === 0) {
            failed++;
            expect(result.errors.length, JSON.stringify(input)).toBeGreaterThan(0);
          }
        }
      // Prose between the two parameters fails the call in every family.
      expect(failed).toBeGreaterThan(0);
    });
});
