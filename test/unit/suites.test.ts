import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROBES } from '../../suites/index.js';
import { ROOT } from '../helpers/cli.js';

async function probeFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await probeFiles(path)));
    else if (entry.name.endsWith('.ts') && dir !== join(ROOT, 'suites') && !dir.endsWith('/support')) out.push(path);
  }
  return out;
}

describe('the probe catalogue', () => {
  it('lists every probe file under suites/ exactly once', async () => {
    const files = await probeFiles(join(ROOT, 'suites'));
    expect(PROBES.length).toBe(files.length);
    const loaded = await Promise.all(files.map(async (f) => (await import(f)).default.id as string));
    expect(loaded.sort()).toEqual(PROBES.map((p) => p.id).sort());
    // One file per feature, in a folder named after its area.
    for (const f of files) {
      const mod = (await import(f)).default;
      expect(relative(join(ROOT, 'suites'), f).split('/')[0], f).toBe(mod.area);
    }
  });

  it('has unique, well-formed ids with a requirement and a cost', () => {
    const ids = PROBES.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of PROBES) {
      expect(p.id).toMatch(/^[a-z_]+(\.[a-z0-9_]+)+$/);
      expect(p.requirement.length, p.id).toBeGreaterThan(10);
      expect(p.cost.requests).toBeGreaterThanOrEqual(0);
    }
  });
});

describe('the README', () => {
  it('names every probe and every bundled profile', async () => {
    const { readFile } = await import('node:fs/promises');
    const { PROFILE_NAMES } = await import('../../src/reference/profiles.js');
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    for (const p of PROBES) expect(readme, p.id).toContain(`\`${p.id}\``);
    for (const name of PROFILE_NAMES) expect(readme, name).toContain(`\`${name}\``);
  });

  it('pins the package’s own version in every CI snippet, and the licence it names ships', async () => {
    const { readFile } = await import('node:fs/promises');
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string; license: string; files: string[] };
    const ci = readme.slice(readme.indexOf('## CI: fail only on regressions'));
    const pinned = [...ci.matchAll(/npx chatprobe(@[\w.-]+)?[ \n]/g)].map((m) => m[1]);
    expect(pinned.length).toBeGreaterThan(0);
    expect(new Set(pinned)).toEqual(new Set([`@${pkg.version}`]));
    expect(pkg.license).toBe('MIT');
    expect(await readFile(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    expect(pkg.files).toContain('LICENSE');
  });
});
