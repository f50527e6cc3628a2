import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createParser, DIALECTS, type ParseOptions, parse } from './support/all.js';
import { cutsArbitrary, feedChunks, readCharByChar, splitAt } from './support/chunk.js';
import { renderInDialect } from './support/dialect-render.js';

const qwen = { dialect: 'qwen3-coder' } as const;

describe('a closing tag is decided by what follows it', () => {
  it('Qwen3-Coder: a value may hold </parameter> (code that searches for it)', () => {
    const code = 'if (s.includes("</parameter>")) {\n  return s.split("</parameter>");\n}';
    const text = `<tool_call>\n<function=write_file>\n<parameter=path>\nparse.ts\n</parameter>\n<parameter=content>\n${code}\n</parameter>\n</function>\n</tool_call>\n`;
    const { calls, warnings, errors } = readCharByChar(text, qwen);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    expect(calls[0].arguments).toEqual({ path: 'parse.ts', content: code });
  });

  it('Hermes: a closing tag inside a JSON string is not a closing tag (hermes, auto)', () => {
    const text =
      '<tool_call>\n{"name": "write", "arguments": {"content": "a </tool_call> b \\"</tool_call>\\" c"}}\n</tool_call>\nDone.\n';
    for (const dialect of ['hermes', 'auto'] as const) {
      const { calls, errors, text: prose } = readCharByChar(text, { dialect });
      expect(errors).toEqual([]);
      expect(calls).toMatchObject([
        { toolName: 'write', arguments: { content: 'a </tool_call> b "</tool_call>" c' } },
      ]);
      expect(prose).toBe('\nDone.\n');
    }
  });

  it('Cline: a file whose content holds </content> is kept whole', () => {
    const body = 'const x = "</content>";\n// </content> in a comment\n';
    const text = `<write_to_file>\n<path>a.ts</path>\n<content>\n${body}</content>\n</write_to_file>\n`;
    const { calls, errors } = readCharByChar(text, {
      dialect: 'cline',
      toolNames: ['write_to_file'],
    });
    expect(errors).toEqual([]);
    expect(calls[0].arguments).toEqual({ path: 'a.ts', content: body.slice(0, -1) });
  });

  it('Anthropic XML: a value may hold </parameter> and </invoke>', () => {
    const value = 'echo "</parameter></invoke>" && a < b';
    const text = `<function_calls>\n<invoke name="bash">\n<parameter name="command">${value}</parameter>\n</invoke>\n</function_calls>\n`;
    const { calls, errors } = readCharByChar(text, { dialect: 'anthropic-xml' });
    expect(errors).toEqual([]);
    expect(calls[0].arguments).toEqual({ command: value });
  });
});

describe('a special token opens a call anywhere in a line', () => {
  it('Hermes and Qwen3-Coder <tool_call>, Anthropic <function_calls>: text before stays text', () => {
    const hermes =
      'Sure, let me check.<tool_call>{"name": "search", "arguments": {"q": "x"}}</tool_call> Then more.\n';
    for (const dialect of ['hermes', 'auto'] as const) {
      const { calls, text } = readCharByChar(hermes, { dialect });
      expect(calls).toMatchObject([{ toolName: 'search', arguments: { q: 'x' } }]);
      expect(text).toBe('Sure, let me check. Then more.\n');
    }
    const anthropic =
      'Running it: <function_calls><invoke name="bash"><parameter name="command">ls</parameter></invoke></function_calls>\n';
    expect(readCharByChar(anthropic, { dialect: 'anthropic-xml' }).calls).toMatchObject([
      { toolName: 'bash', arguments: { command: 'ls' } },
    ]);
    const qwenMidLine = 'Now: <tool_call>\n<function=ls>\n</function>\n</tool_call>\n';
    expect(readCharByChar(qwenMidLine, qwen).calls).toMatchObject([{ toolName: 'ls' }]);
  });

  it('Kimi K3: only <|open|>tools<|sep|> opens calls; <|open|> and a call tag outside a block are text, its response channel answer markers', () => {
    const channels =
      'Write <|open|> then a tag. <|open|>response<|sep|>Done.<|close|>response<|sep|><|open|>call tool="f"<|sep|><|close|>call<|sep|>';
    const channelsText =
      'Write <|open|> then a tag. Done.<|open|>call tool="f"<|sep|><|close|>call<|sep|>';
    const call =
      'On it.<|open|>tools<|sep|><|open|>call tool="ls" index="1"<|sep|><|open|>argument key="path" type="string"<|sep|>src<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|> Then more.';
    for (const dialect of ['kimi-k3', 'auto'] as const) {
      expect(readCharByChar(channels, { dialect })).toMatchObject({
        calls: [],
        errors: [],
        text: channelsText,
      });
      const { calls, text } = readCharByChar(call, { dialect });
      expect(calls).toMatchObject([{ toolName: 'ls', arguments: { path: 'src' } }]);
      expect(text).toBe('On it. Then more.');
    }
  });

  it('a Cline tool tag opens mid-line only when its first parameter follows (blanks allowed)', () => {
    const cline = { dialect: 'cline', toolNames: ['read_file', 'write_to_file'] } as const;
    for (const text of [
      'Let me read it. <read_file><path>a.ts</path></read_file>\nDone.\n',
      'Let me read it. <read_file>\n  <path>a.ts</path>\n</read_file>\nDone.\n',
    ]) {
      const { calls, text: prose } = readCharByChar(text, cline);
      expect(calls.map((c) => [c.toolName, c.arguments])).toEqual([
        ['read_file', { path: 'a.ts' }],
      ]);
      expect(prose).toBe('Let me read it. \nDone.\n');
    }
    for (const text of [
      'Use the <read_file> tool to read files.\n',
      'Use <read_file> then <write_to_file>.\n',
      'It ends with <read_file>',
    ]) {
      const { calls, text: prose } = readCharByChar(text, cline);
      expect(calls).toEqual([]);
      expect(prose).toBe(text);
    }
  });

  it('<tool> keeps the line-start rule, and a fence keeps its contents text', () => {
    expect(readCharByChar('Say <tool> in prose.\n', { dialect: 'auto' }).calls).toEqual([]);
    const fenced = '```\nexample: <tool_call>{"name": "x"}</tool_call>\n```\n';
    expect(readCharByChar(fenced, { dialect: 'hermes' }).calls).toEqual([]);
  });
});

describe('model mistakes are recovered, each with a warning', () => {
  it('a missing </parameter> ends at the next <parameter= on a line of its own', () => {
    const text =
      '<tool_call>\n<function=edit>\n<parameter=path>\na.ts\n<parameter=line>\n3\n</parameter>\n</function>\n</tool_call>\n';
    const { calls, warnings } = readCharByChar(text, qwen);
    expect(calls[0].arguments).toEqual({ path: 'a.ts', line: '3' });
    expect(warnings.map((w) => w.code)).toEqual(['unclosed-element']);
    expect(warnings[0].message).toContain('it ends at the next <parameter=');
  });

  it('a </tool_call> reached with </function> missing ends the function', () => {
    const text = '<tool_call>\n<function=ls>\n<parameter=path>\nsrc\n</parameter>\n</tool_call>\n';
    const { calls, warnings, errors } = readCharByChar(text, qwen);
    expect(errors).toEqual([]);
    expect(calls[0]).toMatchObject({ toolName: 'ls', arguments: { path: 'src' } });
    expect(warnings.map((w) => w.code)).toEqual(['unclosed-element']);
  });

  it('a self-closing <function=name/> is a call without arguments', () => {
    const { calls, errors } = readCharByChar(
      '<tool_call>\n<function=get_time/>\n</tool_call>\n',
      qwen,
    );
    expect(errors).toEqual([]);
    expect(calls).toMatchObject([{ toolName: 'get_time', arguments: {} }]);
  });

  it('<function=…>…</function> without <tool_call>, at a line start, is a call (qwen3-coder, auto)', () => {
    const text =
      'I will look.\n<function=read_file>\n<parameter=path>\nREADME.md\n</parameter>\n</function>\nDone.\n';
    for (const dialect of ['qwen3-coder', 'auto'] as const) {
      const { calls, warnings, text: prose } = readCharByChar(text, { dialect });
      expect(calls).toMatchObject([{ toolName: 'read_file', arguments: { path: 'README.md' } }]);
      expect(warnings.map((w) => w.code)).toEqual(['missing-wrapper']);
      expect(prose).toBe('I will look.\n\nDone.\n');
    }
    // In a sentence it is prose.
    expect(readCharByChar('Call <function=x></function> like this.\n', qwen).calls).toEqual([]);
  });

  it('Kimi-K2 calls without <|tool_calls_section_begin|> are calls, with missing-wrapper (kimi-k2, auto)', () => {
    // Every other marker present, all special tokens (fixtures/dialects/SOURCES.md).
    const text =
      'Let me check.<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_call_begin|>functions.get_time:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>';
    for (const dialect of ['kimi-k2', 'auto'] as const) {
      const { calls, warnings, errors, text: prose } = readCharByChar(text, { dialect });
      expect(errors).toEqual([]);
      expect(calls).toMatchObject([
        { toolName: 'get_weather', arguments: { city: 'Paris' } },
        { toolName: 'get_time', arguments: {} },
      ]);
      expect(warnings.map((w) => w.code)).toEqual(['missing-wrapper', 'missing-wrapper']);
      expect(prose).toBe('Let me check.');
    }
  });

  it('a self-closing tag of a known Cline tool is a call without arguments', () => {
    const { calls, text } = readCharByChar('Listing.\n<list_files/>\n', {
      dialect: 'cline',
      toolNames: ['list_files'],
    });
    expect(calls).toMatchObject([{ toolName: 'list_files', arguments: {}, format: 'cline' }]);
    expect(text).toBe('Listing.\n\n');
    expect(
      readCharByChar('<other_tool/>\n', { dialect: 'cline', toolNames: ['list_files'] }).calls,
    ).toEqual([]);
  });

  it('a parameter given twice makes a list, with duplicate-field', () => {
    const text =
      '<tool_call>\n<function=read_files>\n<parameter=path>\na.ts\n</parameter>\n<parameter=path>\nb.ts\n</parameter>\n</function>\n</tool_call>\n';
    const { calls, warnings } = readCharByChar(text, qwen);
    expect(calls[0].arguments).toEqual({ path: ['a.ts', 'b.ts'] });
    expect(warnings.map((w) => w.code)).toEqual(['duplicate-field']);
  });

  it('a list parameter written once holds its text under the schema, for dispatch to read; twice, a list', () => {
    const schemas = {
      grid: {
        type: 'object',
        properties: {
          rows: { type: 'array', items: { type: 'array', items: { type: 'number' } } },
          tags: { type: 'array', items: { type: 'string' } },
        },
      },
    };
    const once =
      '<tool_call>\n<function=grid>\n<parameter=rows>\n[]\n</parameter>\n<parameter=tags>\n["a"]\n</parameter>\n</function>\n</tool_call>\n';
    expect(readCharByChar(once, { ...qwen, schemas }).calls[0].arguments).toEqual({
      rows: '[]',
      tags: '["a"]',
    });
    const twice =
      '<tool_call>\n<function=grid>\n<parameter=tags>\na\n</parameter>\n<parameter=tags>\nb\n</parameter>\n</function>\n</tool_call>\n';
    expect(readCharByChar(twice, { ...qwen, schemas }).calls[0].arguments).toEqual({
      tags: ['a', 'b'],
    });
  });

  it('<tool>{"name", "parameters"}</tool> reads like tool_name and arguments', () => {
    const { calls, warnings } = readCharByChar(
      '<tool>{"name": "search", "parameters": {"q": "tagcall"}}</tool>\n',
      {},
    );
    expect(calls).toMatchObject([
      { toolName: 'search', arguments: { q: 'tagcall' }, format: 'json' },
    ]);
    expect(warnings.map((w) => w.code)).toEqual(['deprecated-json-format']);
  });
});

