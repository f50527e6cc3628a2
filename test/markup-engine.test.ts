import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { blockReaders, DIALECTS } from './support/all.js';

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

  it('has no file over 600 lines', () => {
    const long = sources
      .map(({ file, code }) => ({ file, lines: code.split('\n').length - 1 }))
      .filter(({ lines }) => lines > 600);
    expect(long).toEqual([]);
    expect(sources.length).toBeGreaterThan(5);
  });
});
