import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { THINK_TAG } from '../src/protocol/thinking.js';
import { blockReaders, DIALECTS, THINK_TAGS } from './support/all.js';
import { importCycles, importGraph, importGraphOf } from './support/import-graph.js';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

describe('the layers of src/', () => {
  it('no module imports itself back, through any path (type-only imports count)', () => {
    const graph = importGraphOf(SRC);
    expect(graph.size).toBeGreaterThan(100);
    expect(importCycles(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('the engine imports no family module: only the parser and the public index read src/protocol/dialects', () => {
    const graph = importGraphOf(SRC);
    const readers = [...graph]
      .filter(([module, imported]) => {
        const engine = module.startsWith('protocol/') && !module.startsWith('protocol/dialects/');
        return engine && imported.some((target) => target.startsWith('protocol/dialects/'));
      })
      .map(([module]) => module)
      .sort();
    expect(readers).toEqual(['protocol/index.ts', 'protocol/parser.ts']);
  });

  it('finds a circle made only of type-only imports, and one through a re-export', () => {
    const graph = importGraph(
      new Map([
        [
          'a/events.ts',
          "import type { Dialect } from '../b/index.js';\nexport type Format = Dialect;",
        ],
        ['b/index.ts', "export { block } from './block.js';\nexport type Dialect = 'x';"],
        ['b/block.ts', "import type { Format } from '../a/events.js';\nexport const block = 1;"],
        ['c/leaf.ts', "import { block } from '../b/block.js';\nimport 'node:fs';"],
      ]),
    );
    expect(importCycles(graph)).toEqual([
      ['a/events.ts', 'b/index.ts', 'b/block.ts', 'a/events.ts'],
    ]);
    const layered = importGraph(
      new Map([
        ['a/events.ts', "import type { Dialect } from '../b/names.js';"],
        ['b/names.ts', "export type Dialect = 'x';"],
        ['b/block.ts', "import type { Format } from '../a/events.js';"],
      ]),
    );
    expect(importCycles(layered)).toEqual([]);
  });
});

/** What a source writes in words: its strings, template texts and comments, not its code. */
function writtenText(code: string): string {
  const source = ts.createSourceFile('source.ts', code, ts.ScriptTarget.Latest, true);
  // By where they start: a comment is met again by every node that starts after it.
  const parts = new Map<number, string>();
  const visit = (node: ts.Node): void => {
    const comments = [
      ...(ts.getLeadingCommentRanges(code, node.pos) ?? []),
      ...(ts.getTrailingCommentRanges(code, node.end) ?? []),
    ];
    for (const range of comments) parts.set(range.pos, code.slice(range.pos, range.end));
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node))
      parts.set(node.getStart(source), node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...parts.values()].join('\n');
}

describe('the opening search, the scanner and thinking hold no family', () => {
  // Every family's openings (Cline's tags are tool names: one is given), but for one-sign
  // ones (`[`, `{`) that any parser of text names, and the families' thinking tags.
  const markers = [
    ...new Set(
      [...DIALECTS, 'auto' as const].flatMap((dialect) =>
        blockReaders(dialect, ['read_file']).map((reader) => reader.open),
      ),
    ),
    ...THINK_TAGS.filter((tags) => tags !== THINK_TAG).flat(),
  ].filter((open) => open.length > 1);
  const families = DIALECTS.filter((dialect) => dialect !== 'tagcall');

  it.each([
    'openings.ts',
    'scanner.ts',
    'prose-lines.ts',
    'thinking.ts',
    'prefilled-thinking.ts',
    'built-reader.ts',
  ])(
    'src/protocol/%s writes no family marker nor name, in code or comments (they are in the declarations)',
    (file) => {
      const text = writtenText(
        readFileSync(new URL(`../src/protocol/${file}`, import.meta.url), 'utf8'),
      );
      expect(markers.length).toBeGreaterThan(30);
      expect(markers.filter((marker) => text.includes(marker))).toEqual([]);
      expect(families.filter((name) => new RegExp(`\\b${name}\\b`, 'i').test(text))).toEqual([]);
    },
  );

  it('reads strings and comments, not code', () => {
    const text = writtenText(
      "const x = (a + b) >>> 1; // a `<tool_call>`\nconst y = '[TOOL_CALLS]';",
    );
    expect(text).toContain('<tool_call>');
    expect(text).toContain('[TOOL_CALLS]');
    expect(text).not.toContain('>>>');
  });
});
