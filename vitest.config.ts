import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/cli.mjs, which the end-to-end tests run.
    globalSetup: ['test/global-setup.ts'],
    // The real-server suite has its own config and command (npm run test:real).
    exclude: ['test/real/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The e2e tests spawn the CLI; two cores run two files at a time without starving each other.
    maxWorkers: 2,
  },
});
