// The temporary folders and open stores of a test file, cleaned up after it: each store
// closed after the test that opened it, each folder removed after the last test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';

/**
 * Registers the hooks (in the file, or the describe it is called in) and returns what makes
 * a temporary folder (named `prefix…` unless told otherwise) and what keeps a store to close.
 */
export function tempDirsAndStores(prefix: string) {
  const dirs: string[] = [];
  const stores: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    tempDir(dirPrefix = prefix): string {
      const dir = mkdtempSync(join(tmpdir(), dirPrefix));
      dirs.push(dir);
      return dir;
    },
    opened<T extends { close(): Promise<void> }>(store: T): T {
      stores.push(store);
      return store;
    },
  };
}
