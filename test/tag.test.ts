// The literal matching every reader waits on (src/protocol/tag.ts): at a chunk's end, a
// literal that may still come is `null` (wait), one that cannot is `false` (decide now: the
// text goes out at once rather than after the rest of the literal's length has arrived).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { partialSuffixStart, searchAnchor, startsWithAt } from '../src/protocol/tag.js';

describe('startsWithAt', () => {
  it('is true for the whole literal, null for a beginning cut by the end, false otherwise', () => {
    expect(startsWithAt('a</tool>', 1, '</tool>')).toBe(true);
    expect(startsWithAt('a</to', 1, '</tool>')).toBeNull();
    expect(startsWithAt('a<', 1, '</tool>')).toBeNull();
    expect(startsWithAt('a</x', 1, '</tool>')).toBe(false);
    expect(startsWithAt('a<|x', 1, '<|call|>')).toBe(false);
    expect(startsWithAt('a<｜DS', 1, '<｜DSML｜')).toBeNull();
    expect(startsWithAt('a', 1, '</tool>')).toBeNull();
  });

  it('agrees with the definition on any text and literal', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 12 }),
        fc.string({ minLength: 1, maxLength: 8 }),
        fc.nat(12),
        (s, literal, at0) => {
          const at = Math.min(at0, s.length);
          const rest = s.slice(at);
          const expected =
            rest.length >= literal.length
              ? rest.startsWith(literal)
              : literal.startsWith(rest)
                ? null
                : false;
          expect(startsWithAt(s, at, literal)).toBe(expected);
        },
      ),
    );
  });
});

describe('partialSuffixStart', () => {
  it('finds where a cut-off beginning of the literal starts at the end, or the end', () => {
    expect(partialSuffixStart('text </to', 0, '</tool>')).toBe(5);
    expect(partialSuffixStart('text </x', 0, '</tool>')).toBe(8);
    expect(partialSuffixStart('text <', 0, '</tool>')).toBe(5);
  });
});

describe('searchAnchor', () => {
  it('starts past a leading < or at the first character beyond ASCII', () => {
    expect(searchAnchor('<|python_tag|>')).toBe(1);
    expect(searchAnchor('<｜DSML｜')).toBe(1);
    expect(searchAnchor('[TOOL_CALLS]')).toBe(0);
    expect(searchAnchor('<|')).toBe(0);
  });
});
