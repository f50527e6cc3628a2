// LiteralPrefixes answers for many literals at once what startsWithAt and partialSuffixStart
// answer for one each: the scanner relies on the answers being the same.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LiteralPrefixes } from '../src/protocol/literal-prefixes.js';
import { partialSuffixStart, startsWithAt } from '../src/protocol/tag.js';
import { floodShapes } from './support/flood-shapes.js';

/** Literals and texts made of a few characters, so that they overlap often. */
const literal = fc.string({
  unit: fc.constantFrom('<', '|', 'a', 'b', '>'),
  minLength: 1,
  maxLength: 6,
});
const text = fc.string({ unit: fc.constantFrom('<', '|', 'a', 'b', '>', 'x'), maxLength: 14 });

function eachAsked(literals: readonly string[], s: string, at: number): boolean | null {
  const answers = literals.map((l) => startsWithAt(s, at, l));
  return answers.includes(true) ? true : answers.includes(null) ? null : false;
}

describe('LiteralPrefixes', () => {
  it('answers as each literal asked in turn would, for one literal and many', () => {
    fc.assert(
      fc.property(
        fc.array(literal, { minLength: 1, maxLength: 6 }),
        text,
        fc.nat(),
        (literals, s, n) => {
          const prefixes = new LiteralPrefixes(literals);
          const from = n % (s.length + 1);
          const least = Math.min(...literals.map((l) => partialSuffixStart(s, from, l)));
          expect(prefixes.partialSuffixStart(s, from)).toBe(least);
          for (let at = from; at <= s.length; at++)
            expect(prefixes.standsAt(s, at)).toBe(eachAsked(literals, s, at));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('tells which literals stand at a place, and whether the text ends inside a longer one', () => {
    fc.assert(
      fc.property(fc.array(literal, { minLength: 1, maxLength: 6 }), text, (literals, s) => {
        const prefixes = new LiteralPrefixes(literals);
        for (let at = 0; at <= s.length; at++) {
          const answers = literals.map((l) => startsWithAt(s, at, l));
          const standing = answers.flatMap((answer, k) => (answer === true ? [k] : []));
          expect(prefixes.standingAt(s, at)).toEqual(standing);
          expect(prefixes.endsInside(s, at)).toBe(answers.includes(null));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('goes on with a held beginning exactly while it stays one that holds no literal whole', () => {
    // A held text and what comes after: the walk from the held place answers as the whole
    // text asked from its start would.
    const heldText = (literals: readonly string[], t: string) =>
      literals.some((l) => l.length > t.length && l.startsWith(t)) &&
      !literals.some((l) => t.includes(l));
    fc.assert(
      fc.property(
        fc.array(literal, { minLength: 1, maxLength: 6 }),
        text,
        text,
        (literals, held, more) => {
          const prefixes = new LiteralPrefixes(literals);
          const node = prefixes.heldAt(held, 0);
          expect(node !== null).toBe(held.length > 0 && heldText(literals, held));
          if (node === null) return;
          const next = prefixes.continued(node, more);
          expect(next !== null).toBe(heldText(literals, held + more));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("on auto's own markers, at every end of every flood", () => {
    const markers = [...new Set(floodShapes().map((f) => f.unit.trimEnd()))];
    const prefixes = new LiteralPrefixes(markers);
    for (const unit of markers) {
      const s = `x${unit}${unit}`;
      for (let end = 1; end <= s.length; end++) {
        const cut = s.slice(0, end);
        const least = Math.min(...markers.map((l) => partialSuffixStart(cut, 0, l)));
        expect(prefixes.partialSuffixStart(cut, 0)).toBe(least);
        expect(prefixes.standsAt(cut, 1)).toBe(eachAsked(markers, cut, 1));
      }
    }
  });
});
