import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  alt,
  buildToolGrammar,
  chars,
  createToolbox,
  type Grammar,
  type JsonSchema,
  type JsonValue,
  lit,
  llamaCppGrammarFields,
  printGbnf,
  printLark,
  recognize,
  ref,
  renderCall,
  rep,
  seq,
  type ToolArguments,
  toolCallGrammar,
  workspaceTools,
  xgrammarStructuralTag,
} from './support/all.js';

const EXAMPLES = fileURLToPath(new URL('../grammar/examples/', import.meta.url));

describe('recognizer', () => {
  const g: Grammar = {
    root: 'root',
    rules: [
      ['root', seq(lit('a'), ref('bs'), rep(chars('0-9'), 1, 2))],
      ['bs', alt(lit(''), seq(lit('b'), ref('bs')))],
    ],
  };
  it('accepts the language and nothing else', () => {
    for (const text of ['a1', 'abbb12']) expect(recognize(g, text)).toBe(true);
    for (const text of ['a', 'ab123', 'b1', 'a1x']) expect(recognize(g, text)).toBe(false);
  });
});

const rich: JsonSchema = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    mode: { type: 'string', enum: ['fast', 'safe'] },
    count: { type: 'integer' },
    ratio: { type: 'number' },
    force: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    options: {
      type: 'object',
      properties: { depth: { type: 'integer' }, note: { type: 'string' } },
      required: ['depth'],
    },
  },
  required: ['path', 'count'],
};
const tools = [
  { serverName: 'local', name: 'edit', inputSchema: rich },
  {
    serverName: 'fs',
    name: 'read_file',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
];

/** Valid arguments for the rich schema, in schema order (the grammar's order). */
const richArgs: fc.Arbitrary<ToolArguments> = fc
  .record(
    {
      path: fc.string({ maxLength: 30 }),
      mode: fc.constantFrom('fast', 'safe'),
      count: fc.integer({ min: -1000, max: 1000 }),
      ratio: fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }),
      force: fc.boolean(),
      tags: fc.array(fc.string({ maxLength: 10 }), { minLength: 2, maxLength: 3 }),
      options: fc.record(
        { depth: fc.nat(50), note: fc.string({ maxLength: 20 }) },
        { requiredKeys: ['depth'] },
      ),
    },
    { requiredKeys: ['path', 'count'] },
  )
  .map((args) => {
    const ordered: Record<string, JsonValue> = {};
    for (const key of Object.keys(rich.properties ?? {}))
      if (key in args) ordered[key] = (args as Record<string, JsonValue>)[key];
    return ordered as ToolArguments;
  });

