import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Property tests run thousands of parses per case; the default 5 s is for unit tests.
    testTimeout: 120_000,
  },
});
