import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/parser/', import.meta.url));

export interface Fixture {
  name: string;
  text: string;
}

/** Every parser fixture: real-shaped model output, one `.txt` file each. */
export function parserFixtures(): Fixture[] {
  return readdirSync(FIXTURES_DIR)
    .filter((file) => file.endsWith('.txt'))
    .sort()
    .map((file) => ({
      name: file.slice(0, -4),
      text: readFileSync(join(FIXTURES_DIR, file), 'utf8'),
    }));
}
