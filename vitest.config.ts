import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The e2e tests spawn the CLI; two cores run two files at a time without starving each other.
    maxWorkers: 2,
  },
});
