import { describe, expect, it } from 'vitest';
import { createParser, type Dialect } from './support/all.js';
import { floodChunks } from './support/flood-shapes.js';

// A flood of line-start `[` (each waits for a `]` up to maxHold ahead) read the held text again
// per bracket: ~16 KiB re-sliced and re-searched per line, 170 ms for 64 KiB in every dialect.
// Work is counted, not timed: the characters the parser slices, joins and searches with
// `indexOf`. That work was O(lines x maxHold): maxHold grows with the flood here (a quarter of
// it), so twice the lines cost 4x, where reading each character a bounded number of times is 2x.

/** Characters sliced, joined and searched while `work` runs. */
function charactersRead(work: () => void): number {
  const { indexOf, slice } = String.prototype;
  const { join } = Array.prototype;
  let read = 0;
  String.prototype.indexOf = function (this: string, search: string, from?: number) {
    const at = indexOf.call(this, search, from);
    read += (at === -1 ? this.length : at + search.length) - Math.max(0, from ?? 0);
    return at;
  };
  String.prototype.slice = function (this: string, start?: number, end?: number) {
    const part = slice.call(this, start, end);
    read += part.length;
    return part;
  };
  Array.prototype.join = function (this: unknown[], separator?: string) {
    const joined = join.call(this, separator);
    read += joined.length;
    return joined;
  };
  try {
    work();
  } finally {
    String.prototype.indexOf = indexOf;
    String.prototype.slice = slice;
    Array.prototype.join = join;
  }
  return read;
}

/** A flood of `[\n` lines, `length` characters in chunks of 1-4, maxHold a quarter of it. */
function read(dialect: Dialect, length: number): void {
  const parser = createParser({ dialect, maxHold: length / 4, onEvent: () => {} });
  for (const chunk of floodChunks('[\n', length)) parser.feed(chunk);
  parser.end();
}

describe('a flood of line-start brackets', () => {
  for (const dialect of ['tagcall', 'mistral'] as const)
    it(`costs linear work in ${dialect} (twice the lines, about twice the characters read)`, () => {
      const ratio =
        charactersRead(() => read(dialect, 16_384)) / charactersRead(() => read(dialect, 8_192));
      expect(ratio).toBeLessThan(2.5);
    });
});
