import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import { QUICK_REQUESTS } from '../../src/engine/probe.js';
import { runCli } from '../helpers/cli.js';
import { parseJunit } from '../helpers/junit.js';
import { parseReport } from '../helpers/report-schema.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * The spending caps and the quick tier, end to end against the reference server, which records every
 * request it receives: what the caps count is what it received (GET /models and chat requests; the
 * balance routes discovery tries are reads the caps leave uncounted).
 */

const KEY = 'sk-budget-test-key-0123456789';
const env = { OPENAI_API_KEY: KEY };

let server: ReferenceServer;
beforeAll(async () => {
  server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY, recordBodies: true });
});
afterAll(() => server.close());
beforeEach(() => {
  server.received.length = 0;
});

/** The requests the caps count: GET /models and the chat requests (not the balance routes' GETs). */
const counted = () => server.received.filter((r) => r.path === '/v1/models' || r.path === '/v1/chat/completions');

/** The chat requests received for each model, by the model their body names. */
function perModel(): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of server.received) {
    if (r.path !== '/v1/chat/completions' || r.raw === undefined) continue;
    let model = '(unreadable)';
    try {
      model = String((JSON.parse(r.raw) as { model?: unknown }).model);
    } catch {
      // errors.malformed_json's body
    }
    out.set(model, (out.get(model) ?? 0) + 1);
  }
  return out;
}

const MODELS = ['ref-standard', 'ref-reasoning', 'ref-lenient'];

