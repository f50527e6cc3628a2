import fc from 'fast-check';

const prose = fc.constantFrom(
  'The parser reads a < b && c > d.',
  'R&D spent Array<string> on Map<K, V>.',
  'See [the docs](https://example.com) and [ref][1].',
  '- [ ] task\n- [x] done',
  'Inline <tool> in a sentence is prose.',
  'Emoji 😀 and 日本語 and café.',
  '| a | b |\n|---|---|\n| x < y | R&D |',
  'Closing tags like </tool> and </think> in prose.',
  '',
);

const value = fc.constantFrom(
  'plain',
  'a < b && c',
  'x &amp; y &lt;z&gt; &#x1F600; &bogus; &',
  '<![CDATA[if (a < b) { s = "</content>"; }]]>',
  '<![CDATA[a]]]]><![CDATA[>b]]>',
  'const s = "</content>"; // trailing',
  '<b>bold</b> text',
  '\n  indented\n',
  '😀🎉',
  '',
);

const argumentXml = fc
  .tuple(fc.constantFrom('path', 'content', 'query', '__proto__', 'file'), value)
  .map(([name, v]) => `<${name}>${v}</${name}>`);

const nested = fc
  .array(argumentXml, { maxLength: 3 })
  .map(
    (children) =>
      `<files><file>${children.join('')}</file><file>${children.join('\n')}</file></files>`,
  );

const call = fc
  .tuple(
    fc.constantFrom('', '<server_name>local</server_name>\n', '<server_name>fs</server_name>\n'),
    fc.constantFrom('read_file', 'write_to_file', ''),
    fc.array(fc.oneof(argumentXml, nested), { maxLength: 4 }),
    fc.constantFrom('</tool>', '</tool>', '</read_file>', ''),
    fc.constantFrom('', '```xml\n'),
  )
  .map(([server, name, args, close, fence]) => {
    const block = `<tool>\n${server}<tool_name>${name}</tool_name>\n<arguments>\n${args.join('\n')}\n</arguments>\n${close}`;
    return fence === '' ? block : `${fence}${block}\n\`\`\``;
  });

const jsonCall = fc.constantFrom(
  '<tool>{"tool_name": "x", "arguments": {"a": "</tool>"}}</tool>',
  '<tool>\n{"tool_name": "x", "arguments": {"a": 1,}}\n</tool>',
  '<tool>{"server_name": "s", "tool_name": "y"}',
);

const thinking = fc.constantFrom(
  "[I'll read the file first]",
  '[Multi-line\nthinking [nested]\nblock]',
  '<think>reasoning with a < b</think>',
  '<thinking>plan</thinking>',
  '<think>never closed',
  '[unclosed bracket',
  '[ ]',
  '</think>',
);

const fence = fc.constantFrom('```ts\nconst a = [1, 2];\n<tool>\n```', '~~~\n[x]\n~~~', '```');

/** Documents shaped like model replies: prose, thinking, calls (some broken), fences. */
export const documentArbitrary = fc
  .array(fc.oneof(prose, call, jsonCall, thinking, fence), { maxLength: 8 })
  .chain((parts) =>
    fc
      .array(fc.constantFrom('\n', '\n\n', '  ', '\r\n', ' '), {
        minLength: parts.length,
        maxLength: parts.length,
      })
      .map((separators) => parts.map((part, i) => part + separators[i]).join('')),
  );

/** Strings of up to `maxLength` of these pieces, in any order. */
const stringsOf = (pieces: readonly string[], maxLength: number) =>
  fc.array(fc.constantFrom(...pieces), { maxLength }).map((parts) => parts.join(''));

/** Strings made of the protocol's own delimiters: the inputs most likely to confuse it. */
export const delimiterSoupArbitrary = stringsOf(
  [
    '<tool>',
    '</tool>',
    '<tool_name>',
    '</tool_name>',
    '<arguments>',
    '</arguments>',
    '<a>',
    '</a>',
    '<a/>',
    '<![CDATA[',
    ']]>',
    '&amp;',
    '&',
    '&#x',
    '[',
    ']',
    '\n',
    '\r',
    ' ',
    '```',
    '<think>',
    '</think>',
    '{',
    '}',
    '"',
    '\\',
    '<',
    '>',
    '/',
    'x',
    '\uD83D',
    '\uDE00',
  ],
  60,
);

