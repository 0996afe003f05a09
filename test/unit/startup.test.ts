import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/**
 * The modules `chatprobe --help` and `--version` load before they answer: src/cli/main.ts and what it
 * imports statically, value imports only (`import type` is erased; a dynamic import() waits for a command).
 */
function staticImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!file.startsWith('/')) return; // a package
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec).replace(/\.js$/, '.ts'));
      else visit(spec);
    }
  };
  visit(`${ROOT}src/cli/main.ts`);
  return seen;
}

describe('start-up', () => {
  it('--help and --version load neither zod nor the report writers (start-up is measured in the bench: ≤ 2.5× node -e 0)', () => {
    const loaded = [...staticImports(`${ROOT}src/cli/main.ts`)];
    expect(loaded.filter((f) => f === 'zod' || f === 'undici' || f === 'ajv' || f.includes('/report/writers/') || f.endsWith('/results/model.ts'))).toEqual([]);
    expect(loaded.length).toBeGreaterThan(5);
  });
});
