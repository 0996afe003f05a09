import { defineConfig } from 'vitest/config';

// The real-server suite (npm run test:real): llama.cpp's llama-server, built by npm run real:setup.
export default defineConfig({
  test: {
    include: ['test/real/**/*.test.ts'],
    // Builds dist/cli.mjs from the sources under test: without it the suite audits whatever bundle an
    // earlier run left (or fails to find one in a fresh checkout).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    // One file, two servers: the cores go to inference.
    maxWorkers: 1,
  },
});
