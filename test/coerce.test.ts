import { describe, expect, it } from 'vitest';
import {
  coerceArguments,
  coerceValue,
  createToolbox,
  defineTool,
  type JsonSchema,
  type JsonValue,
  parse,
  writtenAs,
} from './support/all.js';

type Row = [string, JsonValue, JsonSchema, JsonValue];

const table: Record<string, Row[]> = {
  alternatives: [
    [
      "Pydantic's Optional[int] (anyOf with null): the number",
      '42',
      { anyOf: [{ type: 'integer' }, { type: 'null' }] },
      42,
    ],
    [
      'Optional[int]: null and Python None',
      'None',
      { anyOf: [{ type: 'integer' }, { type: 'null' }] },
      null,
    ],
    [
      'Optional[str]: None may be the string, and stays',
      'None',
      { anyOf: [{ type: 'string' }, { type: 'null' }] },
      'None',
    ],
    [
      'oneOf object or null: JSON text read by the object branch, its properties coerced',
      '{"n": "3"}',
      { oneOf: [{ type: 'object', properties: { n: { type: 'integer' } } }, { type: 'null' }] },
      { n: 3 },
    ],
    [
      'anyOf list or null: a lone element becomes a list, items coerced',
      '7',
      { anyOf: [{ type: 'array', items: { type: 'integer' } }, { type: 'null' }] },
      [7],
    ],
  ],
  number: [
    ['integer text', '42', { type: 'integer' }, 42],
    ['decimal with spaces', ' 3.5 ', { type: 'number' }, 3.5],
    ['exponent', '1e3', { type: 'number' }, 1000],
    ['not a number stays for validation', 'forty', { type: 'number' }, 'forty'],
    // SGLang's test_nonfinite_coercion (after vllm-project/vllm#43984): a number JavaScript cannot
    // hold exactly stays the text written, for validation to report, as the parser keeps it.
    ['too large for a double stays text', '1e999', { type: 'number' }, '1e999'],
    ['negative overflow stays text', '-1e999', { type: 'number' }, '-1e999'],
    [
      'an integer past 2^53 stays text',
      '12345678901234567890',
      { type: 'integer' },
      '12345678901234567890',
    ],
  ],
  boolean: [
    ['true', 'true', { type: 'boolean' }, true],
    ['any case', 'FALSE', { type: 'boolean' }, false],
    ['other text stays', 'yes', { type: 'boolean' }, 'yes'],
    ['1 for a flag', '1', { type: 'boolean' }, true],
    ['0 for a flag', ' 0 ', { type: 'boolean' }, false],
    ['1 where a number may be meant', '1', { type: ['boolean', 'integer'] }, 1],
    ['1 where a string may be meant', '1', { type: ['boolean', 'string'] }, '1'],
    ['other digits stay', '2', { type: 'boolean' }, '2'],
  ],
  null: [
    ['empty element', '', { type: ['string', 'null'] }, null],
    ['the word null', 'null', { type: ['integer', 'null'] }, null],
  ],
  enum: [
    ['matched after trimming', '  fast \n', { type: 'string', enum: ['fast', 'slow'] }, 'fast'],
  ],
  array: [
    [
      'a lone element that is the whole list as JSON (the parser, given the schema, wraps it)',
      ['["a", "b", 1, true]'],
      { type: 'array' },
      ['a', 'b', 1, true],
    ],
    [
      'the same with typed items, coerced',
      [' ["1", 2] '],
      { type: 'array', items: { type: 'integer' } },
      [1, 2],
    ],
    [
      'a lone JSON list stays one item where items are lists themselves',
      ['[1, 2]'],
      { type: 'array', items: { type: 'array', items: { type: 'integer' } } },
      [[1, 2]],
    ],
    [
      'one element becomes a list',
      'a.txt',
      { type: 'array', items: { type: 'string' } },
      ['a.txt'],
    ],
    [
      'repeated elements, items coerced',
      ['1', '2'],
      { type: 'array', items: { type: 'integer' } },
      [1, 2],
    ],
    ['JSON text', '[1, 2]', { type: 'array', items: { type: 'number' } }, [1, 2]],
    [
      'wrapper element unwrapped',
      { file: [{ path: 'a' }, { path: 'b' }] },
      { type: 'array', items: { type: 'object', properties: { path: { type: 'string' } } } },
      [{ path: 'a' }, { path: 'b' }],
    ],
    ['wrapper with one child', { tag: 'x' }, { type: 'array', items: { type: 'string' } }, ['x']],
  ],
  object: [
    [
      'nested XML, properties coerced',
      { n: '2', on: 'true' },
      { type: 'object', properties: { n: { type: 'integer' }, on: { type: 'boolean' } } },
      { n: 2, on: true },
    ],
    ['JSON text', '{"n": 2}', { type: 'object', properties: { n: { type: 'integer' } } }, { n: 2 }],
    [
      'additionalProperties schema coerces extra keys',
      { x: '1' },
      { type: 'object', additionalProperties: { type: 'number' } },
      { x: 1 },
    ],
  ],
  string: [
    ['raw text kept', '  <b>x</b> ', { type: 'string' }, '  <b>x</b> '],
    ['markup read as elements goes back to text', { b: 'x' }, { type: 'string' }, '<b>x</b>'],
    ['a JSON number becomes text', 42, { type: 'string' }, '42'],
    ['JSON-looking text stays text', '{"a":1}', { type: 'string' }, '{"a":1}'],
  ],
};

