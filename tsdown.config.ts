import { defineConfig } from 'tsdown';

// Our code (src/, suites/, the bundled profiles) goes into dist/ so npx needs no TypeScript at run time;
// runtime libraries stay in `dependencies` and are imported, not bundled.
export default defineConfig({
  entry: { cli: 'src/cli/main.ts', index: 'src/index.ts' },
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  dts: true,
  clean: true,
  sourcemap: false,
});