describe('an opening that reads as no call', () => {
  it('is an error and text, and is not read again (no loop)', () => {
    for (const [text, dialect] of [
      ['<tool_call>a b</tool_call>\n', 'glm'],
      ['x <tool_call>\n', 'glm'],
      ['<tool_call>{"name": 1}</tool_call>\n', 'auto'],
    ] as const) {
      const { calls, errors, text: prose } = readCharByChar(text, { dialect });
      expect(calls).toEqual([]);
      expect(errors).toHaveLength(1);
      expect(prose).toBe(text);
    }
  });
});

describe('Python calls (LFM2, and the pythonic lists of Llama 4 and OLMo 3)', () => {
  it('are read with Python literals as values', () => {
    const text =
      'Checking.<|tool_call_start|>[get_weather(city="Paris", days=3, exact=True, tags=[\'a\', "b"], opts={\'x\': None}), now()]<|tool_call_end|>Done.\n';
    const { calls, text: prose, errors } = readCharByChar(text, { dialect: 'lfm2' });
    expect(errors).toEqual([]);
    expect(calls.map((c) => [c.toolName, c.arguments])).toEqual([
      ['get_weather', { city: 'Paris', days: 3, exact: true, tags: ['a', 'b'], opts: { x: null } }],
      ['now', {}],
    ]);
    expect(prose).toBe('Checking.Done.\n');
  });

  it("a string may hold quotes of the other kind and the block's markers as text", () => {
    const text = '<|tool_call_start|>[f(a="it\'s", b=\'say "hi"\')]<|tool_call_end|>\n';
    expect(readCharByChar(text, { dialect: 'lfm2' }).calls[0].arguments).toEqual({
      a: "it's",
      b: 'say "hi"',
    });
  });
});

describe('gpt-oss (harmony)', () => {
  it("analysis is thinking, a message to functions.NAME is a call, the final answer's words are text", () => {
    const text =
      '<|channel|>analysis<|message|>User wants weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"location": "Tokyo"}<|call|>';
    for (const dialect of ['gpt-oss', 'auto'] as const) {
      const { calls, thinking, text: prose, errors } = readCharByChar(text, { dialect });
      expect(errors).toEqual([]);
      expect(thinking).toEqual(['User wants weather.']);
      expect(calls.map((c) => [c.format, c.toolName, c.arguments])).toEqual([
        ['gpt-oss', 'get_weather', { location: 'Tokyo' }],
      ]);
      expect(prose).toBe('');
    }
    const answer = '<|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>';
    expect(readCharByChar(answer, { dialect: 'gpt-oss' }).text).toBe('It is sunny.');
    const before =
      '<|start|>assistant to=functions.search<|channel|>commentary json<|message|>{"q": "a < b"}<|call|>';
    expect(readCharByChar(before, { dialect: 'gpt-oss' }).calls[0].arguments).toEqual({
      q: 'a < b',
    });
  });
});

describe('Gemma 4', () => {
  it('reads call:NAME{…} with <|"|> strings, and its thought channel as thinking', () => {
    const text =
      '<|channel>thought\nThe user wants weather.<channel|>Checking.<|tool_call>call:get_weather{city:<|"|>Paris "q" <b> &amp; x<|"|>,days:3,exact:true,opts:{<|"|>k<|"|>:[1,<|"|>a<|"|>]}}<tool_call|>Done.\n';
    for (const dialect of ['gemma4', 'auto'] as const) {
      const { calls, thinking, text: prose, errors } = readCharByChar(text, { dialect });
      expect(errors).toEqual([]);
      expect(thinking.map((t) => t.trim())).toEqual(['The user wants weather.']);
      expect(calls.map((c) => [c.format, c.toolName, c.arguments])).toEqual([
        [
          'gemma4',
          'get_weather',
          { city: 'Paris "q" <b> &amp; x', days: 3, exact: true, opts: { k: [1, 'a'] } },
        ],
      ]);
      expect(prose).toBe('Checking.Done.\n');
    }
  });
});

describe('Llama 4 (Python call lists on a line of their own)', () => {
  it('a line [name(…), …] is calls; a Markdown link or bracketed thinking is not', () => {
    const text =
      'See [the docs](http://x) first.\n[plan it]\n[get_weather(city="Paris", days=3), now()]\nok\n';
    const { calls, thinking, text: prose, errors } = readCharByChar(text, { dialect: 'llama4' });
    expect(errors).toEqual([]);
    expect(calls.map((c) => [c.format, c.toolName, c.arguments])).toEqual([
      ['llama4', 'get_weather', { city: 'Paris', days: 3 }],
      ['llama4', 'now', {}],
    ]);
    expect(thinking).toEqual(['plan it']);
    expect(prose).toBe('See [the docs](http://x) first.\n\n\nok\n');
  });

  // #43: Llama 4 puts its list between <|python_start|> and <|python_end|> (vLLM's
  // llama4_pythonic parser strips them, "as Llama 4 model sometime will output those tokens").
  it('<|python_start|>[…]<|python_end|> is the block: its tokens are its markers, not text', () => {
    const text = 'Checking.<|python_start|>[get_weather(city="Paris"), now()]<|python_end|>\nDone.';
    for (const dialect of ['llama4', 'auto'] as const) {
      const { calls, text: prose, errors, warnings } = readCharByChar(text, { dialect });
      expect(errors, dialect).toEqual([]);
      expect(warnings, dialect).toEqual([]);
      expect(calls.map((c) => [c.format, c.toolName, c.arguments])).toEqual([
        ['llama4', 'get_weather', { city: 'Paris' }],
        ['llama4', 'now', {}],
      ]);
      expect(calls[0].raw.startsWith('<|python_start|>[')).toBe(true);
      expect(calls[1].raw.endsWith(')]<|python_end|>')).toBe(true);
      expect(prose, dialect).toBe('Checking.\nDone.');
    }
  });

  it('a list after <|python_start|> with no <|python_end|> before the end is the calls, told', () => {
    const { calls, warnings } = readCharByChar('<|python_start|>[get_weather(city="LA")]', {
      dialect: 'llama4',
    });
    expect(calls.map((c) => c.toolName)).toEqual(['get_weather']);
    expect(warnings.map((w) => [w.code, w.message])).toEqual([
      [
        'unclosed-call-at-end',
        'the call was complete but not closed with <|python_end|>; it ends with the input',
      ],
    ]);
  });

  it('<|python_start|> before what is no list of calls stays text (nanochat writes code there)', () => {
    for (const dialect of ['llama4', 'auto'] as const) {
      const text =
        'So: <|python_start|>37*42<|python_end|> and <|python_start|>[1, 2]<|python_end|>';
      const result = readCharByChar(text, { dialect });
      expect(result.calls, dialect).toEqual([]);
      expect(result.errors, dialect).toEqual([]);
      expect(result.text, dialect).toBe(text);
    }
  });

  it('a value cannot hold <|python_end|> (a special token): the list cut there is no call', () => {
    const text = '<|python_start|>[f(a="x<|python_end|>")]';
    const result = readCharByChar(text, { dialect: 'llama4' });
    expect(result.calls).toEqual([]);
    expect(result.errors.map((e) => [e.code, e.message])).toEqual([
      ['invalid-json', "the call is not valid JSON: the string is cut short by the block's close"],
    ]);
    expect(result.text).toContain('<|python_start|>');
  });
});

describe('functionary', () => {
  it('v3.1 <function=name>{json}</function> and v3.2 >>>name + JSON are calls; >>>all is an answer marker', () => {
    const tag =
      'Let me check.\n<function=get_weather>{"city": "Paris </function> x"}</function>\nDone.\n';
    expect(readCharByChar(tag, { dialect: 'functionary' }).calls.map((c) => c.arguments)).toEqual([
      { city: 'Paris </function> x' },
    ]);
    const recipient =
      '>>>all\nLet me check.\n>>>get_weather\n{"city": "Paris", "n": [1, {"a": "}"}]}\n>>>all\nIt is sunny.\n';
    const { calls, text } = readCharByChar(recipient, { dialect: 'functionary' });
    expect(calls.map((c) => [c.format, c.toolName, c.arguments])).toEqual([
      ['functionary', 'get_weather', { city: 'Paris', n: [1, { a: '}' }] }],
    ]);
    expect(text).toBe('Let me check.\n\nIt is sunny.\n');
  });
});

