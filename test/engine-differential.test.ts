import { describe, expect, it } from 'vitest';
import { ALL_DIALECTS } from './support/dialect-inputs.js';
import { firstDifference, outcomeOf, readRecording } from './support/engine-recording.js';

// #42's guard: the engine against its recording from before the rewrite (fixtures/engine-events/,
// docs/development.md "The engine's recording"), event by event, every dialect. The recorded inputs
// (every parser, dialect, rendered and peer fixture, seeded samples of the property generators)
// are fed whole and in 3-character chunks; the renderer's calls and the family grammars are
// compared too. A failure names the case and its first differing event.

/** How many differing cases a failure lists: the first shows the change, the rest its reach. */
const SHOWN = 5;

describe("the engine's events are the recorded ones (fixtures/engine-events/)", () => {
  for (const dialect of ALL_DIALECTS)
    it(dialect, () => {
      const recorded = readRecording(dialect);
      expect(recorded.length).toBeGreaterThan(100);
      const differences: string[] = [];
      for (const { case: c, outcome } of recorded) {
        const difference = firstDifference(outcome, outcomeOf(c));
        if (difference !== null)
          differences.push(`${dialect} ${c.kind} "${c.name}": ${difference}`);
      }
      const shown = differences.slice(0, SHOWN).join('\n\n');
      expect(
        differences.length,
        `${differences.length} of ${recorded.length} cases differ from the recording:\n\n${shown}`,
      ).toBe(0);
    });
});
