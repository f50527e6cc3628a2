import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { readJsonCall } from '../src/protocol/json-call.js';
import { blockReaders, DIALECTS } from './support/all.js';
import { functionMembers } from './support/function-members.js';

const MARKUP = fileURLToPath(new URL('../src/protocol/markup/', import.meta.url));
const sources = readdirSync(MARKUP)
  .filter((file) => file.endsWith('.ts'))
  .map((file) => ({ file, code: readFileSync(join(MARKUP, file), 'utf8') }));

/** The texts of a module's string, template and regex literals: its code, not its comments. */
function literals(file: string, code: string): string[] {
  const texts: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) texts.push(node.text);
    else if (ts.isTemplateExpression(node)) {
      texts.push(node.head.text);
      for (const span of node.templateSpans) texts.push(span.literal.text);
    } else if (ts.isRegularExpressionLiteral(node)) texts.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true));
  return texts;
}

/**
 * Every family's markers that a literal could hold: each dialect's block openings (Cline's
 * for one tool), and the markers inside a call that the issue counted in the engine.
 */
function familyMarkers(): string[] {
  const openings = [...DIALECTS, 'auto' as const].flatMap((dialect) =>
    blockReaders(dialect, ['read_file']).map((reader) => reader.open),
  );
  const inside = ['<function=', '<parameter=', '<arg_key>', '<arg_value>', '<invoke', 'tool_name'];
  return [...new Set([...openings, ...inside])].filter((m) => m.length >= 3 && /[a-z]/i.test(m));
}

describe('src/protocol/markup: the engine of the markup families', () => {
  it('writes no family marker in its code: the markers are the dialect modules’ data', () => {
    const markers = familyMarkers();
    expect(markers).toEqual(expect.arrayContaining(['<tool>', '<tool_call>', '<function=']));
    const found = sources.flatMap(({ file, code }) =>
      literals(file, code).flatMap((text) =>
        markers.filter((marker) => text.includes(marker)).map((marker) => `${file}: ${marker}`),
      ),
    );
    expect(found).toEqual([]);
  });

  it('reads literals from code only, so the check above can see a marker', () => {
    const code =
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal's code, as text
      "// '<tool_call>' in a comment\nconst a = '<tool_call>';\nconst b = `x${a}<function=`;";
    expect(literals('x.ts', code)).toEqual(['<tool_call>', 'x', '<function=']);
  });

  it('takes a family’s declaration as data: its openings too', () => {
    expect(functionMembers(join(MARKUP, 'form.ts'), 'MarkupForm')).toEqual([]);
  });

  it('has no file over 600 lines', () => {
    const long = sources
      .map(({ file, code }) => ({ file, lines: code.split('\n').length - 1 }))
      .filter(({ lines }) => lines > 600);
    expect(long).toEqual([]);
    expect(sources.length).toBeGreaterThan(5);
  });
});

describe('the JSON form of a call: its keys are the declaration’s', () => {
  it('reads the fields the keys name, and the arguments’ key in its messages', () => {
    const keys = { tool: 'tool', server: 'via', arguments: 'args' };
    expect(readJsonCall('{"via": " s ", "tool": " f ", "args": {"x": 1}}', 64, keys)).toEqual({
      ok: true,
      serverName: 's',
      toolName: 'f',
      arguments: { x: 1 },
      warnings: [],
    });
    expect(readJsonCall('{"tool": "f", "args": [1]}', 64, keys)).toMatchObject({
      ok: false,
      message: '"args" must be an object',
    });
    // Not the `<tool>` protocol's keys: these name nothing here.
    expect(readJsonCall('{"tool_name": "f", "arguments": {"x": 1}}', 64, keys)).toMatchObject({
      ok: true,
      toolName: undefined,
      arguments: {},
    });
  });
});
