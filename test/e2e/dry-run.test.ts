import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import { runCli } from '../helpers/cli.js';
import { ROOM_CAP } from '../../src/engine/room.js';

const KEY = 'sk-dry-run';

describe('--dry-run', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
  });
  afterAll(() => server.close());

  it('sends nothing beyond GET /models and the balance routes, and prints the per-model cost', async () => {
    const run = await runCli(['--base-url', server.url, '--dry-run'], { OPENAI_API_KEY: KEY });
    expect(run.code, run.stderr).toBe(0);
    // GET /models first; the balance routes after it, side by side (in any order).
    expect(server.received[0]).toEqual({ method: 'GET', path: '/v1/models' });
    expect(server.received.slice(1).sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { method: 'GET', path: '/api/usage/token' },
      { method: 'GET', path: '/key/info' },
      { method: 'GET', path: '/v1/dashboard/billing/usage' },
      { method: 'GET', path: '/v1/key' },
    ]);
    expect(run.stdout).toContain('billing: off: no balance route answered (GET /api/usage/token: HTTP 404; GET /v1/key: HTTP 404; GET /key/info: HTTP 404; GET /v1/dashboard/billing/usage: HTTP 404)');
    for (const m of ['ref-standard', 'ref-reasoning', 'ref-lenient']) expect(run.stdout).toContain(m);
    // A model's whole budget at the default settings, controls and sample growth included: at most 80
    // requests and 5,000 max tokens (the smoke call counted).
    const total = /total\s+(\d+) request\(s\)\s+(\d+) max tokens/.exec(run.stdout);
    expect(total, run.stdout).not.toBeNull();
    expect(Number(total![1])).toBeLessThanOrEqual(80);
    expect(Number(total![2])).toBeLessThanOrEqual(5000);
    // What room for reasoning may add on a model whose smoke call shows it: a bound, said beside the total.
    expect(run.stdout).toMatch(new RegExp(`a model whose smoke call shows reasoning: up to ${(Number(total![1]) - 1) * ROOM_CAP} max tokens more \\(room for its reasoning on each limit: 2 × the smoke call's reasoning tokens \\+ 16, at most ${ROOM_CAP} a request\\)`));
    expect(run.stdout).toMatch(/whole run: \d+ request\(s\), \d+ max tokens \(GET \/models included\); up to \+\d+ max tokens more if every model reasons/);
  });

  it('bounds what room for reasoning adds: at most ROOM_CAP on each request of a model but its smoke call', async () => {
    const plan = JSON.parse((await runCli(['--base-url', server.url, '--dry-run', '--json'], { OPENAI_API_KEY: KEY })).stdout);
    const called = plan.models.filter((m: { call: boolean }) => m.call).length;
    expect(plan.reasoningRoom).toEqual({ perRequest: ROOM_CAP, perModel: (plan.perModel.requests - 1) * ROOM_CAP, total: called * (plan.perModel.requests - 1) * ROOM_CAP });
  });

  it('prices the role catalogue alone at 15 requests a model at most', async () => {
    const run = await runCli(['--base-url', server.url, '--dry-run', '--json', '--probes', 'roles.*'], { OPENAI_API_KEY: KEY });
    const plan = JSON.parse(run.stdout);
    expect(plan.perArea).toHaveLength(1);
    expect(plan.perArea[0].area).toBe('roles');
    // 11 probes (roles.system's request shared), the instruction in a user message, one plain control for
    // the three recall probes (history, content parts, tool result), and the image's positive or negative
    // control; the tool result's refusal control is the tools request.
    expect(plan.perArea[0].requests).toBeLessThanOrEqual(15);
  });

  it('counts the sample sets at the --samples given', async () => {
    const four = await runCli(['--base-url', server.url, '--dry-run', '--json', '--probes', 'parameters.temperature'], { OPENAI_API_KEY: KEY });
    const eight = await runCli(['--base-url', server.url, '--dry-run', '--json', '--probes', 'parameters.temperature', '--samples', '8'], { OPENAI_API_KEY: KEY });
    // Two sample sets at their largest (temperature 0 does not grow, the temperature 1 baseline by two)
    // plus the smoke call.
    expect(JSON.parse(four.stdout).perModel.requests).toBe(3 + 3 + 2 + 1);
    expect(JSON.parse(eight.stdout).perModel.requests).toBe(8 + 8 + 2 + 1);
  });

  it('says whether the plan fits each spending cap given, and what each tier costs a model', async () => {
    const caps = ['--max-requests', '1000', '--max-requests-per-model', '20', '--max-tokens-per-model', '3000'];
    const plan = JSON.parse((await runCli(['--base-url', server.url, '--dry-run', '--json', ...caps], { OPENAI_API_KEY: KEY })).stdout);
    const { requests, maxTokens } = plan.perModel;
    expect(plan.caps).toEqual([
      { cap: 'maxRequests', limit: 1000, needs: plan.total.requests, fits: true },
      { cap: 'maxRequestsPerModel', limit: 20, needs: requests, fits: false },
      { cap: 'maxTokensPerModel', limit: 3000, needs: maxTokens, fits: true, room: plan.reasoningRoom.perModel, fitsWithRoom: false },
    ]);
    const text = (await runCli(['--base-url', server.url, '--dry-run', ...caps], { OPENAI_API_KEY: KEY })).stdout;
    expect(text).toContain(`  --max-requests 1000: the plan needs ${plan.total.requests} request(s): fits\n`);
    expect(text).toContain(`  --max-requests-per-model 20: the plan needs ${requests} request(s) a model: does not fit (a model's row stops at the cap; cells not reached are not run, cause budget)\n`);
    expect(text).toContain(`  --max-tokens-per-model 3000: the plan needs ${maxTokens} max tokens a model: fits, but not with room for reasoning (up to +${plan.reasoningRoom.perModel} on a model that reasons)\n`);
    // Each tier's cost, whichever the plan runs; the default tier's is this plan's.
    expect(plan.tiers.map((t: { tier: string }) => t.tier)).toEqual(['quick', 'default', 'extended']);
    expect(plan.tiers[1]).toMatchObject({ requests, maxTokens });
    const quick = plan.tiers[0];
    expect(text).toMatch(new RegExp(`\n {2}quick +${quick.requests} request\\(s\\) +${quick.maxTokens} max tokens +\\(${quick.probes} probe\\(s\\)\\) +goal: at most 20 requests\n`));
    // No cap given: no caps section.
    expect((await runCli(['--base-url', server.url, '--dry-run'], { OPENAI_API_KEY: KEY })).stdout).not.toContain('spending caps');
  });

  it('prices the shard’s own models, as its run audits them', async () => {
    const plans = await Promise.all(['1/2', '2/2'].map(async (s) => JSON.parse((await runCli(['--base-url', server.url, '--dry-run', '--json', '--shard', s], { OPENAI_API_KEY: KEY })).stdout)));
    const ids = plans.map((p) => p.models.map((m: { id: string }) => m.id));
    expect(ids).toEqual([['ref-standard', 'ref-lenient'], ['ref-reasoning']]);
    // The endpoint probes run in shard 1 only.
    expect(plans[0].endpoint.probes).toBeGreaterThan(0);
    expect(plans[1].endpoint.probes).toBe(0);
    expect(plans[0].total.requests).toBe(1 + plans[0].endpoint.requests + 2 * plans[0].perModel.requests);
    expect(plans[1].total.requests).toBe(1 + 1 * plans[1].perModel.requests);
  });
});