// Found by the peers' suites and the grammar sampler (#25), each a test before its fix.
describe('bugs of the markup dialects and the top level (#25)', () => {
  it('qwen3-coder: a block left open before a new <tool_call> ends there, its call read', () => {
    const text =
      '<tool_call>\n<function=a>\n<parameter=x>\n1\n</parameter>\n<tool_call>\n<function=b>\n<parameter=y>\n2\n</parameter>\n</function>\n</tool_call>\n';
    const { calls, warnings, errors } = readCharByChar(text, qwen);
    expect(errors).toEqual([]);
    expect(calls.map((c) => [c.toolName, c.arguments])).toEqual([
      ['a', { x: '1' }],
      ['b', { y: '2' }],
    ]);
    expect(warnings.map((w) => w.code)).toEqual(['unclosed-element', 'unclosed-element']);
    // Without </parameter> too: the value ends at the <tool_call> that begins a line.
    const open = readCharByChar(
      '<tool_call>\n<function=a>\n<parameter=x>\n1\n<tool_call>\n<function=b>\n</function>\n</tool_call>\n',
      qwen,
    );
    expect(open.calls.map((c) => [c.toolName, c.arguments])).toEqual([
      ['a', { x: '1' }],
      ['b', {}],
    ]);
    expect(open.warnings.every((w) => w.code === 'unclosed-element')).toBe(true);
  });

  it('glm: literal \\n escapes between its tags (a logged reply) are read as newlines, with a warning', () => {
    const text =
      '<tool_call>todo_write\\n<arg_key>todos</arg_key>\\n<arg_value>[1]</arg_value>\\n</tool_call>';
    const { calls, warnings } = readCharByChar(text, { dialect: 'glm' });
    expect(calls.map((c) => [c.toolName, c.arguments])).toEqual([['todo_write', { todos: '[1]' }]]);
    expect(warnings.map((w) => w.code)).toContain('stray-text');
  });

  it('glm: text between </arg_key> and <arg_value> fails the call, never a dropped argument', () => {
    const text = '<tool_call>f\n<arg_key>k</arg_key> = <arg_value>v</arg_value>\n</tool_call>';
    const { calls, errors, text: prose } = readCharByChar(text, { dialect: 'glm' });
    expect(calls).toEqual([]);
    expect(errors.map((e) => e.code)).toEqual(['unreadable-arguments']);
    expect(prose).toBe(text);
  });

  it('mistral: calls quoted in [THINK] … [/THINK] are thinking, the one after it runs', () => {
    const text =
      '[THINK]I could call [TOOL_CALLS]a[ARGS]{"x": 1} but no.[/THINK][TOOL_CALLS]b[ARGS]{"y": 2}';
    const { calls, thinking } = readCharByChar(text, { dialect: 'mistral' });
    expect(thinking).toEqual(['I could call [TOOL_CALLS]a[ARGS]{"x": 1} but no.']);
    expect(calls.map((c) => c.toolName)).toEqual(['b']);
  });

  it('<tool>: stray CDATA among the arguments fails the call, its text kept', () => {
    const text =
      '<tool>\n<tool_name>f</tool_name>\n<arguments>\n<<![CDATA[x]]>\n<path>a</path>\n</arguments>\n</tool>\n';
    const { calls, errors, text: prose } = readCharByChar(text, {});
    expect(calls).toEqual([]);
    expect(errors.map((e) => e.code)).toEqual(['unreadable-arguments']);
    expect(prose).toBe(text);
  });

  it('llama4: an escaped quote inside a single-quoted Python string does not break the call', () => {
    const { calls, errors } = readCharByChar(
      `[get_weather(city='Martha\\'s Vineyard', metric='\\"cool units\\"')]`,
      { dialect: 'llama4' },
    );
    expect(errors).toEqual([]);
    expect(calls.map((c) => [c.toolName, c.arguments])).toEqual([
      ['get_weather', { city: "Martha's Vineyard", metric: '"cool units"' }],
    ]);
  });

  it('llama4, olmo3: a number JavaScript cannot hold is kept as written, with inexact-number', () => {
    for (const dialect of ['llama4', 'olmo3'] as const) {
      const body = `calc(x=1e999, y=4e523, z=${'9'.repeat(309)})`;
      const text =
        dialect === 'llama4' ? `[${body}]` : `<function_calls>\n${body}\n</function_calls>`;
      const { calls, warnings } = readCharByChar(text, { dialect });
      expect(calls[0].arguments).toEqual({ x: '1e999', y: '4e523', z: '9'.repeat(309) });
      expect(warnings.map((w) => w.code)).toEqual([
        'inexact-number',
        'inexact-number',
        'inexact-number',
      ]);
    }
  });

  it("olmo3: a value is read as Python reads it, never rewritten (`cat <<'EOF'`, `\\$HOME`)", () => {
    const { calls } = readCharByChar(
      `<function_calls>\nrun(cmd="cat <<'EOF' > a.sh\\necho \\$HOME\\nEOF")\n</function_calls>`,
      { dialect: 'olmo3' },
    );
    expect(calls[0].arguments).toEqual({ cmd: "cat <<'EOF' > a.sh\necho \\$HOME\nEOF" });
  });

  it('the calls of one block end in order, whatever the chunking (a Mistral list)', () => {
    const text =
      '[TOOL_CALLS][{"name": "a", "arguments": {"x": "1"}}, {"name": "b", "arguments": {"y": "2"}}]';
    const order = (size: number) => {
      const types: string[] = [];
      const parser = createParser({
        dialect: 'mistral',
        onEvent: (e) => {
          if (e.type === 'tool-start' || e.type === 'tool-end') types.push(e.type);
        },
      });
      for (let i = 0; i < text.length; i += size) parser.feed(text.slice(i, i + size));
      parser.end();
      return types;
    };
    for (const size of [1, 3, text.length])
      expect(order(size)).toEqual(['tool-start', 'tool-end', 'tool-start', 'tool-end']);
  });

  it('hermes: what streams is the final value, also when the JSON is repaired', () => {
    const text =
      '<tool_call>{"name":"edit","arguments":{"name":"inner_value","content":"He said "hello" to me"}}</tool_call>';
    const streamed = new Map<string, string>();
    let call: Record<string, unknown> = {};
    const parser = createParser({
      dialect: 'hermes',
      onEvent: (e) => {
        if (e.type === 'argument-delta')
          streamed.set(e.path.names[0], (streamed.get(e.path.names[0]) ?? '') + e.text);
        if (e.type === 'tool-end') call = e.call.arguments;
      },
    });
    for (let i = 0; i < text.length; i += 3) parser.feed(text.slice(i, i + 3));
    parser.end();
    expect(call).toEqual({ name: 'inner_value', content: 'He said "hello" to me' });
    expect(Object.fromEntries(streamed)).toEqual(call);
  });

  it('an unknown dialect is a clear error naming the known ones', () => {
    expect(() => parse('x', { dialect: 'nope' as never })).toThrow(
      /unknown dialect "nope"; the dialects are tagcall, .*qwen3-coder.*, auto/,
    );
  });
});

// #26 item 3: forms of families already read, as llama.cpp's chat parsers take them.
describe('more written forms of the families read', () => {
  it("mistral: the v11 tokenizer's [TOOL_CALLS]name{json}, without [ARGS]", () => {
    const result = parse(
      '[TOOL_CALLS]get_weather{"city": "Paris & <Lyon>"}[TOOL_CALLS]get_time{"zone": ""}',
      { dialect: 'mistral' },
    );
    expect(result.errors).toEqual([]);
    expect(result.calls.map((c) => [c.toolName, { ...c.arguments }])).toEqual([
      ['get_weather', { city: 'Paris & <Lyon>' }],
      ['get_time', { zone: '' }],
    ]);
    expect(parse('[TOOL_CALLS]hello world', { dialect: 'mistral' }).calls).toEqual([]);
  });

  it("granite: Granite 3.1's list after <tool_call>, ended by its JSON", () => {
    const result = parse(
      'Checking.\n<tool_call>[{"name": "get_weather", "arguments": {"city": "Zürich"}}]',
      { dialect: 'granite' },
    );
    expect(result.errors).toEqual([]);
    expect(result.calls.map((c) => [c.toolName, { ...c.arguments }])).toEqual([
      ['get_weather', { city: 'Zürich' }],
    ]);
    expect(result.text).toBe('Checking.\n');
  });
});

describe('qwen3-coder: names in quotes', () => {
  // As @ai-sdk-tool/parser's formatter writes them (and some models do): found by the bench,
  // where every such call through the middleware became text once unoffered names were text.
  it('<function="name"> and <parameter="key"> are read without the quotes, with a warning', () => {
    const text =
      '<tool_call>\n  <function="read_file">\n    <parameter="path">src/<a>&b.ts</parameter>\n  </function>\n</tool_call>';
    const result = parse(text, { dialect: 'qwen3-coder' });
    expect(result.calls.map((c) => [c.toolName, { ...c.arguments }])).toEqual([
      ['read_file', { path: 'src/<a>&b.ts' }],
    ]);
    expect(result.warnings.map((w) => w.code)).toEqual(['stray-text', 'stray-text']);
  });
});

describe('Kimi-K2 calls from inside its thinking (#26)', () => {
  const call = (name: string) =>
    `<|tool_calls_section_begin|><|tool_call_begin|>functions.${name}:0<|tool_call_argument_begin|>{"path": "a < b.ts"}<|tool_call_end|><|tool_calls_section_end|>`;

  it('a section inside a <think> never closed: the call is read, the thinking ended there', () => {
    const r = parse(`<think>Let me read it.${call('read_file')}`, { dialect: 'kimi-k2' });
    expect(r.calls.map((c) => [c.toolName, c.arguments])).toEqual([
      ['read_file', { path: 'a < b.ts' }],
    ]);
    expect(r.thinking).toEqual(['Let me read it.']);
    expect(r.warnings.map((w) => w.code)).toEqual(['unclosed-thinking']);
  });

  it('interleaved: thinking, a call, more thinking, the close, then the answer', () => {
    for (const dialect of ['kimi-k2', 'auto'] as const) {
      const r = parse(`<think>First.${call('a')}Then more.</think>Done.`, { dialect });
      expect(r.calls.map((c) => c.toolName)).toEqual(['a']);
      expect(r.thinking).toEqual(['First.', 'Then more.']);
      expect(r.text).toBe('Done.');
      expect(r.warnings).toEqual([]);
    }
  });

  it('the close right after the call opens no empty thinking', () => {
    const r = parse(`<think>Go.${call('a')}</think>Answer.`, { dialect: 'kimi-k2' });
    expect(r.thinking).toEqual(['Go.']);
    expect(r.text).toBe('Answer.');
  });

  it('in chunks of every size: a chunk of thinking is read whole only when no call token starts in it', () => {
    // Thinking streams chunk by chunk past the buffer (the fast path): a chunk that holds the
    // token, or its first character, goes the full way, so the call is read all the same.
    const text = `<think>First, a long thought.${call('a')}Then more.</think>Done.`;
    for (const dialect of ['kimi-k2', 'auto'] as const) {
      const whole = parse(text, { dialect });
      expect(whole.calls.map((c) => c.toolName)).toEqual(['a']);
      for (let size = 1; size <= 24; size++) {
        const chunks = Array.from({ length: Math.ceil(text.length / size) }, (_, k) =>
          text.slice(k * size, (k + 1) * size),
        );
        expect(feedChunks(chunks, { dialect }).result, `${dialect}, ${size}`).toEqual(whole);
      }
    }
  });
});

describe('FireFunction v2 and Phi-4-mini (functools)', () => {
  const functools = { dialect: 'functools' } as const;

  it("functools[…] after the reply's text, as the FireFunction v2 template writes it", () => {
    // The template's own line: content, a space, then the list (no closing marker).
    const text =
      'I will look. functools[{"name": "get_weather", "arguments": {"city": "Zürich 🎉"}}, {"name": "now", "arguments": {}}]';
    const inAuto = readCharByChar(text, { dialect: 'auto' });
    // Not in auto (docs/dialects.md): the word costs auto's prose path a third of its speed.
    expect([inAuto.calls, inAuto.text]).toEqual([[], text]);
    for (const dialect of ['functools'] as const) {
      const { calls, text: prose, errors, warnings } = readCharByChar(text, { dialect });
      expect(errors).toEqual([]);
      expect(warnings).toEqual([]);
      expect(calls.map((c) => [c.format, c.toolName, { ...c.arguments }])).toEqual([
        ['functools', 'get_weather', { city: 'Zürich 🎉' }],
        ['functools', 'now', {}],
      ]);
      expect(prose).toBe('I will look. ');
    }
  });

  it('a value may hold functools[, a ] and code with < and &; an empty value is a value', () => {
    const code = 'x = functools[{"name": "f"}] if a < b && c else "]"';
    const text = `functools[\n  {"name": "write_file", "arguments": {"path": "a.py", "content": ${JSON.stringify(code)}, "note": ""}}\n]\nDone.`;
    const { calls, text: prose, errors } = readCharByChar(text, functools);
    expect(errors).toEqual([]);
    expect(calls.map((c) => ({ ...c.arguments }))).toEqual([
      { path: 'a.py', content: code, note: '' },
    ]);
    expect(prose).toBe('\nDone.');
  });

  it('a word start is seen across a held-back chunk (found by the family-grammar sampler)', () => {
    // `<'` is held back (a tag may begin), and emitted whole: the `'` before `functools` is
    // in the buffer, not before it.
    const chunks = ['r', "<'", 'funct', 'ools[{"name": "f", "arguments": {}}]'];
    const calls: string[] = [];
    const parser = createParser({
      dialect: 'functools',
      onEvent: (e) => {
        if (e.type === 'tool-end') calls.push(e.call.toolName);
      },
    });
    for (const chunk of chunks) parser.feed(chunk);
    parser.end();
    expect(calls).toEqual(['f']);
    expect(readCharByChar(chunks.join(''), functools).calls.map((c) => c.toolName)).toEqual(['f']);
  });

  it('the word functools in prose or code is text', () => {
    const text =
      'Use functools.partial here.\nimport functools\nfunctools[0] is no call, nor functools [ x ].\nmy_functools[{"name": "f", "arguments": {}}] is another word.\n';
    for (const dialect of ['functools', 'auto'] as const) {
      const result = readCharByChar(text, { dialect });
      expect(result.calls).toEqual([]);
      expect(result.errors).toEqual([]);
      expect(result.text).toBe(text);
    }
  });

  it('sloppy JSON is read as meant, with a warning; an empty list is text', () => {
    const sloppy = readCharByChar("functools[{'name': 'f', 'arguments': {'a': 'x',},}]", functools);
    expect(sloppy.calls.map((c) => [c.toolName, { ...c.arguments }])).toEqual([['f', { a: 'x' }]]);
    expect(sloppy.warnings.map((w) => w.code)).toEqual(['repaired-json']);
    const empty = readCharByChar('functools[] This is just text', functools);
    expect(empty.calls).toEqual([]);
    expect(empty.text).toBe('functools[] This is just text');
    expect(empty.errors).toEqual([]);
  });

  it('a list cut short is an error, never a call', () => {
    const cut = readCharByChar('functools[{"name": "func", "arguments": {"a": "hal', functools);
    expect(cut.calls).toEqual([]);
    expect(cut.errors.map((e) => e.code)).toEqual(['incomplete-tool-call']);
  });
});

