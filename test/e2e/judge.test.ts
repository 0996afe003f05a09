import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import type { Report } from '../../src/results/model.js';
import { runCli, signalCli } from '../helpers/cli.js';
import { parseReport } from '../helpers/report-schema.js';
import { tempDir } from '../helpers/tmp.js';
import { judgeRecord, readRecorded } from '../../src/pipeline/judge.js';

/**
 * chatprobe judge on runs the oracle test does not make: runs the stop cut short (where the stop came is
 * the record's to say), a record a newer rule asks more of, and no record at all. Every profile's complete
 * run is judged again in test/e2e/oracle.test.ts.
 */

const KEY = 'sk-judge-test-key-0123456789';
const env = { OPENAI_API_KEY: KEY };
/** A row of the progress (piped: one line per model as its row completes): the run is under way. */
const UNDER_WAY = /\[\d+\/\d+\]/;

let stalling: ReferenceServer;
let standard: ReferenceServer;
beforeAll(async () => {
  stalling = await startReferenceServer({ profile: loadProfile('stalling'), apiKey: KEY });
  standard = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
});
afterAll(async () => {
  await stalling.close();
  await standard.close();
});

/** The report as judged again: each cell but for its durationMs (the probe's time on this machine). */
const judgement = (r: Report) => ({ ...r, results: r.results.map(({ durationMs: _, ...cell }) => cell) });

async function judgedAgain(out: string): Promise<{ code: number | null; stderr: string; run: Report; again: Report }> {
  const judged = await runCli(['judge', out]);
  return {
    code: judged.code,
    stderr: judged.stderr,
    run: parseReport(await readFile(join(out, 'report.json'), 'utf8')),
    again: parseReport(await readFile(join(out, 'judged', 'report.json'), 'utf8')),
  };
}

