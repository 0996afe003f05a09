import { readFile } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { PROFILE_NAMES } from '../../src/reference/profile-names.js';
import { profileJsonSchema } from '../../src/reference/profile.js';
import { ROOT, runCommand } from '../helpers/cli.js';

/**
 * What `npm pack` puts in the tarball, as npm lists it (scripts not run: no build), against what the
 * packed Markdown links: a reader of the package on disk or on the registry follows those links.
 */
async function packedFiles(): Promise<Set<string>> {
  const run = await runCommand('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { HOME: process.env.HOME ?? ROOT });
  expect(run.code, run.stderr).toBe(0);
  const [pack] = JSON.parse(run.stdout) as { files: { path: string }[] }[];
  return new Set(pack!.files.map((f) => f.path));
}

/** The relative link targets of a Markdown text: inline links and images, and reference definitions. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');
  const targets = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g), ...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]!);
  return targets.filter((t) => !/^([a-z][a-z0-9+.-]*:|#)/i.test(t)).map((t) => decodeURIComponent(t.replace(/[#?].*$/, '')));
}

describe('the packed package', () => {
  it('holds every file its Markdown links', async () => {
    const files = await packedFiles();
    const markdown = [...files].filter((f) => f.endsWith('.md'));
    expect(markdown).toContain('README.md');
    const dead: string[] = [];
    let checked = 0;
    for (const doc of markdown) {
      for (const link of relativeLinks(await readFile(join(ROOT, doc), 'utf8'))) {
        checked++;
        const target = normalize(join(dirname(doc), link)).replace(/\/$/, '');
        const found = files.has(target) || [...files].some((f) => f.startsWith(`${target}/`));
        if (!found) dead.push(`${doc} → ${link}`);
      }
    }
    expect(dead).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(4);
  }, 60_000);

  it('ships the profile schema: the zod model as JSON Schema, which every bundled profile meets', async () => {
    const shipped = JSON.parse(await readFile(join(ROOT, 'schema', 'profile.schema.json'), 'utf8'));
    // npm run schema writes it; a changed model needs it written again.
    expect(shipped).toEqual(profileJsonSchema());
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(shipped);
    for (const name of PROFILE_NAMES) {
      const profile = JSON.parse(await readFile(join(ROOT, 'fixtures', 'profiles', `${name}.json`), 'utf8'));
      expect(validate(profile), `${name}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
    }
    expect(validate({ name: 'x', description: 'y', models: [] })).toBe(false);
  });
});