describe('Apertus (the tool name as the key)', () => {
  const apertus = { dialect: 'apertus' } as const;

  it('<|tools_prefix|>[{"name": {…}}, …]<|tools_suffix|>, thinking in <|inner_prefix|>', () => {
    const text =
      '<|inner_prefix|>Check both.<|inner_suffix|>Sure. <|tools_prefix|>[{"get_weather": {"city": "Zürich 🎉", "days": 3}}, {"now": {}}]<|tools_suffix|>Done.';
    for (const dialect of ['apertus', 'auto'] as const) {
      const { calls, text: prose, thinking, errors, warnings } = readCharByChar(text, { dialect });
      expect(errors).toEqual([]);
      expect(warnings).toEqual([]);
      expect(calls.map((c) => [c.format, c.toolName, { ...c.arguments }])).toEqual([
        ['apertus', 'get_weather', { city: 'Zürich 🎉', days: 3 }],
        ['apertus', 'now', {}],
      ]);
      expect(thinking).toEqual(['Check both.']);
      expect(prose).toBe('Sure. Done.');
    }
  });

  it('a value may hold the list\'s brackets, a "name" key, code with < and &, and be empty', () => {
    const code = 'if (a < b && c) { s = [{"name": {"x": "]}"}}]; }';
    const text = `<|tools_prefix|>[{"write_file": {"path": "a.ts", "content": ${JSON.stringify(code)}, "name": "", "n": [1, {"k": "}"}]}}]<|tools_suffix|>`;
    const { calls, errors } = readCharByChar(text, apertus);
    expect(errors).toEqual([]);
    expect(calls.map((c) => [c.toolName, { ...c.arguments }])).toEqual([
      ['write_file', { path: 'a.ts', content: code, name: '', n: [1, { k: '}' }] }],
    ]);
  });

  it('the name streams before the arguments, and a string argument while it is written', () => {
    const events: string[] = [];
    const parser = createParser({
      ...apertus,
      onEvent: (e) => {
        if (e.type === 'tool-name') events.push(`name ${e.toolName}`);
        if (e.type === 'argument-delta') events.push(`delta ${e.text}`);
        if (e.type === 'tool-end') events.push('end');
      },
    });
    parser.feed('<|tools_prefix|>[{"write_file": {"content": "hello ');
    parser.feed('world"}}]<|tools_suffix|>');
    parser.end();
    expect(events[0]).toBe('name write_file');
    expect(events.filter((e) => e.startsWith('delta')).join('|')).toContain('delta hello');
    expect(events.at(-1)).toBe('end');
  });

  it('a list complete but for <|tools_suffix|> (or its `]` too) is a call, with a warning; a list cut short is not', () => {
    for (const complete of [
      '[{"get_weather": {"city": "Paris"}}]',
      '[{"get_weather": {"city": "Paris"}}',
    ]) {
      const unclosed = readCharByChar(`<|tools_prefix|>${complete}`, apertus);
      expect(unclosed.calls.map((c) => c.toolName)).toEqual(['get_weather']);
      expect(unclosed.warnings.map((w) => w.code)).toEqual(['unclosed-call-at-end']);
    }
    for (const cutShort of [
      '[{"get_weather": {"city": "Paris"}},',
      '[{"get_weather": {"city": "Paris"}',
    ]) {
      const cut = readCharByChar(`<|tools_prefix|>${cutShort}`, apertus);
      expect(cut.calls).toEqual([]);
      expect(cut.errors.map((e) => e.code)).toEqual(['incomplete-tool-call']);
    }
  });

  it('a call object with no key, two keys, or arguments that are no object is no call', () => {
    for (const [body, code] of [
      ['[{}]', 'missing-tool-name'],
      ['[{"f": {"a": 1}, "g": {}}]', 'invalid-json'],
      ['[{"f": 3}]', 'invalid-json'],
    ] as const) {
      const text = `<|tools_prefix|>${body}<|tools_suffix|>`;
      const result = readCharByChar(text, apertus);
      expect(result.calls, body).toEqual([]);
      expect(
        result.errors.map((e) => e.code),
        body,
      ).toEqual([code]);
      expect(result.text, body).toBe(text);
    }
  });
});

describe('xLAM (a bare JSON list of calls)', () => {
  const xlam = { dialect: 'xlam' } as const;
  const list =
    '[{"name": "get_weather", "arguments": {"city": "Zürich 🎉", "days": 3}}, {"name": "now", "arguments": {}}]';
  const expected = [
    ['xlam', 'get_weather', { city: 'Zürich 🎉', days: 3 }],
    ['xlam', 'now', {}],
  ];
  const callsOf = (r: ReturnType<typeof parse>) =>
    r.calls.map((c) => [c.format, c.toolName, { ...c.arguments }]);

  it('the reply is the list, as its template writes a turn that calls', () => {
    const result = readCharByChar(list, xlam);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(callsOf(result)).toEqual(expected);
    expect(result.text).toBe('');
  });

  it('the list in a ```json fence, on a line of its own, or after thinking', () => {
    const fenced = readCharByChar(`I'll help you with that.\n\`\`\`json\n${list}\n\`\`\``, xlam);
    expect(callsOf(fenced)).toEqual(expected);
    expect(fenced.text).toBe("I'll help you with that.\n```json\n\n```");
    const line = readCharByChar(`Checking both.\n${list}\nDone.`, xlam);
    expect(callsOf(line)).toEqual(expected);
    expect(line.text).toBe('Checking both.\n\nDone.');
    const thought = readCharByChar(`<think>I'll help you with that.</think>${list}`, xlam);
    expect(callsOf(thought)).toEqual(expected);
    expect(thought.thinking).toEqual(["I'll help you with that."]);
  });

  it('a value may hold brackets, "name" keys, code with < and &, and be empty', () => {
    const code = 'if (a < b && c) { x = [{"name": "f", "arguments": {}}]; } // ]';
    const text = `[{"name": "write_file", "arguments": {"path": "a.ts", "content": ${JSON.stringify(code)}, "note": ""}}]`;
    const { calls, errors } = readCharByChar(text, xlam);
    expect(errors).toEqual([]);
    expect(calls.map((c) => ({ ...c.arguments }))).toEqual([
      { path: 'a.ts', content: code, note: '' },
    ]);
  });

  it('a list of data, Markdown, numbers or bracketed thinking is no call', () => {
    const data = readCharByChar('[{"name": "Ada", "age": 3}]\n', xlam);
    expect(data.calls).toEqual([]);
    expect(data.text).toBe('[{"name": "Ada", "age": 3}]\n');
    expect(data.errors.map((e) => e.code)).toEqual(['missing-tool-name']);
    const prose = readCharByChar('See [the docs](http://x).\n[1, 2, 3]\n[plan it]\n', xlam);
    expect(prose.calls).toEqual([]);
    expect(prose.errors).toEqual([]);
    // A fence whose first line is something else is code: the list in it is text.
    const code = `\`\`\`json\n{"example": true}\n${list}\n\`\`\`\n`;
    expect(readCharByChar(code, xlam).calls).toEqual([]);
  });

  it('auto does not read a bare list: a reply of JSON data is no call of any family', () => {
    for (const text of [list, `Here:\n${list}\nok`, `\`\`\`json\n${list}\n\`\`\``]) {
      const result = readCharByChar(text, { dialect: 'auto' });
      expect(result.calls, text).toEqual([]);
      expect(result.errors, text).toEqual([]);
    }
  });

  it('sloppy JSON is read as meant, with a warning; a list cut short is no call', () => {
    for (const text of [
      "[{'name': 'f', 'arguments': {'a': 'x',},}]",
      '[{"name": "f", "arguments": {"a": "x",},}]',
    ]) {
      const sloppy = readCharByChar(text, xlam);
      expect(
        sloppy.calls.map((c) => [c.toolName, { ...c.arguments }]),
        text,
      ).toEqual([['f', { a: 'x' }]]);
      expect(
        sloppy.warnings.map((w) => w.code),
        text,
      ).toEqual(['repaired-json']);
    }
    const cut = readCharByChar('[{"name": "f", "arguments": {"a": "hal', xlam);
    expect(cut.calls).toEqual([]);
    expect(cut.errors.map((e) => e.code)).toEqual(['incomplete-tool-call']);
  });
});

describe('GLM replies logged escaped (sglang test_array_argument_with_escaped_json)', () => {
  it('values of a reply escaped as in a JSON string are unescaped as they stream, with the warning', () => {
    const text =
      '<tool_call>write\\n<arg_key>content</arg_key>\\n<arg_value>line 1\\nsaid \\"hi\\" \\\\ a < b && c \\u00e9</arg_value>\\n</tool_call>';
    const whole = readCharByChar(text, { dialect: 'glm' });
    expect(whole.calls.map((c) => ({ ...c.arguments }))).toEqual([
      { content: 'line 1\nsaid "hi" \\ a < b && c é' },
    ]);
    // Each escaped separator says so (the call's header, the value's opening, the close).
    expect(new Set(whole.warnings.map((w) => w.code))).toEqual(new Set(['stray-text']));
    expect(whole.warnings[0].message).toMatch(/values unescaped/);
    // The same in 1-character chunks: an escape cut anywhere waits for its rest.
    const calls: unknown[] = [];
    const parser = createParser({
      dialect: 'glm',
      onEvent: (e) => {
        if (e.type === 'tool-end') calls.push({ ...e.call.arguments });
      },
    });
    for (const c of text) parser.feed(c);
    parser.end();
    expect(calls).toEqual([{ content: 'line 1\nsaid "hi" \\ a < b && c é' }]);
  });

  it('a reply written plainly keeps its backslashes', () => {
    const text =
      '<tool_call>write\n<arg_key>content</arg_key>\n<arg_value>C:\\Users\\n \\"q\\"</arg_value>\n</tool_call>';
    expect(readCharByChar(text, { dialect: 'glm' }).calls[0].arguments).toEqual({
      content: 'C:\\Users\\n \\"q\\"',
    });
  });
});

