/**
 * The identity probes run as users run them (the built CLI, `--probes identity.*`) against real llama.cpp
 * servers, for test/real/identity.test.ts and the calibration script (calibrate.ts): one run's fingerprint
 * and verdicts, and a load that keeps the server busy with other requests meanwhile, as an audit's other
 * probes do at --concurrency 4.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Report } from '../../src/results/model.js';
import type { Fingerprint } from '../../src/results/identity.js';
import { CLI, runCommand } from '../helpers/cli.js';
import { ask } from './llama.js';

export const IDENTITY_MODEL = 'tiny-identity';

export interface IdentityRun {
  fingerprint: Fingerprint;
  /** identity.fingerprint's and identity.mixed_backends's verdicts and observations. */
  cells: Record<string, { verdict: string; observed: string }>;
  code: number | null;
}

/**
 * One audit of the identity probes only; `args`: more of chatprobe's arguments (a gateway's --header);
 * `probes`: another selection (the default audit: every default-tier probe, the identity ones among them);
 * `cli`: another copy of the bundle (the calibration runs its own, so a build meanwhile cannot pull it away).
 */
export async function runIdentity(baseUrl: string, args: string[] = [], probes: string | undefined = 'identity.*', cli = CLI): Promise<IdentityRun> {
  const out = await mkdtemp(join(tmpdir(), 'chatprobe-identity-'));
  try {
    const run = await runCommand(process.execPath, [cli, '--base-url', baseUrl, '--out', out, '--timeout', '60', ...(probes ? ['--probes', probes] : []), ...args], { OPENAI_API_KEY: 'sk-zq-0123456789abcdef' });
    let report: Report;
    try {
      report = Report.parse(JSON.parse(await readFile(join(out, 'report.json'), 'utf8')));
    } catch (err) {
      throw new Error(`no report (exit ${run.code}): ${(err as Error).message}\n${run.stdout.slice(-1500)}\n${run.stderr.slice(-1500)}`);
    }
    const entry = report.models.find((m) => m.id === IDENTITY_MODEL);
    if (!entry?.fingerprint) throw new Error(`no fingerprint of ${IDENTITY_MODEL} in the report (exit ${run.code}):\n${run.stdout.slice(-1500)}`);
    const cells: IdentityRun['cells'] = {};
    for (const r of report.results) if (r.model === IDENTITY_MODEL) cells[r.probe] = { verdict: r.verdict, observed: r.observed };
    return { fingerprint: entry.fingerprint, cells, code: run.code };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

const LOAD_PROMPTS = ['Tell me a story.', 'List three fruits.', 'What is 12 times 7?', 'Write a haiku about rain.', 'Explain gravity briefly.', 'Say hello in French.'];

/**
 * Keeps `lanes` other requests in flight on the server until stopped (short answers at temperature 0.7,
 * other prompts): llama-server then decodes the probe's requests in one batch with them, as during a full
 * audit, which moves logprobs by float noise (docs/identity.md). Resolves once every lane has ended.
 */
export function busy(baseUrl: string, lanes = 3): { stop(): Promise<void> } {
  let going = true;
  const lane = async (i: number) => {
    for (let n = i; going; n++) {
      await ask(baseUrl, { model: IDENTITY_MODEL, temperature: 0.7, max_tokens: 4 + ((n * 5) % 13), messages: [{ role: 'user', content: LOAD_PROMPTS[n % LOAD_PROMPTS.length] }] }).catch(() => undefined);
    }
  };
  const all = Promise.all(Array.from({ length: lanes }, (_, i) => lane(i)));
  return {
    stop: async () => {
      going = false;
      await all;
    },
  };
}