describe('--max-requests', () => {
  it('stops the run at its cap, with valid reports whose cells not reached are "not run (budget)", and exit 1 as --max-duration', async () => {
    const out = await tempDir();
    const run = await runCli(['--base-url', server.url, '--out', out, '--max-requests', '40'], env);
    expect(run.code, run.stderr).toBe(1);
    // The 40th request was sent, the 41st was not.
    expect(counted()).toHaveLength(40);

    const report = parseReport(await readFile(join(out, 'report.json'), 'utf8'));
    expect(report.budgetReached).toEqual([{ cap: 'maxRequests', limit: 40 }]);
    const budget = report.results.filter((r) => r.cause === 'budget');
    expect(budget.length).toBeGreaterThan(0);
    for (const r of budget) {
      expect(r).toMatchObject({ verdict: 'error', notRun: true, outcome: 'failed' });
      expect(r.observed).toBe('not run: the run reached --max-requests 40 (a spending cap: requests sent) before this cell finished');
    }
    // Some cells were judged before the cap: the report is partial, not empty.
    expect(report.results.some((r) => r.cause === undefined)).toBe(true);
    expect(report.summary!.notRun).toBe(budget.length + report.models.filter((m) => m.notRun?.cause === 'budget').length);
    expect(report.summary!.exitCode).toBe(1);
    // The calls the report counts are those the server received (the 40 the cap counts and the balance
    // routes' reads); the trace also lists the ones the cap kept back.
    expect(report.calls).toBe(server.received.length);
    const trace = (await readFile(join(out, 'trace.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { cause?: string });
    expect(trace.filter((c) => c.cause === 'budget').length).toBeGreaterThan(0);
    expect(trace.length - trace.filter((c) => c.cause === 'budget').length).toBe(report.calls);
    expect(run.stdout).toContain(`, ${report.calls} calls in `);

    const junit = await parseJunit(await readFile(join(out, 'junit.xml'), 'utf8'));
    const cases = junit.testsuites.testsuite.flatMap((s) => s.testcase ?? []);
    const said = (c: (typeof cases)[number]) => (c.failure ?? c.error ?? c.skipped)?.message.includes('not run: the run reached --max-requests 40') ?? false;
    // Every such cell says it; the cells a model's row left are one failure, as junit.xml counts a stopped row's.
    expect(cases.filter(said)).toHaveLength(budget.length);
    expect(cases.filter((c) => said(c) && c.failure)).toHaveLength(new Set(budget.map((r) => r.model)).size);
    const matrix = await readFile(join(out, 'matrix.md'), 'utf8');
    expect(matrix).toContain('**stopped at --max-requests 40: partial report**');
    expect(matrix).toContain(`${report.summary!.notRun} not run (a spending cap reached), counted among the failed`);

    // Warned once, at 80% of the cap; the closing line says what the cap left.
    expect(run.stderr.match(/warning: 80% of --max-requests 40 spent \(32 requests sent\): the request past 40 is not sent, and the run stops there\n/g)).toHaveLength(1);
    const unreached = report.models.filter((m) => m.notRun?.cause === 'budget').length;
    const rowsSaid = unreached > 0 ? `, and ${unreached} model(s) not reached, each counted once for its ` : ', reported with cause "budget"';
    expect(run.stderr).toContain(`stopped at --max-requests 40: ${budget.length} cell(s) not run${rowsSaid}`);
    // No row is said to be left where none was.
    if (unreached === 0) expect(run.stderr).not.toContain('0 model(s) not reached');
    expect(run.stdout).toContain('(stopped at --max-requests 40: partial report)');
  }, 60_000);

  it("stops each model's row at --max-requests-per-model and lets the others run to their own cap", async () => {
    const out = await tempDir();
    // No endpoint probe: every chat request is one model's row's.
    const run = await runCli(['--base-url', server.url, '--out', out, '--probes', 'chat.*', 'streaming.*', 'parameters.*', '--max-requests-per-model', '10', '--concurrency', '2'], env);
    expect(run.code, run.stderr).toBe(1);
    expect(Object.fromEntries(perModel())).toEqual(Object.fromEntries(MODELS.map((m) => [m, 10])));
    const report = parseReport(await readFile(join(out, 'report.json'), 'utf8'));
    expect(report.budgetReached).toEqual([{ cap: 'maxRequestsPerModel', limit: 10, models: 3 }]);
    for (const m of MODELS) {
      const cells = report.results.filter((r) => r.model === m);
      expect(cells.some((r) => r.cause === 'budget' && r.notRun), m).toBe(true);
      expect(cells.some((r) => r.cause === undefined), m).toBe(true);
    }
    // Warned once, for the first model to get there.
    expect(run.stderr.match(/warning: ref-[a-z]+ has spent 80% of --max-requests-per-model 10 \(8 requests sent\)/g)).toHaveLength(1);
    expect(run.stderr).toContain('--max-requests-per-model 10 reached by 3 model(s): ');
  }, 60_000);

  it('--max-tokens counts the limits asked for: a run under it is untouched, one over it stops', async () => {
    const plan = JSON.parse((await runCli(['--base-url', server.url, '--dry-run', '--json', '--tier', 'quick'], env)).stdout);
    server.received.length = 0;
    const out = await tempDir();
    // Half of what the plan asks for: the run stops on the way.
    const run = await runCli(['--base-url', server.url, '--out', out, '--tier', 'quick', '--max-tokens', String(Math.floor(plan.total.maxTokens / 2)), '--quiet'], env);
    expect(run.code, run.stderr).toBe(1);
    const report = parseReport(await readFile(join(out, 'report.json'), 'utf8'));
    expect(report.budgetReached).toEqual([{ cap: 'maxTokens', limit: Math.floor(plan.total.maxTokens / 2) }]);
    // What was sent asked for no more than the cap (the smoke calls' uncapped first tries counted as 2).
    let asked = 0;
    for (const r of counted()) {
      if (r.raw === undefined) continue;
      const body = JSON.parse(r.raw) as { max_tokens?: number; max_completion_tokens?: number; n?: number };
      const limit = Math.max(body.max_tokens ?? 0, body.max_completion_tokens ?? 0);
      asked += limit > 0 ? limit * (body.n ?? 1) : 2;
    }
    expect(asked).toBeLessThanOrEqual(Math.floor(plan.total.maxTokens / 2));
  }, 60_000);
});

describe('--tier quick', () => {
  it(`costs at most ${QUICK_REQUESTS} requests a model: in the dry run, and in the requests the server received`, async () => {
    const dry = await runCli(['--base-url', server.url, '--dry-run', '--json', '--tier', 'quick'], env);
    expect(dry.code, dry.stderr).toBe(0);
    const plan = JSON.parse(dry.stdout);
    expect(plan.perModel.requests).toBeLessThanOrEqual(QUICK_REQUESTS);
    expect(plan.tiers.find((t: { tier: string }) => t.tier === 'quick').requests).toBe(plan.perModel.requests);
    server.received.length = 0;
    const out = await tempDir();
    const run = await runCli(['--base-url', server.url, '--out', out, '--tier', 'quick', '--quiet'], env);
    expect(run.code, run.stderr).toBe(0);
    const received = perModel();
    expect([...received.keys()].sort()).toEqual([...MODELS].sort());
    // ref-reasoning refuses max_tokens: the limits in flight before it said so are sent again, within the goal.
    for (const [model, n] of received) expect(n, model).toBeLessThanOrEqual(QUICK_REQUESTS);
    const report = parseReport(await readFile(join(out, 'report.json'), 'utf8'));
    expect(report.options.tier).toBe('quick');
    // Every cell decided on its own: nothing errored, nothing was left unrun, and each verdict is the one
    // the default tier's run gives it, where every other probe ran beside it.
    expect(report.results.filter((r) => r.verdict === 'error')).toEqual([]);
    const whole = await tempDir();
    expect((await runCli(['--base-url', server.url, '--out', whole, '--quiet'], env)).code).toBe(0);
    const full = parseReport(await readFile(join(whole, 'report.json'), 'utf8'));
    const verdicts = (r: typeof report, probes: ReadonlySet<string>) => r.results.filter((c) => probes.has(c.probe)).map((c) => `${c.model} ${c.probe} ${c.verdict}`);
    const quick = new Set(report.probes.map((p) => p.id));
    expect(verdicts(report, quick)).toEqual(verdicts(full, quick));
  }, 60_000);
});
