/**
 * chatprobe judge on real runs: llama.cpp's llama-server audited as llama-server.test.ts audits it (the
 * model that stops at --concurrency 2, the one that never stops with a key at --concurrency 1, every
 * probe), each run judged again offline from its record. Real timings, real streams, a smoke call cut by
 * --timeout and sent again with a limit, seeded samples: every cell must come out as the run wrote it.
 * Its own two runs (the truth table's file is left as it is), so this file costs as much again.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { Report } from '../../src/results/model.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { realPaths, startLlama, stopAll } from './llama.js';

const KEY = 'sk-real-judge-test-0123456789';
const TIMEOUT_S = '30';

const read = async (dir: string) => Report.parse(JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')));
/** The report but for each cell's durationMs: the probe's time on this machine, which a replay does not take. */
const judgement = (r: Report) => ({ ...r, results: r.results.map(({ durationMs: _, ...cell }) => cell) });

describe('a real llama.cpp run, judged again from its record', () => {
  afterAll(stopAll);

  it.each([
    ['stops', undefined, ['--concurrency', '2']],
    ['runaway', KEY, ['--concurrency', '1']],
  ] as const)('reproduces every cell of the %s model’s run', async (model, key, args) => {
    const server = await startLlama(realPaths(), model, `tiny-${model}`, key ? { apiKey: key } : {});
    const out = await tempDir();
    try {
      const run = await runCli(['--base-url', server.url, '--out', out, '--timeout', TIMEOUT_S, '--probes', '*', ...args], key ? { OPENAI_API_KEY: key } : {});
      expect([0, 1], run.stderr.slice(-2000)).toContain(run.code);
    } finally {
      await server.stop();
    }
    // A run that decided its cells (no cell of either model is an error: llama-server.test.ts's truth).
    const recorded = await read(out);
    expect(recorded.results.length).toBeGreaterThan(50);
    expect(recorded.results.filter((r) => r.verdict === 'error').map((r) => `${r.probe}: ${r.observed}`)).toEqual([]);
    // The server is gone: the judgement is offline, with no key.
    const again = await runCli(['judge', out, '--quiet']);
    expect(again.stderr).not.toMatch(/not in the record|otherwise than|out of the run's order|only in part/);
    expect(judgement(await read(join(out, 'judged')))).toEqual(judgement(recorded));
    expect(await readFile(join(out, 'judged', 'matrix.md'), 'utf8')).toBe(await readFile(join(out, 'matrix.md'), 'utf8'));
    if (key) expect(gunzipSync(await readFile(join(out, 'record.jsonl.gz'))).toString('utf8')).not.toContain(key.slice(3, 19));
  }, 600_000);
});
