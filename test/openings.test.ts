// The search for openings that may stand mid-line, in a short rest of text (a stream's chunk,
// a short reply): src/protocol/openings.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BlockReader } from '../src/protocol/dialects/block.js';
import { firstIn, scanPlan } from '../src/protocol/openings.js';

const plan = (openings: readonly string[]) =>
  scanPlan(openings.map((open) => ({ open }) as BlockReader));

/** The first place any opening stands: a search for each, the least place. */
function firstByEach(openings: readonly string[], text: string, from: number): number {
  const places = openings.map((open) => text.indexOf(open, from)).filter((at) => at !== -1);
  return places.length === 0 ? -1 : Math.min(...places);
}

describe('firstIn', () => {
  it('finds the first opening, as a search for each would', () => {
    // Hermes' openings share `<`, some their second character too; a one-character opening
    // stands wherever `<` does; a lone opening is one search.
    const sets = [
      ['<tool_call>', '<function_call>', '<response>', '<json>', '<tools>', '<tool>', '<function='],
      ['<|START_ACTION|>'],
      ['<', '<tool>'],
      ['[TOOL_CALLS]', '[THINK]'],
    ];
    const pieces = fc.constantFrom(
      '<',
      '<t',
      '<tool',
      '<tool>',
      '<tool_call>',
      '<function=',
      '<|START_ACTION|>',
      '[TOOL_CALLS]',
      '[',
      'a',
      ' ',
      '<x',
      'é',
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...sets),
        fc.array(pieces, { maxLength: 12 }).map((p) => p.join('')),
        fc.nat(40),
        (openings, text, from) => {
          const start = Math.min(from, text.length);
          expect(firstIn(plan(openings), text, start)).toBe(firstByEach(openings, text, start));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