describe("Hermes' call in the wrappers Qwen 2.5 and Hermes models write (#26)", () => {
  const hermes = { dialect: 'hermes' } as const;
  // A value with the wrappers' own closing tags, code with < and &, unicode, and an empty one.
  const code = 'if (a < b && c) { s = "</response></json></function></tools>```"; }';
  const args = { path: 'a.ts', content: code, note: 'Zürich 🎉', empty: '' };
  const call = JSON.stringify({ name: 'write_file', arguments: args });
  const callsOf = (r: ReturnType<typeof parse>) =>
    r.calls.map((c) => [c.format, c.toolName, { ...c.arguments }]);
  const wrappers = ['function_call', 'tools', 'response', 'json', 'xml', 'JSON', 'tool'];

  it('<tag>{"name": …, "arguments": …}</tag> for each tag llama.cpp accepts, with a warning', () => {
    for (const tag of wrappers) {
      const text = `<${tag}>\n  ${call}\n</${tag}>`;
      const result = readCharByChar(text, hermes);
      expect(result.errors, text).toEqual([]);
      expect(callsOf(result), text).toEqual([['hermes', 'write_file', args]]);
      expect(result.text, text).toBe('');
      expect(result.calls[0].raw, text).toBe(text);
      expect(
        result.warnings.map((w) => [w.code, w.callId, w.offset]),
        text,
      ).toEqual([['missing-wrapper', 'call_0', 0]]);
      expect(result.warnings[0].message, text).toContain('<tool_call>');
    }
  });

  it("a wrapper after the reply's text, mid-line, and several one after another", () => {
    const text = `Let me write it. <response>${call}</response>\n<json>{"name": "now", "arguments": {}}</json>\nDone.`;
    const result = readCharByChar(text, hermes);
    expect(result.errors).toEqual([]);
    expect(callsOf(result)).toEqual([
      ['hermes', 'write_file', args],
      ['hermes', 'now', {}],
    ]);
    expect(result.text).toBe('Let me write it. \n\nDone.');
    expect(result.warnings.map((w) => [w.code, w.callId])).toEqual([
      ['missing-wrapper', 'call_0'],
      ['missing-wrapper', 'call_1'],
    ]);
  });

  it('<function=name>{arguments}</function> and <function name="name">{arguments}</function>', () => {
    const body = JSON.stringify(args);
    for (const text of [
      `<function=write_file>${body}</function>`,
      `<function name="write_file">\n${body}\n</function>`,
      `I'll write it.<function=write_file>${body}</function>`,
    ]) {
      const result = readCharByChar(text, hermes);
      expect(result.errors, text).toEqual([]);
      expect(callsOf(result), text).toEqual([['hermes', 'write_file', args]]);
      expect(
        result.warnings.map((w) => [w.code, w.callId]),
        text,
      ).toEqual([['missing-wrapper', 'call_0']]);
    }
  });

  it('a fence holding only the call object, and the object alone on its line', () => {
    for (const [text, prose] of [
      [`\`\`\`json\n${call}\n\`\`\``, '```json\n\n```'],
      [`\`\`\`xml\n<response>\n${call}\n</response>\n\`\`\``, '```xml\n\n```'],
      [`Here it is:\n\`\`\`\n  ${call}\n\`\`\`\nDone.`, 'Here it is:\n```\n  \n```\nDone.'],
      [`This writes it:\n${call}`, 'This writes it:\n'],
      [`{\n  "name": "write_file", "arguments": ${JSON.stringify(args)}}`, ''],
    ]) {
      const result = readCharByChar(text, hermes);
      expect(result.errors, text).toEqual([]);
      expect(callsOf(result), text).toEqual([['hermes', 'write_file', args]]);
      expect(result.text, text).toBe(prose);
      expect(
        result.warnings.map((w) => w.code),
        text,
      ).toEqual(['missing-wrapper']);
    }
  });

  it('what is no Hermes call stays text: other JSON, other content, a name without arguments', () => {
    for (const text of [
      '<response>Hello</response>',
      '<json>{"a": 1}</json>',
      '<tools>\n{"type": "function", "function": {"name": "f"}}\n</tools>',
      'Call <function=f> with JSON.',
      '```json\n{"example": true}\n```',
      '```json\n{}```',
    ]) {
      const result = readCharByChar(text, hermes);
      expect(result.calls, text).toEqual([]);
      expect(result.errors, text).toEqual([]);
      expect(result.warnings, text).toEqual([]);
      expect(result.text, text).toBe(text);
    }
    // Outside <tool_call> an object needs its arguments (as in llama3-json): data, its text kept.
    for (const text of ['{"name": "Ada", "age": 3}\n', '<json>{"name": "Ada", "age": 3}</json>']) {
      const data = readCharByChar(text, hermes);
      expect(data.calls, text).toEqual([]);
      expect(data.text, text).toBe(text);
      expect(
        data.errors.map((e) => e.code),
        text,
      ).toEqual(['missing-tool-name']);
    }
  });

  it('a wrapper closed by something else, or cut short, is no call; complete but unclosed is one', () => {
    const other = readCharByChar(`<response>${call}</json> and more`, hermes);
    expect(other.calls).toEqual([]);
    expect(other.errors.map((e) => e.code)).toEqual(['invalid-json']);
    const cut = readCharByChar('<response>{"name": "f", "arguments": {"a": "hal', hermes);
    expect(cut.calls).toEqual([]);
    expect(cut.errors.map((e) => e.code)).toEqual(['incomplete-tool-call']);
    const unclosed = readCharByChar(`<response>${call}`, hermes);
    expect(callsOf(unclosed)).toEqual([['hermes', 'write_file', args]]);
    expect(unclosed.warnings.map((w) => w.code)).toEqual([
      'unclosed-call-at-end',
      'missing-wrapper',
    ]);
  });

  it('auto reads the unambiguous wrappers at a line start; <tools>, fences, bare objects and <function=…>{ stay text', () => {
    const auto = { dialect: 'auto' } as const;
    for (const tag of ['function_call', 'response', 'json', 'xml', 'JSON']) {
      const text = `Sure.\n<${tag}>\n${call}\n</${tag}>`;
      const result = readCharByChar(text, auto);
      expect(callsOf(result), text).toEqual([['hermes', 'write_file', args]]);
      expect(
        result.warnings.map((w) => w.code),
        text,
      ).toEqual(['missing-wrapper']);
    }
    const named = readCharByChar(
      `<function name="write_file">${JSON.stringify(args)}</function>`,
      auto,
    );
    expect(callsOf(named)).toEqual([['hermes', 'write_file', args]]);
    for (const text of [
      // Hermes' and Qwen's prompts list the tools in <tools>: a definition is no call.
      `<tools>\n{"name": "write_file", "parameters": {"type": "object"}}\n</tools>`,
      `\`\`\`json\n${call}\n\`\`\``,
      call,
      `<function=write_file>${JSON.stringify(args)}</function>`,
      // Mid-line, a plain tag is prose in auto.
      `Wrap it as <response>${call}</response> please.`,
    ]) {
      const result = readCharByChar(text, auto);
      expect(result.calls, text).toEqual([]);
      expect(result.errors, text).toEqual([]);
      expect(result.text, text).toBe(text);
    }
  });
});

describe('InternLM 2 / 3 (<|action_start|><|plugin|>)', () => {
  const internlm = { dialect: 'internlm' } as const;
  const callsOf = (r: ReturnType<typeof parse>) =>
    r.calls.map((c) => [c.format, c.toolName, { ...c.arguments }]);

  it('text, then each call in its own block, "parameters" or "arguments" (internlm, auto)', () => {
    const code = 'if (a < b && c) { s = "</tool_call>]}"; }';
    const text = `Sure, I will check.<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Zürich 🎉", "days": 3}}<|action_end|><|action_start|><|plugin|>\n{"name": "write_file", "arguments": {"path": "a.ts", "content": ${JSON.stringify(code)}, "note": ""}}<|action_end|>`;
    for (const dialect of ['internlm', 'auto'] as const) {
      const result = readCharByChar(text, { dialect });
      expect(result.errors).toEqual([]);
      expect(result.warnings).toEqual([]);
      expect(callsOf(result)).toEqual([
        ['internlm', 'get_weather', { city: 'Zürich 🎉', days: 3 }],
        ['internlm', 'write_file', { path: 'a.ts', content: code, note: '' }],
      ]);
      expect(result.text).toBe('Sure, I will check.');
    }
  });

  it('the code interpreter, and the markers without a call, stay text', () => {
    for (const text of [
      '<|action_start|><|interpreter|>\n```python\nprint(1)\n```<|action_end|>',
      'I use <|action_start|> tokens.',
    ]) {
      const result = readCharByChar(text, internlm);
      expect(result.calls, text).toEqual([]);
      expect(result.errors, text).toEqual([]);
      expect(result.text, text).toBe(text);
    }
  });

  it('a call cut short, or cut by its close token inside a string, is no call; unclosed at the end is one', () => {
    const cut = readCharByChar(
      '<|action_start|><|plugin|>{"name": "func", "parameters": {',
      internlm,
    );
    expect(cut.calls).toEqual([]);
    expect(cut.errors.map((e) => e.code)).toEqual(['incomplete-tool-call']);
    const token = readCharByChar(
      '<|action_start|><|plugin|>{"name": "f", "parameters": {"a": "x<|action_end|>y"}}<|action_end|>',
      internlm,
    );
    expect(token.calls).toEqual([]);
    expect(token.errors).toHaveLength(1);
    const notJson = readCharByChar('<|action_start|><|plugin|>not json<|action_end|>', internlm);
    expect(notJson.calls).toEqual([]);
    expect(notJson.text).toBe('<|action_start|><|plugin|>not json<|action_end|>');
    const unclosed = readCharByChar(
      '<|action_start|><|plugin|>\n{"name": "f", "parameters": {"a": 1}}',
      internlm,
    );
    expect(callsOf(unclosed)).toEqual([['internlm', 'f', { a: 1 }]]);
    expect(unclosed.warnings.map((w) => w.code)).toEqual(['unclosed-call-at-end']);
  });
});

describe('MiniCPM3 (Python calls in a ```python fence)', () => {
  const minicpm = { dialect: 'minicpm3' } as const;
  const fenced = (calls: string) =>
    `<|tool_call_start|>\n\`\`\`python\n${calls}\n\`\`\`\n<|tool_call_end|>\n`;

  it('<|thought_start|>…<|thought_end|>, then the calls one a line in the fence, then text', () => {
    const text = `<|thought_start|>\nCheck both.\n<|thought_end|>\n${fenced('get_weather(city="Zürich 🎉",days=3)\nnow()')}Done.`;
    for (const dialect of ['minicpm3', 'auto'] as const) {
      const { calls, text: prose, thinking, errors, warnings } = readCharByChar(text, { dialect });
      expect(errors).toEqual([]);
      expect(warnings).toEqual([]);
      expect(calls.map((c) => [c.format, c.toolName, { ...c.arguments }])).toEqual([
        ['minicpm3', 'get_weather', { city: 'Zürich 🎉', days: 3 }],
        ['minicpm3', 'now', {}],
      ]);
      expect(thinking.map((t) => t.trim())).toEqual(['Check both.']);
      expect(prose.trim()).toBe('Done.');
    }
  });

  it('a value may hold the fence, the close token, code with < and &, and be empty', () => {
    const code = 'if (a < b && c) { s = "```\\n<|tool_call_end|>"; }';
    const text = fenced(
      `write_file(path="a.ts",content=${JSON.stringify(code)},note="",flags={"x": [1, true, null]})`,
    );
    const { calls, errors, warnings } = readCharByChar(text, minicpm);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    expect(calls.map((c) => [c.toolName, { ...c.arguments }])).toEqual([
      ['write_file', { path: 'a.ts', content: code, note: '', flags: { x: [1, true, null] } }],
    ]);
  });

  it('the name streams before the arguments, and a string argument while it is written', () => {
    const events: string[] = [];
    const parser = createParser({
      ...minicpm,
      onEvent: (e) => {
        if (e.type === 'tool-name') events.push(`name ${e.toolName}`);
        if (e.type === 'argument-delta') events.push(`delta ${e.text}`);
        if (e.type === 'tool-end') events.push('end');
      },
    });
    parser.feed('<|tool_call_start|>\n```python\nwrite_file(content="hello ');
    expect(events).toEqual(['name write_file', 'delta hello ']);
    parser.feed('world")\n```\n<|tool_call_end|>');
    parser.end();
    expect(events.at(-1)).toBe('end');
  });

  it('in auto, <|tool_call_start|> followed by a fence is MiniCPM3, by [ LFM2', () => {
    const text = `${fenced('f(a=1)')}<|tool_call_start|>[g(b=2)]<|tool_call_end|>`;
    const { calls, errors } = readCharByChar(text, { dialect: 'auto' });
    expect(errors).toEqual([]);
    expect(calls.map((c) => [c.format, c.toolName])).toEqual([
      ['minicpm3', 'f'],
      ['lfm2', 'g'],
    ]);
  });

  it('calls without their fence, or without the fence closed, are read with a warning', () => {
    const bare = readCharByChar('<|tool_call_start|>\nf(a="x")\n<|tool_call_end|>', minicpm);
    expect(bare.calls.map((c) => [c.toolName, { ...c.arguments }])).toEqual([['f', { a: 'x' }]]);
    expect(bare.warnings.map((w) => w.code)).toEqual(['missing-wrapper']);
    const open = readCharByChar(
      '<|tool_call_start|>\n```python\nf(a="x")\n<|tool_call_end|>',
      minicpm,
    );
    expect(open.calls.map((c) => c.toolName)).toEqual(['f']);
    expect(open.warnings.map((w) => w.code)).toEqual(['missing-wrapper']);
  });

  it('a block complete but for <|tool_call_end|> is a call, with a warning; a call cut short is not', () => {
    const unclosed = readCharByChar('<|tool_call_start|>\n```python\nf(a="x")\n```', minicpm);
    expect(unclosed.calls.map((c) => c.toolName)).toEqual(['f']);
    expect(unclosed.warnings.map((w) => w.code)).toEqual(['unclosed-call-at-end']);
    const cut = readCharByChar('<|tool_call_start|>\n```python\nf(a="x', minicpm);
    expect(cut.calls).toEqual([]);
    expect(cut.errors.map((e) => e.code)).toEqual(['incomplete-tool-call']);
  });

  it('a fence of no call, or text after the fence inside the block, is no call', () => {
    for (const text of [
      '<|tool_call_start|>\n```python\n```\n<|tool_call_end|>',
      '<|tool_call_start|>\n```python\nf(a=1)\n```\nmore\n<|tool_call_end|>',
    ]) {
      const result = readCharByChar(text, minicpm);
      expect(result.calls, text).toEqual([]);
      expect(result.errors.length, text).toBe(1);
      expect(result.text, text).toBe(text);
    }
  });
});

