import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function tagcall(args: string[], input?: string) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: ROOT,
    input: input ?? '',
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('tagcall parse', () => {
  it('prints the documented JSON shape for standard input', () => {
    const { code, stdout } = tagcall(
      ['parse'],
      '[plan]\nHi\n<tool>\n<tool_name>read</tool_name>\n<arguments><path>a</path></arguments>\n</tool>\n<tool>\n',
    );
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out).toEqual({
      text: '\nHi\n\n<tool>\n',
      thinking: ['plan'],
      calls: [{ server_name: 'local', tool_name: 'read', arguments: { path: 'a' }, format: 'xml' }],
      warnings: [],
      errors: [
        {
          code: 'incomplete-tool-call',
          message: 'the <tool> block was not closed with </tool> before the input ended',
          offset: 91,
        },
      ],
    });
  });

  it("shows a family's answer markers apart from the text, at their offsets", () => {
    const input = '<|START_RESPONSE|>Hello.<|END_RESPONSE|>';
    const { code, stdout } = tagcall(['parse', '--dialect', 'command-r7b'], input);
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out.text).toBe('Hello.');
    expect(out.markers).toEqual([
      { text: '<|START_RESPONSE|>', offset: 0 },
      { text: '<|END_RESPONSE|>', offset: 24 },
    ]);
  });

  it('reads files and prints one NDJSON record per call, error and warning', () => {
    const { code, stdout } = tagcall([
      'parse',
      'fixtures/parser/08-json-form.txt',
      'fixtures/parser/09-json-invalid.txt',
      '--format',
      'ndjson',
      '--jobs',
      '1',
    ]);
    expect(code).toBe(0);
    const records = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    // In the order the parser meets them (the deprecation warning comes as the block opens).
    expect(records.map((r) => [r.type, r.source, r.line])).toEqual([
      ['warning', 'fixtures/parser/08-json-form.txt', 1],
      ['call', 'fixtures/parser/08-json-form.txt', 1],
      ['error', 'fixtures/parser/09-json-invalid.txt', 1],
    ]);
  });

  it('prints calls and thinking for people with --format pretty', () => {
    const { code, stdout } = tagcall([
      'parse',
      'fixtures/demo/transcript.txt',
      '--format',
      'pretty',
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain('▶ github/create_pull_request');
    expect(stdout).toContain('💭 The user wants the failing parser test fixed.');
    expect(stdout).toContain('✖ incomplete-tool-call');
    expect(stdout).not.toContain('\u001b[');
  });

  it('exits 2 with the usage on bad arguments', () => {
    for (const [args, usage] of [
      [['parse', '--format', 'xml'], 'Usage: tagcall parse'],
      [['parse', '--nope'], 'Usage: tagcall parse'],
      [['frobnicate'], 'Usage: tagcall <command>'],
      [['run', 'a task'], 'Usage: tagcall run'],
    ] as const) {
      const { code, stderr } = tagcall([...args]);
      expect(code).toBe(2);
      expect(stderr).toContain(usage);
    }
  });

  it('exits 1 with the reason when a file cannot be read', () => {
    const { code, stderr } = tagcall(['parse', 'fixtures/no-such-file.txt']);
    expect(code).toBe(1);
    expect(stderr).toContain('no such file');
  });

  it('tagcall grammar prints the grammar of the built-in tools, as in grammar/examples/', async () => {
    const { readFileSync } = await import('node:fs');
    const { code, stdout } = tagcall(['grammar', '--format', 'gbnf']);
    expect(code).toBe(0);
    expect(stdout).toBe(
      readFileSync(new URL('../grammar/examples/demo-toolbox.gbnf', import.meta.url), 'utf8'),
    );
  });

  it('tagcall grammar --format llama.cpp|xgrammar prints request fields with the <tool> trigger', () => {
    const lazy = JSON.parse(tagcall(['grammar', '--format', 'llama.cpp']).stdout);
    expect(lazy.grammar_lazy).toBe(true);
    expect(lazy.grammar_triggers).toEqual([{ type: 2, value: '(?:^|\\n)[ \\t]*(<tool>)' }]);
    // llama.cpp hands the grammar the trigger's whole match: the newline and blanks too.
    expect(lazy.grammar).toMatch(/^root ::= \("\\n"\? \[ \\t\]\*\) \(call /);
    const required = JSON.parse(
      tagcall(['grammar', '--format', 'llama.cpp', '--calls-only']).stdout,
    );
    expect(required.grammar_lazy).toBe(false);
    const { response_format } = JSON.parse(tagcall(['grammar', '--format', 'xgrammar']).stdout);
    expect(response_format.format.triggers).toEqual(['<tool>']);
    expect(response_format.format.tags[0].content.grammar).toContain(
      '<tool_name>read_file</tool_name>',
    );
  });

  it("tagcall grammar --dialect prints a grammar in the family's own format; a wrong one is refused", () => {
    const qwen = tagcall(['grammar', '--dialect', 'qwen3-coder', '--calls-only']);
    expect(qwen.code).toBe(0);
    expect(qwen.stdout).toContain('<tool_call>\\n<function=read_file>\\n');
    expect(qwen.stdout).toContain('<parameter=path>\\n');
    const lazy = JSON.parse(
      tagcall(['grammar', '--dialect', 'mistral', '--format', 'llama.cpp']).stdout,
    );
    expect(lazy.grammar_lazy).toBe(true);
    expect(lazy.grammar_triggers).toEqual([{ type: 1, value: '[TOOL_CALLS]' }]);
    expect(lazy.grammar).toContain('[TOOL_CALLS]read_file[ARGS]');
    const lark = tagcall(['grammar', '--dialect', 'hermes', '--format', 'lark']);
    expect(lark.stdout).toContain('"name\\": \\"read_file\\"');
    const unknown = tagcall(['grammar', '--dialect', 'qwen4']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--dialect must be one of .*qwen3-coder/);
    const xgrammar = tagcall(['grammar', '--dialect', 'glm', '--format', 'xgrammar']);
    expect(xgrammar.code).toBe(2);
    expect(xgrammar.stderr).toMatch(/<tool> protocol only; for --dialect glm use --format lark/);
  });
});
