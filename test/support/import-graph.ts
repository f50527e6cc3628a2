import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** Each module's path (relative to the folder read) and the modules of the folder it imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/**
 * What each source imports from the others, by the compiler's own reading of import lines:
 * `import type`, `export … from` and `import()` count (a type-only import binds the layers as
 * a value import does). Keys are paths relative to one folder; `./x.js` names `x.ts`.
 */
export function importGraph(sources: ReadonlyMap<string, string>): ImportGraph {
  const graph = new Map<string, string[]>();
  for (const [path, code] of sources) {
    const imported = ts
      .preProcessFile(code, true, true)
      .importedFiles.map((ref) => ref.fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) =>
        relative('/', resolve('/', dirname(path), specifier.replace(/\.js$/, '.ts'))),
      )
      .filter((target) => sources.has(target));
    graph.set(path, [...new Set(imported)]);
  }
  return graph;
}

/** The import graph of every `.ts` file under `folder`. */
export function importGraphOf(folder: string): ImportGraph {
  const sources = new Map<string, string>();
  for (const path of readdirSync(folder, { recursive: true, encoding: 'utf8' }))
    if (path.endsWith('.ts')) sources.set(path, readFileSync(join(folder, path), 'utf8'));
  return importGraph(sources);
}

/**
 * Circles of imports (each with its first module repeated at its end), one per import that
 * leads back into the path of a depth-first walk: empty exactly when the modules form layers.
 */
export function importCycles(graph: ImportGraph): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  // Recursive: its depth is at most the number of modules (a few hundred).
  const walk = (module: string): void => {
    path.push(module);
    onPath.add(module);
    for (const next of graph.get(module) ?? []) {
      if (onPath.has(next)) cycles.push([...path.slice(path.indexOf(next)), next]);
      else if (!done.has(next)) walk(next);
    }
    path.pop();
    onPath.delete(module);
    done.add(module);
  };
  for (const module of [...graph.keys()].sort()) if (!done.has(module)) walk(module);
  return cycles;
}