describe("a broken bare Hermes object runs no further than Hermes' next block (found by the e2e proxy test)", () => {
  it('the object fails where a line opens <tool_call>, and that call is read, on every chunking', () => {
    const text =
      'Sure.\n{"name": "ping", "arguments": "patch""level":]false\n<tool_call>\n{"name": "edit", "arguments": {"path": "a <b> & c"}}\n</tool_call>';
    const whole = readCharByChar(text, { dialect: 'hermes' });
    expect(whole.calls.map((c) => [c.toolName, { ...c.arguments }])).toEqual([
      ['edit', { path: 'a <b> & c' }],
    ]);
    expect(whole.errors.map((e) => e.code)).toEqual(['invalid-json']);
    for (const size of [1, 3, 7]) {
      const names: string[] = [];
      const parser = createParser({
        dialect: 'hermes',
        onEvent: (e) => {
          if (e.type === 'tool-end') names.push(e.call.toolName);
        },
      });
      for (let i = 0; i < text.length; i += size) parser.feed(text.slice(i, i + size));
      parser.end();
      expect(names, `chunks of ${size}`).toEqual(['edit']);
    }
  });
});

describe('a value that writes a parameter the call already has (vLLM test_content_with_real_param_name_literal)', () => {
  it("is the value's text, not a parameter left open; a new parameter still ends an unclosed value", () => {
    const literal =
      '<tool_call>\n<function=write_file>\n<parameter=path>\nfixture.py\n</parameter>\n<parameter=content>\ndoc = """\n<parameter=path>\nliteral/value\n</parameter>\n"""\n</parameter>\n</function>\n</tool_call>';
    const read1 = readCharByChar(literal, { dialect: 'qwen3-coder' });
    expect(read1.calls.map((c) => ({ ...c.arguments }))).toEqual([
      {
        path: 'fixture.py',
        content: 'doc = """\n<parameter=path>\nliteral/value\n</parameter>\n"""',
      },
    ]);
    expect(read1.warnings).toEqual([]);
    const unclosed =
      '<tool_call>\n<function=write_file>\n<parameter=content>\nabc\n<parameter=path>\na.txt\n</parameter>\n</function>\n</tool_call>';
    const read2 = readCharByChar(unclosed, { dialect: 'qwen3-coder' });
    expect(read2.calls.map((c) => ({ ...c.arguments }))).toEqual([
      { content: 'abc', path: 'a.txt' },
    ]);
    expect(read2.warnings.map((w) => w.code)).toEqual(['unclosed-element']);
  });
});

describe("DeepSeek V3.2's DSML (<｜DSML｜function_calls>)", () => {
  const dsml = { dialect: 'deepseek-dsml' } as const;
  const callsOf = (r: ReturnType<typeof parse>) =>
    r.calls.map((c) => [c.format, c.toolName, { ...c.arguments }]);
  const D = '｜DSML｜';
  const block = (wrapper: string, body: string) => `<${D}${wrapper}>\n${body}</${D}${wrapper}>`;

  it("text, then calls whose values hold the form's own closing tags, <, & and unicode (deepseek-dsml, auto)", () => {
    const code = `if (a < b && c) { s = "</${D}parameter>\\n</${D}invoke>"; }`;
    const text = `Sure, I will check.\n\n${block(
      'function_calls',
      `<${D}invoke name="write_file">\n<${D}parameter name="path" string="true">src/ünï 🎉.ts</${D}parameter>\n<${D}parameter name="content" string="true">${code}</${D}parameter>\n<${D}parameter name="note" string="true"></${D}parameter>\n</${D}invoke>\n<${D}invoke name="run">\n<${D}parameter name="timeout" string="false">30</${D}parameter>\n<${D}parameter name="filters" string="false">{"lang": "ts"}</${D}parameter>\n</${D}invoke>\n`,
    )}`;
    for (const dialect of ['deepseek-dsml', 'auto'] as const) {
      const result = readCharByChar(text, { dialect });
      expect(result.errors).toEqual([]);
      expect(result.warnings).toEqual([]);
      // Values are text as written; a schema types `string="false"` ones (as MiniMax-M2's).
      expect(callsOf(result)).toEqual([
        ['deepseek-dsml', 'write_file', { path: 'src/ünï 🎉.ts', content: code, note: '' }],
        ['deepseek-dsml', 'run', { timeout: '30', filters: '{"lang": "ts"}' }],
      ]);
      expect(result.text).toBe('Sure, I will check.\n\n');
    }
  });

  it("DeepSeek V4's <｜DSML｜tool_calls>, a parameter without string=, and single quotes", () => {
    const text = block(
      'tool_calls',
      `<${D}invoke name='search'>\n<${D}parameter name="query">tool calls</${D}parameter>\n<${D}parameter  name = 'limit'  string="false" >5</${D}parameter>\n</${D}invoke>\n`,
    );
    for (const dialect of ['deepseek-dsml', 'auto'] as const) {
      const result = readCharByChar(text, { dialect });
      expect(result.errors).toEqual([]);
      expect(result.warnings).toEqual([]);
      expect(callsOf(result)).toEqual([
        ['deepseek-dsml', 'search', { query: 'tool calls', limit: '5' }],
      ]);
    }
  });

  it('a block missing its final close is a call with a warning; a call cut inside a value is none', () => {
    const unclosed = readCharByChar(
      `<${D}function_calls>\n<${D}invoke name="get_time">\n</${D}invoke>\n`,
      dsml,
    );
    expect(callsOf(unclosed)).toEqual([['deepseek-dsml', 'get_time', {}]]);
    expect(unclosed.warnings.map((w) => w.code)).toEqual(['unclosed-call-at-end']);
    const cut = readCharByChar(
      `<${D}function_calls>\n<${D}invoke name="f">\n<${D}parameter name="a" string="true">x`,
      dsml,
    );
    expect(cut.calls).toEqual([]);
    expect(cut.errors.map((e) => e.code)).toEqual(['incomplete-tool-call']);
  });

  it("prose about the markers, and Anthropic's <function_calls>, are no DSML call", () => {
    for (const text of [
      '<｜DSM some regular text',
      `DeepSeek writes ${D}invoke tags.`,
      '<function_calls>\n<invoke name="f">\n</invoke>\n</function_calls>',
    ]) {
      const result = readCharByChar(text, dsml);
      expect(result.calls, text).toEqual([]);
      expect(result.errors, text).toEqual([]);
      expect(result.text, text).toBe(text);
    }
  });
});

describe("DSML calls without arguments or wrapper, and DeepSeek V4.1's spaced DSML (#43)", () => {
  const callsOf = (r: ReturnType<typeof parse>) =>
    r.calls.map((c) => [c.format, c.toolName, { ...c.arguments }]);
  const D = '｜DSML｜';
  const S = '｜DSML｜ ';
  const G = '｜GCML｜';

  it('a self-closing invoke is a call without arguments, alone or beside others (SGLang test_self_closing_*)', () => {
    const text = `<${D}tool_calls>\n<${D}invoke name="get_weather">\n<${D}parameter name="location" string="true">NYC</${D}parameter>\n</${D}invoke>\n<${D}invoke name="get_time" />\n</${D}tool_calls>`;
    for (const dialect of ['deepseek-dsml', 'auto'] as const) {
      const result = readCharByChar(text, { dialect });
      expect(result.errors).toEqual([]);
      expect(result.warnings).toEqual([]);
      expect(callsOf(result)).toEqual([
        ['deepseek-dsml', 'get_weather', { location: 'NYC' }],
        ['deepseek-dsml', 'get_time', {}],
      ]);
      expect(result.text).toBe('');
    }
    for (const [dialect, text, format] of [
      ['deepseek-v41', `<${S}calls>\n<${S}invoke name="status"/>\n</${S}calls>`, 'deepseek-v41'],
      ['gigachat35', `<${G}tool_calls><${G}invoke name="now"/></${G}tool_calls>`, 'gigachat35'],
    ] as const) {
      const result = readCharByChar(text, { dialect });
      expect(result.warnings).toEqual([]);
      expect(callsOf(result)).toEqual([[format, text.includes('now') ? 'now' : 'status', {}]]);
    }
  });

  it('an invoke with no wrapper around it is a call with missing-wrapper, anywhere in a line', () => {
    const call = `<${D}invoke name="set_flag">\n<${D}parameter name="enabled" string="false">true</${D}parameter>\n</${D}invoke>`;
    for (const dialect of ['deepseek-dsml', 'auto'] as const) {
      const result = readCharByChar(`Setting it. ${call}\n<${D}invoke name="ping"/>\nDone.`, {
        dialect,
      });
      expect(result.errors).toEqual([]);
      expect(callsOf(result)).toEqual([
        ['deepseek-dsml', 'set_flag', { enabled: 'true' }],
        ['deepseek-dsml', 'ping', {}],
      ]);
      expect(result.warnings.map((w) => [w.code, w.message])).toEqual([
        ['missing-wrapper', `write the call inside <${D}tool_calls> … </${D}tool_calls>`],
        ['missing-wrapper', `write the call inside <${D}tool_calls> … </${D}tool_calls>`],
      ]);
      expect(result.text).toBe('Setting it. \n\nDone.');
    }
    const spaced = readCharByChar(
      `<${S}invoke name="f">\n<${S}parameter name="a" string="true">x</${S}parameter>\n</${S}invoke>`,
      {
        dialect: 'deepseek-v41',
      },
    );
    expect(callsOf(spaced)).toEqual([['deepseek-v41', 'f', { a: 'x' }]]);
    expect(spaced.warnings.map((w) => w.message)).toEqual([
      `write the call inside <${S}calls> … </${S}calls>`,
    ]);
    // The block's close a model still writes after it is the call's text (vLLM's V4 reader).
    const orphan = readCharByChar(`Checking.\n${call}</${D}tool_calls>`, {
      dialect: 'deepseek-dsml',
    });
    expect(callsOf(orphan)).toEqual([['deepseek-dsml', 'set_flag', { enabled: 'true' }]]);
    expect(orphan.text).toBe('Checking.\n');
    expect(orphan.calls[0].raw).toBe(`${call}</${D}tool_calls>`);
    const gcml = readCharByChar(`<${G}invoke name="f"></${G}invoke>`, { dialect: 'gigachat35' });
    expect(callsOf(gcml)).toEqual([['gigachat35', 'f', {}]]);
    expect(gcml.warnings.map((w) => w.code)).toEqual(['missing-wrapper']);
  });

  it('prose naming the invoke tag, without name=, stays text', () => {
    for (const dialect of ['deepseek-dsml', 'deepseek-v41', 'auto'] as const)
      for (const text of [
        `Write <${D}invoke> then its parameters.`,
        `<${S}invoke> opens a V4.1 call`,
        `<${D}invoke`,
      ]) {
        const result = readCharByChar(text, { dialect });
        expect(result.calls, text).toEqual([]);
        expect(result.errors, text).toEqual([]);
        expect(result.text, text).toBe(text);
      }
  });

  it("V4.1's spaced tags: its own closing tags, < & and unicode in values, in deepseek-v41 and auto", () => {
    const code = `if (a < b && c) { s = "</${S}parameter>\n</${S}invoke>"; t = "</${S}calls>"; }`;
    const text = `Let me check.\n\n<${S}calls>\n<${S}invoke name="write_file">\n<${S}parameter name="path" string="true">ünï 🎉.ts</${S}parameter>\n<${S}parameter name="content" string="true">${code}</${S}parameter>\n<${S}parameter name="note" string="true"></${S}parameter>\n</${S}invoke>\n<${S}invoke name="run">\n<${S}parameter name="timeout" string="false">30</${S}parameter>\n</${S}invoke>\n</${S}calls>`;
    for (const dialect of ['deepseek-v41', 'auto'] as const) {
      const result = readCharByChar(text, { dialect });
      expect(result.errors).toEqual([]);
      expect(result.warnings).toEqual([]);
      expect(callsOf(result)).toEqual([
        ['deepseek-v41', 'write_file', { path: 'ünï 🎉.ts', content: code, note: '' }],
        ['deepseek-v41', 'run', { timeout: '30' }],
      ]);
      expect(result.text).toBe('Let me check.\n\n');
    }
    // V4's unspaced tags are another spelling: deepseek-dsml's, not deepseek-v41's.
    const v4 = `<${D}tool_calls>\n<${D}invoke name="f">\n</${D}invoke>\n</${D}tool_calls>`;
    expect(readCharByChar(v4, { dialect: 'deepseek-v41' }).calls).toEqual([]);
    expect(
      callsOf(
        readCharByChar(`<${S}calls>\n<${S}invoke name="f">\n</${S}invoke>\n</${S}calls>`, {
          dialect: 'deepseek-dsml',
        }),
      ),
    ).toEqual([]);
  });
});