describe('tool-call grammar from schemas', () => {
  const withText = buildToolGrammar(tools);
  const callsOnly = buildToolGrammar(tools, { allowText: false });

  it('accepts the canonical rendering of any valid call, with text around it or alone', () => {
    fc.assert(
      fc.property(richArgs, fc.constantFrom('', 'Sure, editing now.\n'), (args, before) => {
        const call = renderCall({ serverName: 'local', toolName: 'edit', arguments: args });
        expect(recognize(withText, `${before}${call}\nDone.`)).toBe(true);
        expect(recognize(callsOnly, `[edit it]\n${call}\n`)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('rejects a wrong tool name, a missing required argument, an unknown argument, a non-numeric integer', () => {
    const good = renderCall({
      toolName: 'edit',
      arguments: { path: 'a', count: 2 } as ToolArguments,
    });
    expect(recognize(callsOnly, good)).toBe(true);
    const bad = [
      good.replace('<tool_name>edit', '<tool_name>delete'),
      renderCall({ toolName: 'edit', arguments: { path: 'a' } as ToolArguments }),
      renderCall({
        toolName: 'edit',
        arguments: { path: 'a', count: 2, color: 'red' } as ToolArguments,
      }),
      renderCall({ toolName: 'edit', arguments: { path: 'a', count: 'two' } as ToolArguments }),
      good.replace('<server_name>local', '<server_name>fs'),
    ];
    for (const text of bad) expect(recognize(callsOnly, text)).toBe(false);
  });

  it('lazy (from the `<tool>` trigger on) and call-body grammars accept what follows the trigger', () => {
    const fromTrigger = buildToolGrammar(tools, { scope: 'trigger' });
    const body = buildToolGrammar(tools, { scope: 'call-body' });
    fc.assert(
      fc.property(richArgs, fc.string({ maxLength: 20 }), (args, before) => {
        const call = renderCall({ serverName: 'local', toolName: 'edit', arguments: args });
        const reply = `${before.replaceAll('<', '')}\n${call}\nDone.`;
        // llama.cpp feeds the grammar the text from the trigger word on.
        expect(recognize(fromTrigger, reply.slice(reply.indexOf('<tool>')))).toBe(true);
        expect(recognize(body, call.slice('<tool>'.length, -'</tool>'.length))).toBe(true);
      }),
      { numRuns: 200 },
    );
    const wrong = renderCall({ toolName: 'delete', arguments: { path: 'a' } as ToolArguments });
    expect(recognize(fromTrigger, wrong)).toBe(false);
    expect(recognize(fromTrigger, `Text first.\n${wrong}`)).toBe(false);
    expect(recognize(body, wrong.slice('<tool>'.length, -'</tool>'.length))).toBe(false);
  });

  it('builds the request fields for llama.cpp (lazy grammar, line-start trigger) and xgrammar', () => {
    const auto = llamaCppGrammarFields(tools);
    expect(auto.grammar_lazy).toBe(true);
    // PATTERN (2), searched as llama.cpp does; the grammar applies from the capture.
    expect(auto.grammar_triggers).toEqual([{ type: 2, value: '(?:^|\\n)[ \\t]*(<tool>)' }]);
    const trigger = new RegExp(auto.grammar_triggers[0].value);
    expect(trigger.exec('<tool>')?.index).toBe(0);
    expect(trigger.exec('Reading it.\n  <tool>\n')?.[1]).toBe('<tool>');
    expect(trigger.exec('Use a <tool> block.')).toBeNull();
    expect(auto.grammar).toBe(printGbnf(buildToolGrammar(tools, { scope: 'trigger' })));
    const required = llamaCppGrammarFields(tools, { toolChoice: 'required' });
    expect(required).toEqual({
      grammar: printGbnf(buildToolGrammar(tools, { allowText: false })),
      grammar_lazy: false,
      grammar_triggers: [],
      preserved_tokens: expect.arrayContaining(['<tool>', '</tool>']),
    });
    const tag = xgrammarStructuralTag(tools, { toolChoice: 'required' });
    expect(tag.format.triggers).toEqual(['<tool>']);
    expect(tag.format.at_least_one).toBe(true);
    expect(tag.format.tags).toEqual([
      {
        type: 'tag',
        begin: '<tool>',
        content: {
          type: 'grammar',
          grammar: printGbnf(buildToolGrammar(tools, { scope: 'call-body' })),
        },
        end: '</tool>',
      },
    ]);
  });

  it('prints GBNF and Lark with one rule per line and the start rule first', () => {
    const gbnf = toolCallGrammar(tools, { format: 'gbnf' });
    expect(gbnf.startsWith('root ::= ')).toBe(true);
    expect(gbnf).toContain('<tool_name>edit</tool_name>');
    expect(gbnf).toMatch(/\{0,3\}/);
    const lark = toolCallGrammar(tools, { format: 'lark' });
    expect(lark.startsWith('start: ')).toBe(true);
    expect(lark).not.toMatch(/^[a-z0-9_]*-/m);
  });
});

describe('generated examples stay up to date (grammar/examples/)', () => {
  it('for the demo toolbox', async () => {
    const listed = await createToolbox({ tools: workspaceTools('.') }).listTools();
    const grammar = buildToolGrammar(listed);
    await expect(printGbnf(grammar)).toMatchFileSnapshot(join(EXAMPLES, 'demo-toolbox.gbnf'));
    await expect(printLark(grammar)).toMatchFileSnapshot(join(EXAMPLES, 'demo-toolbox.lark'));
  });

  it("for server-everything's tools", async () => {
    const everything = createRequire(import.meta.url).resolve(
      '@modelcontextprotocol/server-everything/dist/index.js',
    );
    const toolbox = createToolbox({
      mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } },
    });
    try {
      const listed = (await toolbox.listTools())
        .filter((t) => t.serverName === 'everything')
        .sort((a, b) => a.name.localeCompare(b.name));
      const grammar = buildToolGrammar(listed, { allowText: false });
      await expect(printGbnf(grammar)).toMatchFileSnapshot(join(EXAMPLES, 'everything.gbnf'));
      await expect(printLark(grammar)).toMatchFileSnapshot(join(EXAMPLES, 'everything.lark'));
    } finally {
      await toolbox.close();
    }
  });
});
