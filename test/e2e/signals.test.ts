import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstream } from '../../src/passthrough/upstream.js';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import { runCli, signalCli } from '../helpers/cli.js';
import { blockedMerge } from '../helpers/blocked-merge.js';
import { holdingServer } from '../helpers/holding.js';
import { parseReport } from '../helpers/report-schema.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * A closed terminal or SSH session sends SIGHUP: every command that stops on Ctrl-C stops on it the same
 * way, and no signal leaves a temporary file behind.
 */

const KEY = 'sk-signals-test-key-1234';
const env = { OPENAI_API_KEY: KEY };
/** A row of the progress (piped: one line per model as its row completes): the run is under way. */
const UNDER_WAY = /\[\d+\/\d+\]/;

const temporary = async (dir: string) => (await readdir(dir)).filter((f) => f.endsWith('.tmp'));

let stalling: ReferenceServer;
beforeAll(async () => {
  stalling = await startReferenceServer({ profile: loadProfile('stalling'), apiKey: KEY });
});
afterAll(() => stalling.close());

describe('stop signals', () => {
  it('audit: SIGINT, SIGTERM and SIGHUP each write the partial report and exchanges.har, leave no temporary file, exit 130', async () => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      const out = await tempDir();
      // The first rows complete at once; the stalled streams would hold the run for 30 s.
      const run = await signalCli(['--base-url', stalling.url, '--out', out, '--timeout', '30'], env, UNDER_WAY, signal);
      expect(run.code, `${signal}: ${run.stderr}`).toBe(130);
      expect(run.stderr, signal).toContain('interrupted: finishing the partial report');
      expect(parseReport(await readFile(join(out, 'report.json'), 'utf8')).interrupted, signal).toBe(true);
      expect(await readdir(out), signal).toContain('exchanges.har');
      expect(await temporary(out), signal).toEqual([]);
    }
  }, 60_000);

  it('demo: SIGHUP writes the partial report and stops the server, exit 130', async () => {
    const out = await tempDir();
    const run = await signalCli(['demo', '--profile', 'stalling', '--out', out, '--timeout', '30'], {}, UNDER_WAY, 'SIGHUP');
    expect(run.code, run.stderr).toBe(130);
    expect(parseReport(await readFile(join(out, 'report.json'), 'utf8')).interrupted).toBe(true);
    expect(await temporary(out)).toEqual([]);
  });

  it('passthrough: SIGHUP while the gateway holds the first request writes the partial report, exit 130', async () => {
    const upstream = await startUpstream();
    const gateway = await holdingServer();
    try {
      const out = await tempDir();
      const run = await signalCli(['passthrough', '--base-url', gateway.url, '--upstream', upstream.url, '--models', 'm', '--out', out], env, gateway.asked, 'SIGHUP');
      expect(run.code, run.stderr).toBe(130);
      expect(parseReport(await readFile(join(out, 'report.json'), 'utf8')).interrupted).toBe(true);
      expect(await temporary(out)).toEqual([]);
    } finally {
      await gateway.close();
      await upstream.close();
    }
  });

  it.each([
    ['serve', /press Ctrl-C to stop/],
    ['upstream', /press Ctrl-C to stop/],
  ])('%s: SIGHUP stops the server, exit 0', async (command, listening) => {
    const run = await signalCli([command], {}, listening, 'SIGHUP');
    expect(run.killedBy).toBe(null);
    expect(run.code, run.stderr).toBe(0);
  });

  it('merge: SIGHUP drops the merge whole: the output folder as it was, no temporary file, exit 130', async () => {
    const referenceServer = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
    const dir = await tempDir();
    try {
      for (const i of [1, 2]) await runCli(['--base-url', referenceServer.url, '--out', join(dir, `s${i}`), '--shard', `${i}/2`, '--probes', 'chat.basic'], env);
    } finally {
      await referenceServer.close();
    }
    const { args, out, making, free } = await blockedMerge(dir);
    const done = await signalCli(args, {}, making, 'SIGHUP', { onStderr: free });
    expect(done.code, done.stderr).toBe(130);
    expect(done.stderr).toContain('merge interrupted: nothing written; the folders are as they were');
    expect(await readdir(out)).toEqual(['report.json']);
    expect(await readFile(join(out, 'report.json'), 'utf8')).toBe('the last merge');
  }, 60_000);
});
