import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from './support/all.js';
import { FIXTURES_DIR, parserFixtures } from './support/fixtures.js';

// Each fixture's expected parse sits beside it as NAME.expected.json: read it as the
// specification of that case (they were reviewed one by one when written; `vitest -u`
// rewrites them, and a diff in review shows what a change did to the behaviour).
describe('fixtures parse as their .expected.json says', () => {
  for (const fixture of parserFixtures()) {
    it(fixture.name, async () => {
      const result = parse(fixture.text);
      await expect(`${JSON.stringify(result, null, 2)}\n`).toMatchFileSnapshot(
        join(FIXTURES_DIR, `${fixture.name}.expected.json`),
      );
    });
  }
});
