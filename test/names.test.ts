import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sharedName } from '../src/protocol/names.js';

describe('shared argument names', () => {
  it('give back a string equal to the name, past the table’s bound and its longest kept name', () => {
    // 1,500 names overflow the 1,024 the table keeps; names up to 80 characters pass its 64.
    const names = fc.array(fc.string({ minLength: 0, maxLength: 80 }), { maxLength: 1500 });
    fc.assert(
      fc.property(names, (written) => {
        for (const name of written) {
          // A copy the table has not seen as such: the way a parser reads a name again.
          const fresh = ` ${name}`.slice(1);
          expect(sharedName(fresh)).toBe(name);
        }
      }),
      { numRuns: 40 },
    );
  });
});