describe('coercion by schema, one table per type', () => {
  for (const [type, rows] of Object.entries(table)) {
    describe(type, () => {
      for (const [name, input, schema, expected] of rows) {
        it(name, () => {
          expect(coerceValue(input, schema)).toEqual(expected);
        });
      }
    });
  }
});

describe('objects and lists written as text', () => {
  it('are read from JSON, and from what a template or model meant (Python dicts), but not past maxDepth', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { f: { type: 'object' }, l: { type: 'array' } },
    };
    expect(
      coerceArguments({ f: "{'lang': 'ts', 'exact': True, 'n': None}", l: "['a', 'b',]" }, schema),
    ).toEqual({ f: { lang: 'ts', exact: true, n: null }, l: ['a', 'b'] });
    const deep = `${'['.repeat(40)}${']'.repeat(40)}`;
    expect(coerceArguments({ l: deep }, schema)).toEqual({ l: [deep] });
  });
});

describe('strings written as literals', () => {
  const schema: JsonSchema = {
    type: 'object',
    properties: {
      label: { type: ['string', 'null'] },
      count: { type: ['integer', 'null'] },
    },
  };
  it('a JSON "" or "null" stays a string where the schema allows one; text reads as null', () => {
    expect(coerceArguments({ label: '', count: 'null' }, schema, 'literal')).toEqual({
      label: '',
      count: null,
    });
    expect(coerceArguments({ label: 'null' }, schema, 'literal')).toEqual({ label: 'null' });
    expect(coerceArguments({ label: '', count: '' }, schema, 'text')).toEqual({
      label: null,
      count: null,
    });
  });
  it("by the call's format: element text for <tool> and the XML-ish families, literals for JSON ones", () => {
    expect(writtenAs(undefined)).toBe('text');
    expect(writtenAs('xml')).toBe('text');
    expect(writtenAs('qwen3-coder')).toBe('text');
    expect(writtenAs('json')).toBe('literal');
    expect(writtenAs('hermes')).toBe('literal');
    expect(writtenAs('lfm2')).toBe('literal');
    expect(writtenAs('gemma4')).toBe('literal');
  });
  it('a toolbox dispatches a Hermes call\'s "" as "", a Qwen3-Coder call\'s empty value as null', async () => {
    const seen: unknown[] = [];
    const toolbox = createToolbox({
      tools: [
        defineTool({
          name: 'tag',
          description: 'tag',
          inputSchema: { type: 'object', properties: { label: { type: ['string', 'null'] } } },
          handler: (args) => {
            seen.push(args.label);
            return 'ok';
          },
        }),
      ],
    });
    const [hermes] = parse('<tool_call>{"name": "tag", "arguments": {"label": ""}}</tool_call>', {
      dialect: 'hermes',
    }).calls;
    const [qwen] = parse(
      '<tool_call>\n<function=tag>\n<parameter=label>\n\n</parameter>\n</function>\n</tool_call>',
      { dialect: 'qwen3-coder' },
    ).calls;
    await toolbox.run(hermes);
    await toolbox.run(qwen);
    await toolbox.close();
    expect(seen).toEqual(['', null]);
  });
});

describe('JSON written escaped', () => {
  const schema: JsonSchema = {
    type: 'object',
    properties: { todos: { type: 'array' }, note: { type: 'string' } },
  };
  it('a list written as escaped JSON (every quote escaped) is read one level unescaped', () => {
    expect(
      coerceArguments(
        { todos: '[{\\"id\\": \\"1\\", \\"task\\": \\"C:\\\\\\\\Users\\"}]', note: '[{\\"a\\"}]' },
        schema,
      ),
    ).toEqual({ todos: [{ id: '1', task: 'C:\\Users' }], note: '[{\\"a\\"}]' });
  });
  it('JSON with a plain quote in it is not escaped JSON', () => {
    expect(coerceArguments({ todos: '["a \\"b\\""]' }, schema)).toEqual({ todos: ['a "b"'] });
  });
});

describe('arguments wrapped in one `arguments` or `input` key (vLLM unwraps them in its DSML reader)', () => {
  const schema: JsonSchema = {
    type: 'object',
    properties: { location: { type: 'string' }, days: { type: 'integer' } },
  };
  it('a lone wrapper the schema lacks, holding the schema keys as JSON text, is the arguments', () => {
    expect(coerceArguments({ arguments: '{"location":"Beijing","days":"3"}' }, schema)).toEqual({
      location: 'Beijing',
      days: 3,
    });
    expect(coerceArguments({ input: { location: 'Paris' } }, schema)).toEqual({
      location: 'Paris',
    });
  });
  it('is left as written where it could mean anything else', () => {
    // A key the schema does not have inside: not the tool's arguments.
    expect(coerceArguments({ arguments: '{"city":"Paris"}' }, schema)).toEqual({
      arguments: '{"city":"Paris"}',
    });
    // Another argument beside it, or a wrapper the tool really takes.
    expect(coerceArguments({ input: '{"location":"x"}', days: '2' }, schema)).toEqual({
      input: '{"location":"x"}',
      days: 2,
    });
    const takesInput: JsonSchema = { type: 'object', properties: { input: { type: 'string' } } };
    expect(coerceArguments({ input: '{"input":"x"}' }, takesInput)).toEqual({
      input: '{"input":"x"}',
    });
    // No properties to compare with, or text that is no object.
    expect(coerceArguments({ arguments: '{"a":1}' }, { type: 'object' })).toEqual({
      arguments: '{"a":1}',
    });
    expect(coerceArguments({ arguments: 'Beijing' }, schema)).toEqual({ arguments: 'Beijing' });
  });
});
