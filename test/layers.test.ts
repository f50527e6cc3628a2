import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
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