describe('GigaChat 3 / 3.1 (a `function call` turn, <|function_call|>)', () => {
  const gigachat = { dialect: 'gigachat' } as const;
  const callsOf = (r: ReturnType<typeof parse>) =>
    r.calls.map((c) => [c.format, c.toolName, { ...c.arguments }]);
  const HEAD = '<|message_sep|>\n\nfunction call<|role_sep|>\n';

  it('the reply, then its call as a turn of its own; 3.1 after <|function_call|> (gigachat, auto)', () => {
    const code = 'if (a < b && c) { s = "<|message_sep|>}"; }';
    const args = { path: 'ünï 🎉.ts', content: code, note: '', opts: { n: 3, on: true } };
    for (const head of [HEAD, '<|function_call|>'])
      for (const dialect of ['gigachat', 'auto'] as const) {
        const text = `I'll write it.${head}${JSON.stringify({ name: 'write_file', arguments: args })}`;
        const result = readCharByChar(text, { dialect });
        expect(result.errors).toEqual([]);
        expect(result.warnings).toEqual([]);
        expect(callsOf(result)).toEqual([['gigachat', 'write_file', args]]);
        expect(result.text).toBe("I'll write it.");
      }
  });

  it('another role after <|message_sep|>, and the words "function call", stay text', () => {
    for (const text of [
      'Hi.<|message_sep|>\n\nuser<|role_sep|>\n{"name": "f", "arguments": {}}',
      'A function call<|role_sep|> is how it calls.',
    ]) {
      const result = readCharByChar(text, gigachat);
      expect(result.calls, text).toEqual([]);
      expect(result.errors, text).toEqual([]);
      expect(result.text, text).toBe(text);
    }
  });

  it('a call cut short, or no JSON, is no call: an error, its text kept', () => {
    const cut = readCharByChar(`${HEAD}{"name": "f", "arguments": {"a": "x`, gigachat);
    expect(cut.calls).toEqual([]);
    expect(cut.errors.map((e) => e.code)).toEqual(['incomplete-tool-call']);
    const notJson = readCharByChar(`${HEAD}not json`, gigachat);
    expect(notJson.calls).toEqual([]);
    expect(notJson.errors.map((e) => e.code)).toEqual(['invalid-json']);
    expect(notJson.text).toBe(`${HEAD}not json`);
  });
});

describe("LongCat-Flash-Chat (Hermes' JSON in <longcat_tool_call>)", () => {
  const longcat = { dialect: 'longcat' } as const;
  const callsOf = (r: ReturnType<typeof parse>) =>
    r.calls.map((c) => [c.format, c.toolName, { ...c.arguments }]);

  it("text, then calls whose values hold the form's own closing tag, <, & and unicode (longcat, auto)", () => {
    const code = 'if (a < b && c) { s = "</longcat_tool_call>"; }';
    const text = `Let me check.\n<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "Zürich 🎉", "days": 3}}\n</longcat_tool_call>\n<longcat_tool_call>{"name": "write_file", "arguments": {"path": "a.ts", "content": ${JSON.stringify(code)}, "note": ""}}</longcat_tool_call>`;
    for (const dialect of ['longcat', 'auto'] as const) {
      const result = readCharByChar(text, { dialect });
      expect(result.errors).toEqual([]);
      expect(result.warnings).toEqual([]);
      expect(callsOf(result)).toEqual([
        ['longcat', 'get_weather', { city: 'Zürich 🎉', days: 3 }],
        ['longcat', 'write_file', { path: 'a.ts', content: code, note: '' }],
      ]);
      expect(result.text).toBe('Let me check.\n\n');
    }
  });

  it('a list of calls in one block is read too', () => {
    const result = readCharByChar(
      '<longcat_tool_call>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": [1]}}]</longcat_tool_call>',
      longcat,
    );
    expect(callsOf(result)).toEqual([
      ['longcat', 'a', {}],
      ['longcat', 'b', { x: [1] }],
    ]);
  });

  it('a call cut short, or no JSON, is no call: an error, its text kept; unclosed at the end is one', () => {
    const cut = readCharByChar('<longcat_tool_call>{"name": "func", "arguments": {', longcat);
    expect(cut.calls).toEqual([]);
    expect(cut.errors.map((e) => e.code)).toEqual(['incomplete-tool-call']);
    const notJson = readCharByChar('Some text with <longcat_tool_call>invalid json', longcat);
    expect(notJson.calls).toEqual([]);
    expect(notJson.errors).toHaveLength(1);
    expect(notJson.text).toBe('Some text with <longcat_tool_call>invalid json');
    const unclosed = readCharByChar(
      '<longcat_tool_call>{"name": "f", "arguments": {"a": 1}}',
      longcat,
    );
    expect(callsOf(unclosed)).toEqual([['longcat', 'f', { a: 1 }]]);
    expect(unclosed.warnings.map((w) => w.code)).toEqual(['unclosed-call-at-end']);
  });

  it("in auto, a body that is no JSON (Flash-Lite's <longcat_arg_key> form) stays text", () => {
    const text =
      '<longcat_tool_call>search\n<longcat_arg_key>q</longcat_arg_key>\n<longcat_arg_value>x</longcat_arg_value>\n</longcat_tool_call>';
    const result = readCharByChar(text, { dialect: 'auto' });
    expect(result.calls).toEqual([]);
    expect(result.errors).toEqual([]);
    expect(result.text).toBe(text);
  });
});

describe("Step-3's <steptml:invoke> calls (<｜tool_calls_begin｜>)", () => {
  const step3 = { dialect: 'step3' } as const;
  const callsOf = (r: ReturnType<typeof parse>) =>
    r.calls.map((c) => [c.format, c.toolName, { ...c.arguments }]);
  const call = (name: string, params: Record<string, string>) =>
    `<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="${name}">${Object.entries(
      params,
    )
      .map(([k, v]) => `<steptml:parameter name="${k}">${v}</steptml:parameter>`)
      .join('')}</steptml:invoke><｜tool_call_end｜>`;
  const block = (...calls: string[]) =>
    `<｜tool_calls_begin｜>${calls.join('')}<｜tool_calls_end｜>`;

  it("text, then calls whose values hold the form's own closing tags, <, & and unicode (step3, auto)", () => {
    const code = 'if (a < b && c) { s = "</steptml:parameter></steptml:invoke>"; }';
    const text = `I will write it.\n\n${block(
      call('write_file', { path: 'src/ünï 🎉.ts', content: code, note: '' }),
      call('run', { command: 'ls -la' }),
    )}`;
    for (const dialect of ['step3', 'auto'] as const) {
      const result = readCharByChar(text, { dialect });
      expect(result.errors).toEqual([]);
      expect(result.warnings).toEqual([]);
      expect(callsOf(result)).toEqual([
        ['step3', 'write_file', { path: 'src/ünï 🎉.ts', content: code, note: '' }],
        ['step3', 'run', { command: 'ls -la' }],
      ]);
      expect(result.text).toBe('I will write it.\n\n');
    }
  });

  it('a call with no parameters, and newlines between the tokens, read too', () => {
    const text =
      '<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="refresh">\n</steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>';
    const result = readCharByChar(text, step3);
    expect(result.warnings).toEqual([]);
    expect(callsOf(result)).toEqual([['step3', 'refresh', {}]]);
  });

  it('a call without its `function<｜tool_sep｜>` is read with a warning', () => {
    const result = readCharByChar(
      block(
        '<｜tool_call_begin｜><steptml:invoke name="f"><steptml:parameter name="a">1</steptml:parameter></steptml:invoke><｜tool_call_end｜>',
      ),
      step3,
    );
    expect(callsOf(result)).toEqual([['step3', 'f', { a: '1' }]]);
    expect(result.warnings.map((w) => w.code)).toEqual(['stray-text']);
  });

  it("DeepSeek's tokens (with ▁) stay DeepSeek's; a call cut short is one, with a warning; no name is an error", () => {
    const cut = readCharByChar(
      '<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="func">',
      step3,
    );
    expect(callsOf(cut)).toEqual([['step3', 'func', {}]]);
    expect(cut.warnings.map((w) => w.code)).toEqual(['unclosed-call-at-end']);
    const unnamed =
      '<｜tool_calls_begin｜><｜tool_call_begin｜>code<｜tool_sep｜>print(1)<｜tool_call_end｜><｜tool_calls_end｜>';
    const failed = readCharByChar(unnamed, step3);
    expect(failed.calls).toEqual([]);
    expect(failed.errors.map((e) => e.code)).toEqual(['missing-tool-name']);
    expect(failed.text).toBe(unnamed);
    const deepseek = readCharByChar(
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": 1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
      { dialect: 'auto' },
    );
    expect(callsOf(deepseek)).toEqual([['deepseek', 'f', { a: 1 }]]);
  });
});

