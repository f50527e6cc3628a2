import { afterEach } from 'vitest';

/**
 * Registers the hook and returns the list a test pushes its clean-ups to (closing a server,
 * removing a folder): after each test they run, the last pushed first, and the list empties.
 */
export function cleanupsAfterEach(): Array<() => unknown> {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return cleanups;
}
