// What a family reads is declared as data too (its module in src/protocol/dialects/): a reader
// names its opening, the patterns that confirm it and the form the engine reads its block by;
// the engine builds the functions from them (src/protocol/built-reader.ts); a markup form's
// openings are data too (`Opening`, read by markup/form.ts's openingsOf). A declaration holds no code.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blockReaders, DIALECTS } from './support/all.js';
import { functionMembers } from './support/function-members.js';

const PROTOCOL = new URL('../src/protocol/', import.meta.url).pathname;

/** The paths of the function values in `value`, at any depth (arrays' items as `[]`). */
function functionsIn(value: unknown, path = '', seen = new Set<object>()): string[] {
  if (typeof value === 'function') return [path];
  if (typeof value !== 'object' || value === null || value instanceof RegExp || seen.has(value))
    return [];
  seen.add(value);
  if (Array.isArray(value)) return value.flatMap((item) => functionsIn(item, `${path}[]`, seen));
  return Object.entries(value).flatMap(([key, item]) =>
    functionsIn(item, path === '' ? key : `${path}.${key}`, seen),
  );
}

describe('a reader’s declaration is data', () => {
  it('BlockReader, at any depth, holds no function', () => {
    expect(functionMembers(join(PROTOCOL, 'block.ts'), 'BlockReader')).toEqual([]);
  });

  it.each(['BodyForm', 'MessageForm', 'SectionCallForm', 'FenceForm'])(
    '%s (src/protocol/body/form.ts) holds no function at any depth',
    (type) => {
      expect(functionMembers(join(PROTOCOL, 'body/form.ts'), type)).toEqual([]);
    },
  );

  it('every dialect’s readers, as blockReaders gives them, hold no function value', () => {
    const found = [...DIALECTS, 'auto' as const].flatMap((dialect) =>
      blockReaders(dialect, ['read_file']).flatMap((reader) =>
        functionsIn(reader).map((path) => `${dialect} ${reader.open}: ${path}`),
      ),
    );
    expect(found).toEqual([]);
  });

  it('finds a function however deep it stands, and takes a pattern as data', () => {
    const declared = {
      open: '<x>',
      lineStart: /y/y,
      reads: { body: { call: { nameOf: () => '' } } },
    };
    expect(functionsIn(declared)).toEqual(['reads.body.call.nameOf']);
    expect(functionsIn({ markup: { call: { read: () => null } } })).toEqual(['markup.call.read']);
  });
});
