import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import { runCli } from '../helpers/cli.js';

const KEY = 'sk-dry-run';

describe('--dry-run', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
  });
  afterAll(() => server.close());

  it('sends nothing beyond GET /models and prints the per-model cost', async () => {
    const run = await runCli(['--base-url', server.url, '--dry-run'], { OPENAI_API_KEY: KEY });
    expect(run.code, run.stderr).toBe(0);
    expect(server.received).toEqual([{ method: 'GET', path: '/v1/models' }]);
    for (const m of ['ref-standard', 'ref-reasoning', 'ref-lenient']) expect(run.stdout).toContain(m);
    // The parameter catalogue's budget: at most 40 requests and 3,000 max tokens per model.
    const params = /parameters\s+(\d+) request\(s\)\s+(\d+) max tokens/.exec(run.stdout);
    expect(params, run.stdout).not.toBeNull();
    expect(Number(params![1])).toBeLessThanOrEqual(40);
    expect(Number(params![2])).toBeLessThanOrEqual(3000);
  });

  it('prices the role catalogue alone at 15 requests a model at most', async () => {
    const run = await runCli(['--base-url', server.url, '--dry-run', '--json', '--probes', 'roles.*'], { OPENAI_API_KEY: KEY });
    const plan = JSON.parse(run.stdout);
    expect(plan.perArea).toHaveLength(1);
    expect(plan.perArea[0].area).toBe('roles');
    expect(plan.perArea[0].requests).toBeLessThanOrEqual(15);
  });

  it('counts the sample sets at the --samples given', async () => {
    const four = await runCli(['--base-url', server.url, '--dry-run', '--json', '--probes', 'parameters.temperature'], { OPENAI_API_KEY: KEY });
    const eight = await runCli(['--base-url', server.url, '--dry-run', '--json', '--probes', 'parameters.temperature', '--samples', '8'], { OPENAI_API_KEY: KEY });
    // Two sample sets (temperature 0 and 1) plus the smoke call.
    expect(JSON.parse(four.stdout).perModel.requests).toBe(2 * 4 + 1);
    expect(JSON.parse(eight.stdout).perModel.requests).toBe(2 * 8 + 1);
  });
});