describe('chatprobe judge', () => {
  it("stops at the judge's own Ctrl-C: the cells not yet judged are not run (interrupted), the reports written", async () => {
    const out = await tempDir();
    const run = await runCli(['--base-url', standard.url, '--out', out, '--quiet'], env);
    expect(run.code, run.stderr).toBe(0);
    // Stopped once the plan is known, before any cell is judged: a deterministic stand-in for a Ctrl-C in
    // the middle of a long judgement (before the fix, the replay went on to judge every cell).
    const stop = new AbortController();
    const judged = await judgeRecord(await readRecorded(out), { out: join(out, 'stopped'), quiet: true, json: false }, { plan: () => stop.abort() }, { signal: stop.signal });
    expect(judged.report.interrupted).toBe(true);
    const judgedCells = judged.report.results.filter((r) => r.cause !== 'interrupted');
    expect(judged.report.results.length - judgedCells.length + judged.report.models.filter((m) => m.notRun?.cause === 'interrupted').length).toBeGreaterThan(0);
    // Every cell of the run's report, judged on in full, would have no cause "interrupted".
    expect(judgedCells.length).toBeLessThan(parseReport(await readFile(join(out, 'report.json'), 'utf8')).results.length);
    expect(parseReport(await readFile(join(out, 'stopped', 'report.json'), 'utf8')).interrupted).toBe(true);
  }, 60_000);

  it('reproduces a run --max-duration cut short: the stop comes after the answer the record says, its cells "not run" as they were', async () => {
    const out = await tempDir();
    // The stalled streams hold the run far past a second.
    const run = await runCli(['--base-url', stalling.url, '--out', out, '--timeout', '30', '--max-duration', '1', '--quiet'], env);
    expect(run.code, run.stderr).toBe(1);
    const j = await judgedAgain(out);
    expect(j.run.maxDurationReached).toBe(true);
    expect(j.stderr).toContain('every cell judged as');
    expect(j.code, j.stderr).toBe(1);
    expect(judgement(j.again)).toEqual(judgement(j.run));
    expect(await readFile(join(out, 'judged', 'matrix.md'), 'utf8')).toBe(await readFile(join(out, 'matrix.md'), 'utf8'));
  }, 60_000);

  it('reproduces runs a spending cap stopped: the record says which requests each cap refused, and the replay refuses those', async () => {
    // A whole-run cap (the plan needs 200 and more), and a per-model one every row passes (the leanest needs
    // over 1,500 max tokens), each at the concurrency that mixes the models' requests most.
    for (const [caps, recorded, reached] of [
      [['--max-requests', '60'], { maxRequests: 60 }, [{ cap: 'maxRequests', limit: 60 }]],
      [['--max-tokens-per-model', '1000'], { maxTokensPerModel: 1000 }, [{ cap: 'maxTokensPerModel', limit: 1000, models: 3 }]],
    ] as const) {
      const out = await tempDir();
      const run = await runCli(['--base-url', standard.url, '--out', out, ...caps, '--concurrency', '8', '--quiet'], env);
      expect(run.code, run.stderr).toBe(1);
      const lines = gunzipSync(await readFile(join(out, 'record.jsonl.gz'))).toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
      expect(lines[0].options.caps).toEqual(recorded);
      const refused = lines.filter((l) => l.res?.transport?.code === 'budget');
      expect(refused.length).toBeGreaterThan(0);
      for (const l of refused) expect(l.res.unsent).toBe(true);
      // Where the run stopped, for a whole-run cap; a model's cap stops its row, not the run.
      expect(lines.some((l) => l.stop === 'budget')).toBe('maxRequests' in recorded);
      const j = await judgedAgain(out);
      expect(j.run.budgetReached).toEqual(reached);
      expect(j.stderr).toContain('every cell judged as');
      expect(j.code, j.stderr).toBe(1);
      expect(judgement(j.again)).toEqual(judgement(j.run));
      expect(await readFile(join(out, 'judged', 'matrix.md'), 'utf8')).toBe(await readFile(join(out, 'matrix.md'), 'utf8'));
    }
  }, 90_000);

  it('reproduces a run Ctrl-C interrupted', async () => {
    const out = await tempDir();
    const run = await signalCli(['--base-url', stalling.url, '--out', out, '--timeout', '30'], env, UNDER_WAY, 'SIGINT');
    expect(run.code, run.stderr).toBe(130);
    const j = await judgedAgain(out);
    expect(j.run.interrupted).toBe(true);
    expect(j.stderr).toContain('every cell judged as');
    expect(judgement(j.again)).toEqual(judgement(j.run));
  }, 60_000);

  it('says plainly which cells asked for a request the record does not hold, and exits 2', async () => {
    const out = await tempDir();
    const run = await runCli(['--base-url', standard.url, '--out', out, '--models', 'ref-standard', '--probes', 'chat.basic', '--quiet'], env);
    expect(run.code, run.stderr).toBe(0);
    // As a newer chatprobe would read it: a rule that sends what the run never did (here, a probe more).
    const path = join(out, 'record.jsonl.gz');
    const lines = gunzipSync(await readFile(path)).toString('utf8').split('\n');
    const head = JSON.parse(lines[0]!);
    head.options.probes = ['chat.basic', 'parameters.seed'];
    await writeFile(path, gzipSync([JSON.stringify(head), ...lines.slice(1)].join('\n')));
    const judged = await runCli(['judge', out]);
    expect(judged.code, judged.stderr).toBe(2);
    expect(judged.stderr).toMatch(/\d+ request\(s\) are not in the record .*\n {2}ref-standard parameters\.seed\n/);
    expect(judged.stderr).not.toMatch(/ref-standard chat\.basic\n/);
    expect(judged.stderr).toContain("1 cell(s) judged otherwise than");
  }, 60_000);

  it('refuses a folder without a record, and its own folder as --out', async () => {
    const empty = await tempDir();
    const none = await runCli(['judge', empty]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no run record at');
    const out = await tempDir();
    await runCli(['--base-url', standard.url, '--out', out, '--models', 'ref-standard', '--probes', 'chat.basic', '--quiet'], env);
    const over = await runCli(['judge', out, '--out', out]);
    expect(over.code).toBe(2);
    expect(over.stderr).toContain("is the run's own folder");
    expect((await readdir(out)).sort()).toEqual(['exchanges.har', 'junit.xml', 'matrix.md', 'record.jsonl.gz', 'report.html', 'report.json', 'trace.jsonl']);
  }, 60_000);
});
