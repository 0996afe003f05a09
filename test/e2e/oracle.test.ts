import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile, PROFILE_NAMES } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import { Report } from '../../src/report/model.js';
import { PROBES } from '../../suites/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const KEY = 'sk-oracle-test-key-0123456789';
const apiProfiles = PROFILE_NAMES.filter((name) => loadProfile(name).server.mode === 'api');

/**
 * The oracle: audit every reference profile with the real CLI and compare each cell of the matrix with
 * the verdict the profile declares for it.
 */
describe.each(apiProfiles)('profile %s', (name) => {
  const profile = loadProfile(name);
  let server: ReferenceServer;
  let out: string;
  let run: Awaited<ReturnType<typeof runCli>>;
  let report: Report;

  beforeAll(async () => {
    out = await tempDir();
    server = await startReferenceServer({ profile, apiKey: KEY });
    run = await runCli(['--base-url', server.url, '--out', out], { OPENAI_API_KEY: KEY });
    report = Report.parse(JSON.parse(await readFile(join(out, 'report.json'), 'utf8')));
  });
  afterAll(() => server?.close());

  it('declares a verdict for every probe of every listed model', () => {
    for (const m of profile.models.filter((x) => x.listed)) {
      expect(Object.keys(m.expect).sort(), m.id).toEqual(PROBES.map((p) => p.id).sort());
    }
  });

  it('gives every cell the declared verdict', () => {
    const actual = Object.fromEntries(report.results.map((r) => [`${r.model} ${r.probe}`, r.verdict]));
    const expected = Object.fromEntries(
      profile.models.filter((m) => m.listed).flatMap((m) => Object.entries(m.expect).map(([p, v]) => [`${m.id} ${p}`, v])),
    );
    expect(actual).toEqual(expected);
  });

  it('renders the same verdicts in matrix.md', async () => {
    const md = await readFile(join(out, 'matrix.md'), 'utf8');
    for (const p of PROBES) {
      const row = md.split('\n').find((l) => l.startsWith(`| \`${p.id}\` |`));
      expect(row, p.id).toBeDefined();
      const cells = row!.split(' | ').slice(2).map((c) => c.replace(/\s*\|$/, '').split(' ').at(-1));
      const models = profile.models.filter((m) => m.listed);
      expect(cells).toEqual(models.map((m) => m.expect[p.id]));
    }
  });

  it('exits as the verdicts say and writes all four files', async () => {
    const failing = report.results.some((r) => r.outcome === 'failed' || r.outcome === 'errored');
    expect(run.code, run.stderr).toBe(failing ? 1 : 0);
    for (const f of ['report.json', 'junit.xml', 'matrix.md', 'trace.jsonl']) {
      expect((await readFile(join(out, f), 'utf8')).length, f).toBeGreaterThan(0);
    }
  });
});

describe('the default profile', () => {
  it('shows honoured, ignored and rejected, and keeps the wire contract', () => {
    const verdicts = new Set(loadProfile('default').models.flatMap((m) => Object.values(m.expect)));
    expect([...verdicts]).toEqual(expect.arrayContaining(['honoured', 'ignored', 'rejected']));
    expect(verdicts.has('fail')).toBe(false);
    expect(loadProfile('default').models.length).toBeGreaterThanOrEqual(3);
  });
});
