import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { renderAll } from '../../bench/render-templates.js';
import {
  DIALECTS,
  type Dialect,
  type JsonValue,
  type ParseOptions,
  renderCallIn,
  type ToolArguments,
} from './all.js';
import { DIALECT_TOKENS } from './documents.js';
import { parserFixtures } from './fixtures.js';

/** One input the parser must read the same way however it is cut, with its options. */
export interface DialectInput {
  name: string;
  text: string;
  options: ParseOptions;
}

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const TOOL_NAMES = ['read_file', 'write_file', 'write_to_file', 'replace_in_file', 'list_files'];

/** Every checked-in input: the parser fixtures, each dialect's fixtures, the rendered templates. */
export function dialectInputs(): DialectInput[] {
  const inputs: DialectInput[] = parserFixtures().map((f) => ({
    name: `parser/${f.name}`,
    text: f.text,
    options: {},
  }));
  const dialectsDir = join(FIXTURES, 'dialects');
  for (const dir of readdirSync(dialectsDir, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    const tools = join(dialectsDir, dir.name, 'tools.json');
    const options: ParseOptions = {
      dialect: dir.name as Dialect | 'auto',
      ...(existsSync(tools) && { toolNames: JSON.parse(readFileSync(tools, 'utf8')) }),
    };
    for (const file of readdirSync(join(dialectsDir, dir.name)).sort())
      if (file.endsWith('.txt'))
        inputs.push({
          name: `dialects/${dir.name}/${file}`,
          text: readFileSync(join(dialectsDir, dir.name, file), 'utf8'),
          options,
        });
  }
  for (const r of renderAll())
    inputs.push({
      name: `rendered/${r.label}/${r.name}`,
      text: r.text,
      options: { dialect: r.dialect },
    });
  return inputs;
}

/** Every dialect and `auto`, with the tool names Cline's tags need. */
export const ALL_DIALECTS: ReadonlyArray<Dialect | 'auto'> = [...DIALECTS, 'auto'];
export const optionsOf = (dialect: Dialect | 'auto'): ParseOptions => ({
  dialect,
  toolNames: TOOL_NAMES,
});

/** Values that test a format: its own closing tags, code with `<` and `&`, unicode, emptiness. */
const hardString = fc.oneof(
  fc.constantFrom(
    '',
    '\n',
    ' ',
    'if (a < b && c > d) { s = "</parameter>"; }',
    '</tool_call> </function> </invoke> </arg_value> ]]> <|tool_call_end|> <｜tool▁call▁end｜>',
    '</content>\n</write_file>',
    'He said "hello" to me',
    "it's a 'quote' \\ backslash",
    'é 🎉 中文 \u00a0',
    '&amp; &lt; &#x41; & &&',
    '<![CDATA[x]]>',
    'line 1\nline 2\r\nline 3',
  ),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
);

const hardValue: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 4, arbitrary: hardString },
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(hardString, { maxLength: 3 }),
);

/** Arguments of a call, keys as the formats can write them. */
const argumentsArbitrary = fc.dictionary(
  fc.constantFrom('path', 'content', 'command', 'query', 'n'),
  hardValue,
  { maxKeys: 4 },
) as fc.Arbitrary<ToolArguments>;

const proseArbitrary = fc.constantFrom(
  '',
  'I will read it.\n',
  'Let me check a < b & c.\n\n',
  '<think>plan</think>\n',
  '[thinking about it]\n',
  '```\ncode\n```\n',
  'é 🎉\n',
);

/**
 * A reply in `dialect`: prose, then one to three calls written by the dialect's own renderer,
 * each with hard values, then prose; sometimes cut short or with one of the formats' tokens
 * dropped in, as models and servers do.
 */
export function replyIn(dialect: Dialect): fc.Arbitrary<string> {
  const call = fc
    .tuple(fc.constantFrom(...TOOL_NAMES), argumentsArbitrary)
    .map(([name, args]) => renderCallIn(dialect, { toolName: name, arguments: args }));
  return fc
    .tuple(
      proseArbitrary,
      fc.array(call, { minLength: 1, maxLength: 3 }),
      fc.constantFrom('\n', '\n\n', ''),
      proseArbitrary,
      fc.oneof(
        { weight: 6, arbitrary: fc.constant(null) },
        fc.nat(),
        fc.tuple(fc.nat(), fc.constantFrom(...DIALECT_TOKENS)),
      ),
    )
    .map(([before, calls, between, after, damage]) => {
      const text = `${before}${calls.join(between)}\n${after}`;
      if (damage === null) return text;
      // Cut at a code point's boundary: the text stays well-formed UTF-16.
      let at = (typeof damage === 'number' ? damage : damage[0]) % (text.length + 1);
      if (/[\uDC00-\uDFFF]/.test(text[at] ?? '')) at--;
      if (typeof damage === 'number') return text.slice(0, at);
      return text.slice(0, at) + damage[1] + text.slice(at);
    });
}

/** Every dialect's tokens and pieces of calls, for soups that mix the families' markers. */
export const markerSoup = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...DIALECT_TOKENS) },
      fc.constantFrom(
        '[THINK]',
        '[/THINK]',
        '<|start|>assistant',
        '<|channel|>',
        'commentary to=functions.read_file',
        '<|message|>',
        '<|call|>',
        '>>>',
        'read_file\n',
        '<|tool_call>call:read_file{path:<|"|>a<|"|>}<tool_call|>',
        '"',
        '\\',
        '\r\n',
        '🎉',
      ),
      fc.string({ maxLength: 4 }),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));
