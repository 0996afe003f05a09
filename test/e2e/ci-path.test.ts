import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import { runCli, signalCli } from '../helpers/cli.js';
import { holdingServer } from '../helpers/holding.js';
import { parseReport } from '../helpers/report-schema.js';
import { tempDir } from '../helpers/tmp.js';

/** What a CI user meets on the way: the demo, a Ctrl-C, yesterday's reports, a disk that refuses a file, doctor --json. */

const KEY = 'sk-ci-path-test-key-5678';
const env = { OPENAI_API_KEY: KEY };
const UNDER_WAY = /\[\d+\/\d+\]/;

let reference: ReferenceServer;
let stalling: ReferenceServer;
beforeAll(async () => {
  reference = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
  stalling = await startReferenceServer({ profile: loadProfile('stalling'), apiKey: KEY });
});
afterAll(async () => {
  await reference.close();
  await stalling.close();
});

describe('the demo', () => {
  it("runs with its own key whatever the user's $OPENAI_API_KEY holds (a trailing line break, here)", async () => {
    const out = await tempDir();
    const run = await runCli(['demo', '--probes', 'chat.basic', '--out', out, '--quiet'], { OPENAI_API_KEY: 'sk-users-own-key-0000\n' });
    expect(run.stderr).not.toContain('the key is at fault');
    expect(run.code, run.stderr).toBe(0);
    expect(parseReport(await readFile(join(out, 'report.json'), 'utf8')).results.length).toBeGreaterThan(0);
  });
});

describe('Ctrl-C while the models are discovered', () => {
  it('says one true thing: nothing was audited and no report is written, never "finishing the partial report"', async () => {
    const stub = await holdingServer();
    try {
      const out = await tempDir();
      const run = await signalCli(['--base-url', stub.url, '--out', out, '--timeout', '60'], env, stub.asked, 'SIGINT');
      expect(run.code, run.stderr).toBe(130);
      expect(run.stderr).not.toContain('partial report');
      expect(run.stderr).toContain('interrupted while discovering the models: stopping (nothing audited yet, so no report will be written)');
      expect(run.stderr).toContain('no report written');
      expect(await readdir(out)).toEqual([]);
    } finally {
      await stub.close();
    }
  });
});

describe("yesterday's complete reports", () => {
  it('are kept, whole, in last-complete/ when a partial run takes their place, and the run says where', async () => {
    const out = await tempDir();
    const complete = await runCli(['--base-url', reference.url, '--out', out, '--probes', 'chat.basic', '--quiet'], env);
    expect(complete.code, complete.stderr).toBe(0);
    const files = (await readdir(out)).sort();
    expect(files).toEqual(['exchanges.har', 'junit.xml', 'matrix.md', 'record.jsonl.gz', 'report.html', 'report.json', 'trace.jsonl']);
    const before = Object.fromEntries(await Promise.all(files.map(async (f) => [f, await readFile(join(out, f), 'utf8')] as const)));

    const interrupted = await signalCli(['--base-url', stalling.url, '--out', out, '--timeout', '30'], env, UNDER_WAY, 'SIGINT');
    expect(interrupted.code, interrupted.stderr).toBe(130);
    expect(parseReport(await readFile(join(out, 'report.json'), 'utf8')).interrupted).toBe(true);
    const kept = join(out, 'last-complete');
    expect(interrupted.stderr).toMatch(/the previous complete reports \(the run started [^)]+\) are kept in \S*last-complete: this run's, beside them, are partial/);
    expect((await readdir(kept)).sort()).toEqual(files);
    for (const f of files) expect(await readFile(join(kept, f), 'utf8'), f).toBe(before[f]);

    // A second partial run replaces the partial one, and leaves the complete one where it is.
    const again = await signalCli(['--base-url', stalling.url, '--out', out, '--timeout', '30'], env, UNDER_WAY, 'SIGINT');
    expect(again.code).toBe(130);
    expect(again.stderr).not.toContain('are kept in');
    expect(await readFile(join(kept, 'report.json'), 'utf8')).toBe(before['report.json']);
  }, 60_000);
});

describe('a report file that cannot be written after the run', () => {
  it('is exit 2, "could not test", in our words, with the other reports written', async () => {
    const out = await tempDir();
    // A folder where junit.xml goes: the folder is writable (checked before the run), the file cannot be put in place.
    await mkdir(join(out, 'junit.xml'));
    await writeFile(join(out, 'junit.xml', 'keep'), '');
    const run = await runCli(['--base-url', reference.url, '--out', out, '--probes', 'chat.basic', '--quiet'], env);
    expect(run.stderr).toContain('error: could not write junit.xml: a folder is in its place');
    expect(run.stderr).not.toMatch(/EISDIR|ENOTEMPTY|rename/);
    expect(run.code).toBe(2);
    expect(parseReport(await readFile(join(out, 'report.json'), 'utf8')).summary?.exitCode).toBe(0);
  });
});

describe('doctor --json', () => {
  it('gives each model its checks: name, state, what was seen, advice', async () => {
    const run = await runCli(['doctor', '--base-url', reference.url, '--models', 'ref-standard', 'no-such-model', '--json'], env);
    expect(run.code, run.stderr).toBe(1);
    const models = JSON.parse(run.stdout) as { id: string; checks: { name: string; state: string; seen: string; advice?: string }[] }[];
    const standard = models.find((m) => m.id === 'ref-standard')!;
    expect(standard.checks.map((c) => [c.name, c.state])).toEqual([
      ['listed by GET /models', 'pass'],
      ['token accepted', 'pass'],
      ["token's group can reach it", 'pass'],
      ['quota left', 'pass'],
      ['no rate limit, upstream answers', 'pass'],
    ]);
    expect(standard.checks.at(-1)!.seen).toMatch(/^HTTP 200 in \d+ ms/);
    const missing = models.find((m) => m.id === 'no-such-model')!;
    expect(missing.checks).toEqual([{ name: 'listed by GET /models', state: 'fail', seen: expect.any(String), advice: expect.stringMatching(/\w/) }]);
  });
});