describe('arguments written as a JSON string holding the object (issue 44.5)', () => {
  const args = { todos: [{ id: 'transform-analysis', content: 'a "b" <c> & \\n' }] };
  const json = JSON.stringify(args);
  // Every family whose call writes its arguments as a JSON object, found by rendering one.
  const families = DIALECTS.filter((d) => d !== 'tagcall').filter((d) =>
    renderInDialect(d, 'TodoWrite', args).includes(json),
  );

  it('covers every JSON-bodied family', () => {
    expect(families).toEqual(
      expect.arrayContaining(['hermes', 'kimi-k2', 'mistral', 'gpt-oss', 'apertus', 'deepseek']),
    );
    expect(families.length).toBeGreaterThanOrEqual(15);
  });

  for (const dialect of families) {
    it(`${dialect}: the string's object is the arguments, with a warning; a string of no object fails the call`, () => {
      const rendered = renderInDialect(dialect, 'TodoWrite', args);
      const encoded = rendered.replace(json, () => JSON.stringify(json));
      const read = readChunked(encoded, { dialect });
      expect(read.errors).toEqual([]);
      expect(read.calls).toMatchObject([{ toolName: 'TodoWrite', arguments: args }]);
      expect(read.warnings.map((w) => w.code)).toContain('string-encoded-arguments');

      for (const lost of ['"not an object"', '"[1, 2]"', '"{\\"todos\\": [1"', '"{} {}"']) {
        const broken = readChunked(
          rendered.replace(json, () => lost),
          { dialect },
        );
        expect(broken.calls, lost).toEqual([]);
        expect(broken.errors, lost).toMatchObject([{ code: 'invalid-json' }]);
        expect(broken.text, lost).toContain(lost);
      }
      // Arguments that are no object nor string: no call either (where a `{` or `"` must open
      // the body, none begins).
      for (const lost of ['42', 'true', '[1]']) {
        const broken = readChunked(
          rendered.replace(json, () => lost),
          { dialect },
        );
        expect(broken.calls, lost).toEqual([]);
        expect(broken.text, lost).toContain(lost);
      }
    });
  }

  it('an empty string is no arguments, read with the warning', () => {
    const { calls, warnings } = readChunked(
      '<|tool_calls_section_begin|><|tool_call_begin|>functions.now:0<|tool_call_argument_begin|>""<|tool_call_end|><|tool_calls_section_end|>',
      { dialect: 'kimi-k2' },
    );
    expect(calls).toMatchObject([{ toolName: 'now', arguments: {} }]);
    expect(warnings.map((w) => w.code)).toEqual(['string-encoded-arguments']);
  });

  it("a repair inside the string is told, as the string's", () => {
    const { calls, warnings } = readChunked(
      '<tool_call>{"name": "f", "arguments": "{\\"a\\": 1,}"}</tool_call>',
      { dialect: 'hermes' },
    );
    expect(calls).toMatchObject([{ arguments: { a: 1 } }]);
    expect(warnings.map((w) => w.code)).toEqual(['string-encoded-arguments', 'repaired-json']);
  });
});

/** The parse, the same fed one character at a time and in 100 random chunkings. */
function readChunked(text: string, options: ParseOptions) {
  const whole = readCharByChar(text, options);
  fc.assert(
    fc.property(cutsArbitrary, (cuts) => {
      expect(feedChunks(splitAt(text, cuts), options).result).toEqual(whole);
    }),
    { numRuns: 100 },
  );
  return whole;
}

describe("Llama 3.2's calls joined by ';' (vLLM and SGLang test_multiple_json*, #43 item 4)", () => {
  const llama3 = { dialect: 'llama3-json' } as const;
  const weather = '{"name": "get_weather", "parameters": {"city": "Paris"}}';
  const time = '{"name": "get_time", "parameters": {"tz": "CET"}}';

  it('reads each object a ";" joins on the line as a call, after <|python_tag|> or bare', () => {
    for (const text of [
      `<|python_tag|>${weather};${time}`,
      `${weather} ; ${time}\nDone.`,
      `${weather};\t${time}; ${weather}`,
    ]) {
      const { calls, errors, text: prose } = readCharByChar(text, llama3);
      expect(errors, text).toEqual([]);
      expect(calls.map((c) => c.toolName).slice(0, 2), text).toEqual(['get_weather', 'get_time']);
      expect(prose, text).toBe(text.endsWith('Done.') ? '\nDone.' : '');
    }
  });

  it('ends the block at anything else: a ";" before prose, a list, a newline stay text', () => {
    expect(readCharByChar(`${weather}; see above`, llama3)).toMatchObject({
      calls: [{ toolName: 'get_weather' }],
      text: '; see above',
      errors: [],
    });
    const listed = `<|python_tag|>[${weather}]; ${time}`;
    expect(readCharByChar(listed, llama3).calls.map((c) => c.toolName)).toEqual(['get_weather']);
    expect(readCharByChar(`${weather}\n; ${time}`, llama3).calls.map((c) => c.toolName)).toEqual([
      'get_weather',
    ]);
  });

  it('decides within a bounded run of blanks: a flood of them after ";" ends the block', () => {
    const text = `${weather};${' '.repeat(10_000)}${time}`;
    const { calls, text: prose } = readCharByChar(text, llama3);
    expect(calls.map((c) => c.toolName)).toEqual(['get_weather']);
    expect(prose).toBe(`;${' '.repeat(10_000)}${time}`);
  });
});

describe("DeepSeek-R1 distills' shortened <｜tool▁calls｜> (llama.cpp deepseek r1, #43 item 4)", () => {
  const call = (name: string, json: string) =>
    `function<｜tool▁sep｜>${name}\n\`\`\`json\n${json}\n\`\`\`<｜tool▁call▁end｜>`;

  it('opens the section and its first call, in deepseek and auto', () => {
    const text = `Let me check. <｜tool▁calls｜>${call('get_weather', '{"city": "Paris"}')}<｜tool▁call▁begin｜>${call('now', '{}')}<｜tool▁calls▁end｜> Done.`;
    for (const dialect of ['deepseek', 'auto'] as const) {
      const { calls, errors, warnings, text: prose } = readCharByChar(text, { dialect });
      expect(errors).toEqual([]);
      expect(warnings).toEqual([]);
      expect(calls.map((c) => [c.toolName, c.arguments])).toEqual([
        ['get_weather', { city: 'Paris' }],
        ['now', {}],
      ]);
      expect(prose).toBe('Let me check.  Done.');
    }
  });

  it('is no call without a call in it: its text comes back with an error', () => {
    const { calls, errors, text } = readCharByChar('<｜tool▁calls｜><｜tool▁calls▁end｜>', {
      dialect: 'deepseek',
    });
    expect(calls).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(text).toBe('<｜tool▁calls｜><｜tool▁calls▁end｜>');
  });
});

describe("Llama 3.1's built-in tools after <|python_tag|> (llama.cpp test_templates, #43 item 4)", () => {
  it('reads name.call(k=v) as a call of the tool name, in llama3-json and auto', () => {
    for (const dialect of ['llama3-json', 'auto'] as const) {
      const { calls, errors, text } = readCharByChar(
        `<|python_tag|>brave_search.call(query="Paris weather")<|eom_id|>`,
        { dialect },
      );
      expect(errors).toEqual([]);
      expect(calls.map((c) => [c.toolName, c.arguments])).toEqual([
        ['brave_search', { query: 'Paris weather' }],
      ]);
      expect(text).toBe('<|eom_id|>');
    }
  });

  it('reads a JSON object after the tag as before; .call( with no name before it is no call', () => {
    const json = readCharByChar('<|python_tag|>{"name": "f", "parameters": {"a": 1}}', {
      dialect: 'llama3-json',
    });
    expect(json.calls.map((c) => [c.toolName, c.arguments])).toEqual([['f', { a: 1 }]]);
    const bare = readCharByChar('<|python_tag|>.call(x=1)', { dialect: 'llama3-json' });
    expect(bare.calls).toEqual([]);
    expect(bare.errors.map((e) => e.code)).toEqual(['invalid-json']);
  });
});

// #43: llama.cpp's generic form, the JSON object its constrained decoding forces for a model
// with no format of its own (common/chat.cpp, common_chat_params_init_generic).
describe("llama.cpp's generic JSON form (generic-json)", () => {
  const generic = { dialect: 'generic-json' } as const;

  it('{"tool_calls": […]} and {"tool_call": {…}} are calls; an id is no argument', () => {
    for (const text of [
      '{\n  "tool_calls": [\n    {\n      "name": "get_weather",\n      "arguments": {\n        "city": "Zürich"\n      },\n      "id": "123456789"\n    },\n    {"name": "now", "arguments": {}, "id": "2"}\n  ]\n}',
      '{"tool_call": {"name": "get_weather", "arguments": {"city": "Zürich"}}}',
    ]) {
      const result = readCharByChar(text, generic);
      expect(result.errors, text).toEqual([]);
      expect(result.warnings, text).toEqual([]);
      expect(result.text, text).toBe('');
      expect(result.calls.map((c) => [c.format, c.toolName, { ...c.arguments }])).toEqual(
        text.includes('now')
          ? [
              ['generic-json', 'get_weather', { city: 'Zürich' }],
              ['generic-json', 'now', {}],
            ]
          : [['generic-json', 'get_weather', { city: 'Zürich' }]],
      );
    }
  });

  it('{"response": "…"} is the reply as written: text, no call, no error', () => {
    const text = '{\n  "response": "Hello, world!\\nWhat\'s up?"\n}';
    expect(readCharByChar(text, generic)).toEqual({
      text,
      thinking: [],
      calls: [],
      warnings: [],
      errors: [],
    });
  });

  it('an envelope holding no call, or more than its calls, is no call: an error, its text kept', () => {
    for (const [body, code] of [
      ['{"tool_calls": []}', 'missing-tool-name'],
      ['{"tool_calls": "get_weather"}', 'invalid-json'],
      ['{"tool_call": {"name": "f", "arguments": {}}, "response": "hi"}', 'invalid-json'],
      [
        '{"tool_calls": [{"name": "f", "arguments": {}}], "tool_call": {"name": "g"}}',
        'invalid-json',
      ],
      ['{"tool_calls": [{"arguments": {}}]}', 'missing-tool-name'],
    ] as const) {
      const result = readCharByChar(body, generic);
      expect(result.calls, body).toEqual([]);
      expect(
        result.errors.map((e) => e.code),
        body,
      ).toEqual([code]);
      expect(result.text, body).toBe(body);
    }
  });

  // llama.cpp's newer generic writer (ochafik/llama.cpp tests/chat-parsers/test-generic.cpp)
  // puts an empty "content" beside the calls.
  it('an empty "content" beside the calls is read with them; a content of text is no call', () => {
    for (const text of [
      '{"tool_calls": [{"name": "f", "arguments": {"a": 1}}], "content": ""}',
      '{"tool_call": {"name": "f", "arguments": {"a": 1}}, "content": ""}',
    ]) {
      const result = readCharByChar(text, generic);
      expect(result.errors, text).toEqual([]);
      expect(result.calls.map((c) => [c.toolName, { ...c.arguments }])).toEqual([['f', { a: 1 }]]);
    }
    const said = '{"tool_call": {"name": "f", "arguments": {}}, "content": "Let me check."}';
    const result = readCharByChar(said, generic);
    expect(result.calls).toEqual([]);
    expect(result.errors.map((e) => e.code)).toEqual(['invalid-json']);
    expect(result.text).toBe(said);
  });

  it('auto leaves it alone: replies hold JSON data', () => {
    const text = '{"tool_calls": [{"name": "f", "arguments": {}}]}';
    expect(readCharByChar(text, { dialect: 'auto' }).calls).toEqual([]);
    expect(readCharByChar(text, { dialect: 'auto' }).text).toBe(text);
  });
});