/** Lines of prose and line-start constructs: what the prose fast path must pass or refuse. */
export const proseLinesArbitrary = stringsOf(
  [
    'word ',
    'a < b ',
    '\n',
    '\n\n',
    '\r\n',
    '\r',
    '\t',
    '[x]\n',
    '[thinking]\n',
    '```\n',
    '```xml\n',
    '~~~\n',
    '  ',
    '<tool>\n<tool_name>t</tool_name>\n</tool>\n',
    '<think>t</think>\n',
    'R&D',
    '</think>',
  ],
  40,
);

/** Every dialect's delimiters (and a few calls in them), for soups of model output. */
export const DIALECT_TOKENS: readonly string[] = [
  '<function_calls>',
  '</function_calls>',
  '<minimax:tool_call>',
  'read_file(path="a", n=None)\n',
  '<tool_calls>',
  '</tool_calls>',
  '<|tool_call|>',
  '<|python_tag|>',
  '{"name": "read_file", "parameters": {"path": "a"}}',
  '<|tool_call_start|>[read_file(path="a")',
  ']<|tool_call_end|>',
  '<|tool_calls_section_begin|>',
  '<|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>',
  '<|tool_call_end|>',
  '<|tool_calls_section_end|>',
  '[TOOL_CALLS]',
  ' functools[',
  '<|tools_prefix|>[',
  '```json\n',
  '{"read_file": {"path": "a"}}',
  ']<|tools_suffix|>',
  '<｜DSML｜function_calls>',
  '<｜DSML｜tool_calls>',
  '<｜DSML｜invoke name="read_file">',
  '<｜DSML｜parameter name="path" string="true">',
  '</｜DSML｜parameter>',
  '</｜DSML｜invoke>',
  '</｜DSML｜function_calls>',
  '<|message_sep|>\n\nfunction call<|role_sep|>\n',
  '<|message_sep|>\n\n',
  'assistant<|role_sep|>\n',
  '<|function_call|>',
  '<｜tool_calls_begin｜>',
  '<｜tool_call_begin｜>function<｜tool_sep｜>',
  '<steptml:invoke name="read_file">',
  '<steptml:parameter name="path">',
  '</steptml:parameter>',
  '</steptml:invoke><｜tool_call_end｜>',
  '<｜tool_calls_end｜>',
  '<longcat_tool_call>',
  '{"name": "read_file", "arguments": {"path": "</longcat_tool_call>"}}',
  '</longcat_tool_call>',
  '<longcat_arg_key>',
  '<|action_start|><|plugin|>\n',
  '{"name": "read_file", "parameters": {"path": "<|action_end|>"}}',
  '<|action_end|>',
  '<|action_start|><|interpreter|>',
  '<|inner_prefix|>',
  '<|inner_suffix|>',
  '<|tool_call_start|>\n```python\n',
  'read_file(path="a")\n',
  '```\n<|tool_call_end|>',
  '<|thought_start|>',
  '<|thought_end|>',
  'functools',
  'read_file[ARGS]',
  '[{"name": "read_file", "arguments": {}}]',
  '<TOOLCALL>[',
  ']</TOOLCALL>',
  '<|START_ACTION|>[',
  '{"tool_name": "read_file", "parameters": {}}',
  ']<|END_ACTION|>',
  '<|START_THINKING|>',
  '<|END_THINKING|>',
  '<｜tool▁calls▁begin｜>',
  '<｜tool▁call▁begin｜>read_file<｜tool▁sep｜>',
  '{"path": "a"}',
  '<｜tool▁call▁end｜>',
  '<｜tool▁calls▁end｜>',
  '<seed:tool_call>',
  '</seed:tool_call>',
  '<arg_key>path</arg_key>',
  '<arg_value>',
  '</arg_value>',
  '</minimax:tool_call>',
  '<invoke name="a">',
  '</invoke>',
  '<parameter name="p">',
  '</parameter>',
  '<tool_call>',
  '</tool_call>',
  '<function=a>',
  '</function>',
  '<parameter=p>',
  '<read_file>',
  '</read_file>',
  '<path>',
  '</path>',
  '{"name": "a", "arguments": {}}',
  '<response>',
  '</response>',
  '<function_call>',
  '</function_call>',
  '<tools>',
  '</tools>',
  '<function name="a">',
  '```json\n{"name": "a", "arguments": {"p": "</function>"}}',
  '<tool>',
  '</tool>',
  '\n',
  ' ',
  '```',
  'x',
  '<',
  '{',
];

/** The soup with the other dialects' delimiters in it, for `dialect: 'auto'`. */
export const dialectSoupArbitrary = stringsOf(DIALECT_TOKENS, 40);
