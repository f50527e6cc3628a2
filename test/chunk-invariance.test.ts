import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from './support/all.js';
import { cutsArbitrary, feedChunks, splitAt } from './support/chunk.js';
import {
  delimiterSoupArbitrary,
  dialectSoupArbitrary,
  documentArbitrary,
  proseLinesArbitrary,
} from './support/documents.js';
import { parserFixtures } from './support/fixtures.js';

const RUNS_PER_FIXTURE = 1000;

describe('chunk invariance: every split of the input folds to the result of one feed', () => {
  for (const fixture of parserFixtures()) {
    it(`fixture ${fixture.name}`, () => {
      const whole = parse(fixture.text);
      expect(feedChunks(Array.from(fixture.text)).result).toEqual(whole);
      expect(feedChunks(fixture.text.split('')).result).toEqual(whole);
      fc.assert(
        fc.property(cutsArbitrary, (cuts) => {
          expect(feedChunks(splitAt(fixture.text, cuts)).result).toEqual(whole);
        }),
        { numRuns: RUNS_PER_FIXTURE },
      );
    });
  }

  it('generated documents', () => {
    fc.assert(
      fc.property(documentArbitrary, cutsArbitrary, (text, cuts) => {
        expect(feedChunks(splitAt(text, cuts)).result).toEqual(parse(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('lines of prose around line-start constructs, in chunks of every size', () => {
    fc.assert(
      fc.property(proseLinesArbitrary, cutsArbitrary, (text, cuts) => {
        expect(feedChunks(splitAt(text, cuts)).result).toEqual(parse(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('strings of delimiters, one character per chunk', () => {
    fc.assert(
      fc.property(delimiterSoupArbitrary, (text) => {
        expect(feedChunks(text.split('')).result).toEqual(parse(text));
      }),
      { numRuns: 2000 },
    );
  });

  for (const options of [
    { maxHold: 40, maxCallBytes: 120, maxDepth: 2 },
    { maxHold: 5, maxCallBytes: 30, maxDepth: 1 },
    { prefilledThinking: 'always' as const },
    { prefilledThinking: 'never' as const },
    { dialect: 'auto' as const, toolNames: ['read_file'] },
    { dialect: 'auto' as const, toolNames: ['read_file'], maxCallBytes: 40 },
  ]) {
    it(`decides the same way whatever the chunking with ${JSON.stringify(options)}`, () => {
      fc.assert(
        fc.property(
          fc.oneof(documentArbitrary, delimiterSoupArbitrary, dialectSoupArbitrary),
          cutsArbitrary,
          (text, cuts) => {
            expect(feedChunks(splitAt(text, cuts), options).result).toEqual(parse(text, options));
          },
        ),
        { numRuns: 1000 },
      );
    });
  }
});
