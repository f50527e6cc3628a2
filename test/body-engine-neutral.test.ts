// The body engine (src/protocol/body/) and the tag reader (src/protocol/tag.ts) read every body
// family from its declaration in src/protocol/dialects/: their code names no family and writes
// no family's marker. Comments may give examples; string literals, templates, regular
// expressions and names may not.
import { readdirSync, readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { blockReaders } from '../src/protocol/dialects/index.js';
import { DIALECTS } from './support/all.js';

const PROTOCOL = new URL('../src/protocol/', import.meta.url);
const ENGINE_FILES = [
  ...readdirSync(new URL('body/', PROTOCOL))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => `body/${file}`),
  'tag.ts',
];

/** Each family's openings, and the markers its body declaration holds beyond them. */
const MARKERS = [
  ...new Set(
    DIALECTS.filter((dialect) => dialect !== 'tagcall')
      .flatMap((dialect) => blockReaders(dialect, []).map((reader) => reader.open))
      // A JSON call object's own beginning (`{"name"`) is the engine's, not a family's.
      .filter((open) => open.length >= 3 && !open.startsWith('{')),
  ),
  '<|"|>',
  '<|message|>',
  '<|call|>',
  '<|end|>',
  '<|return|>',
  '<|start|>',
  'to=functions.',
  '```',
];
/** A special token's shape: no family's marker is generic. */
const SPECIAL_TOKEN = /<\||<｜|\|>|｜>/;

/** Family words in names and literals: the dialects' names, less the generic words in some. */
const GENERIC_WORDS = new Set(['xml', 'json', 'coder', 'seed', 'oss', 'step', 'command', 'r7b']);
const FAMILY_WORDS = [
  ...new Set(
    DIALECTS.filter((dialect) => dialect !== 'tagcall')
      .flatMap((dialect) => dialect.split('-'))
      .map((word) => word.replace(/\d+$/, ''))
      .filter((word) => word.length >= 3 && !GENERIC_WORDS.has(word)),
  ),
  'harmony',
  'gpt',
];

/** The literals (strings, template parts, regular expressions) and names of a file's code. */
function codeWords(path: string): Array<{ kind: 'literal' | 'name'; text: string; line: number }> {
  const text = readFileSync(new URL(path, PROTOCOL), 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ kind: 'literal' | 'name'; text: string; line: number }> = [];
  const line = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node) ||
      ts.isRegularExpressionLiteral(node)
    )
      found.push({ kind: 'literal', text: node.text, line: line(node) });
    else if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node))
      found.push({ kind: 'name', text: node.text, line: line(node) });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the body engine knows no family', () => {
  it('finds the markers it looks for', () => {
    expect(MARKERS).toContain('<|tool_call_start|>');
    expect(FAMILY_WORDS).toEqual(expect.arrayContaining(['gemma', 'deepseek', 'minicpm', 'kimi']));
    expect(ENGINE_FILES).toContain('body/reader.ts');
  });

  for (const file of ENGINE_FILES)
    it(`${file}: no family's marker or name in its code`, () => {
      const offending = codeWords(file).filter(({ kind, text }) => {
        const lower = text.toLowerCase();
        if (FAMILY_WORDS.some((word) => lower.includes(word))) return true;
        return (
          kind === 'literal' &&
          (SPECIAL_TOKEN.test(text) || MARKERS.some((marker) => text.includes(marker)))
        );
      });
      expect(offending.map(({ text, line }) => `${file}:${line} ${text}`)).toEqual([]);
    });
});
