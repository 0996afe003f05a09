import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import type { Profile } from '../../src/reference/profile.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import { runCli } from '../helpers/cli.js';
import { parseReport } from '../helpers/report-schema.js';
import { tempDir } from '../helpers/tmp.js';
import { launchBrowser, NO_BROWSER, openFile } from '../helpers/browser.js';

const KEY = 'sk-9f3a7c21e5b0d84f6a2c';

type MeterSettings = NonNullable<Profile['server']['meter']>;

/** The billing profile with only these models, and its meter changed as given (unnamed settings: none). */
function profile(models: string[], meter?: Pick<MeterSettings, 'kind'> & Partial<MeterSettings>): Profile {
  const p = loadProfile('billing');
  p.models = p.models.filter((m) => models.includes(m.id));
  if (meter) p.server.meter = { lagReads: 0, lateMs: 0, drift: 0, ...meter };
  return p;
}

let server: ReferenceServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function audit(p: Profile, args: string[]) {
  server = await startReferenceServer({ profile: p, apiKey: KEY });
  const out = await tempDir();
  const run = await runCli(['--base-url', server.url, '--out', out, ...args], { OPENAI_API_KEY: KEY });
  const text = await readFile(join(out, 'report.json'), 'utf8').catch(() => undefined);
  return { run, out, report: text === undefined ? undefined : parseReport(text), server };
}

const chats = (s: ReferenceServer) => s.received.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions').length;
const verdicts = (r: NonNullable<Awaited<ReturnType<typeof audit>>['report']>) => Object.fromEntries(r.results.map((x) => [`${x.model} ${x.probe}`, x.verdict]));

describe('quota deduction (billing.*)', () => {
  it('the dry run prices the billing calls within the per-model budget, and the audit spends no more than it says', async () => {
    const p = profile(['bill-fair', 'bill-by-limit']);
    server = await startReferenceServer({ profile: p, apiKey: KEY });
    const dry = await runCli(['--base-url', server.url, '--dry-run', '--json'], { OPENAI_API_KEY: KEY });
    const plan = JSON.parse(dry.stdout);
    expect(plan.billing).toEqual({ kind: 'new-api', route: 'GET /api/usage/token', unit: 'quota units' });
    expect(plan.perArea.find((a: { area: string }) => a.area === 'billing')).toEqual({ area: 'billing', probes: 3, requests: 4, maxTokens: 112 });
    expect(plan.perModel.requests).toBeLessThanOrEqual(80);
    expect(plan.perModel.maxTokens).toBeLessThanOrEqual(5000);
    const text = await runCli(['--base-url', server.url, '--dry-run'], { OPENAI_API_KEY: KEY });
    expect(text.stdout).toContain('billing: through GET /api/usage/token (new-api, in quota units)');
    expect(chats(server)).toBe(0);

    const out = await tempDir();
    const run = await runCli(['--base-url', server.url, '--out', out], { OPENAI_API_KEY: KEY });
    const report = parseReport(await readFile(join(out, 'report.json'), 'utf8'));
    expect(chats(server)).toBeLessThanOrEqual(plan.total.requests);
    expect(run.code).toBe(1); // bill-by-limit fails billing.usage
    expect(verdicts(report)).toMatchObject({ 'bill-fair billing.usage': 'pass', 'bill-by-limit billing.usage': 'fail', 'bill-fair billing.failed_call': 'pass' });
    // The deduction of each call beside its usage, in the report and in the matrix.
    const fair = report.models.find((m) => m.id === 'bill-fair')!.billing!;
    expect(fair.calls.map((c) => [c.call, c.status, c.promptTokens, c.completionTokens, c.deducted])).toEqual([
      ['plain', 200, 21, 16, 21 * 10 + 16 * 30],
      ['stream', 200, 21, 16, 21 * 10 + 16 * 30],
      ['short', 200, 14, 1, 14 * 10 + 1 * 30],
      ['failed', 400, undefined, undefined, 0],
    ]);
    const md = await readFile(join(out, 'matrix.md'), 'utf8');
    expect(md).toContain('## Quota deduction');
    expect(md).toContain('| bill-by-limit | short | 200 | 64 | 14 + 1 | 2060 |');
  }, 60_000);

  it("--prices: each deduction beside the listed price, a call billed at another model's price named, in report.json, matrix.md, junit.xml and report.html; judge weighs the record against another list", async () => {
    const dir = await tempDir();
    // new-api's ratio settings: the reference server bills 10 quota units a prompt token and 30 a completion token.
    const prices = join(dir, 'ratios.json');
    // bill-per-call is listed by its tokens, and billed 500 a call: what `flat` (0.001 USD a call) costs.
    await writeFile(
      prices,
      JSON.stringify({ ModelRatio: { 'bill-fair': 10, 'bill-stream-double': 10, 'bill-per-call': 10, premium: 20 }, CompletionRatio: { 'bill-fair': 3, 'bill-stream-double': 3, 'bill-per-call': 3, premium: 3 }, ModelPrice: { flat: 0.001 }, GroupRatio: { default: 1 } }),
    );
    const { run, out, report } = await audit(profile(['bill-fair', 'bill-stream-double', 'bill-per-call']), ['--probes', 'billing.*', '--prices', prices]);
    expect(run.code, run.stderr).toBe(1);
    expect(verdicts(report!)).toMatchObject({ 'bill-fair billing.usage': 'pass', 'bill-fair billing.stream': 'pass', 'bill-stream-double billing.stream': 'fail', 'bill-stream-double billing.usage': 'pass', 'bill-per-call billing.usage': 'fail' });
    const cell = (model: string, probe: string) => report!.results.find((r) => r.model === model && r.probe === probe)!;
    expect(cell('bill-fair', 'billing.usage').findings.map((f) => f.code)).toContain('listed_price');
    // A stream billed twice costs what premium costs, but its plain twin was billed at its own price: no model is named.
    const doubled = cell('bill-stream-double', 'billing.stream');
    expect(doubled.findings.map((f) => f.code)).toEqual(['stream_billed_more', 'billed_above_price']);
    expect(doubled.observed).toContain(`the stream call was billed 1380 quota units, and the price list (${prices}) says 690 for bill-stream-double at 21 prompt + 16 completion tokens: billed more than the list says`);
    const flat = cell('bill-per-call', 'billing.usage');
    expect(flat.findings.filter((f) => f.code === 'priced_as_other').map((f) => f.severity)).toEqual(['warn', 'fail']);
    expect(flat.observed).toContain('what flat costs there, as every billed call of the set was');
    const fair = report!.models.find((m) => m.id === 'bill-fair')!.billing!;
    expect(fair.prices).toBe(prices);
    expect(fair.calls.map((c) => c.listed)).toEqual([690, 690, 170, undefined]);
    const stream = report!.models.find((m) => m.id === 'bill-stream-double')!.billing!.calls[1]!;
    expect(stream).toMatchObject({ call: 'stream', deducted: 1380, listed: 690 });
    expect(stream.pricedAs).toBeUndefined();
    const perCall = report!.models.find((m) => m.id === 'bill-per-call')!.billing!.calls;
    expect(perCall.map((c) => c.pricedAs)).toEqual([['flat'], ['flat'], ['flat'], undefined]);
    const md = await readFile(join(out, 'matrix.md'), 'utf8');
    expect(md).toContain('| bill-stream-double | stream | 200 | 16 | 21 + 16 | 1380 | 690 | 37.3 | 0 ms |');
    expect(md).toContain('| bill-per-call | short | 200 | 64 | 14 + 1 | 500 | 170 (billed as flat) |');
    const junit = await readFile(join(out, 'junit.xml'), 'utf8');
    expect(junit).toContain('<property name="billing.short.priced_as" value="flat"/>');
    expect(junit).toContain('<property name="billing.plain.listed" value="690"/>');

    // The same record, weighed against a list that prices bill-fair at twice what it was billed.
    const dearer = join(dir, 'dearer.json');
    await writeFile(dearer, JSON.stringify({ models: { 'bill-fair': { input: 40, output: 120 } }, quotaPerUsd: 500_000 }));
    const judged = join(dir, 'judged');
    const again = await runCli(['judge', out, '--prices', dearer, '--out', judged, '--quiet']);
    expect(again.stderr).toContain('judged otherwise than');
    const weighed = parseReport(await readFile(join(judged, 'report.json'), 'utf8'));
    const usage = weighed.results.find((r) => r.model === 'bill-fair' && r.probe === 'billing.usage')!;
    expect(usage.verdict).toBe('warn');
    expect(usage.findings.map((f) => f.code)).toContain('billed_below_price');
    expect(weighed.results.find((r) => r.model === 'bill-stream-double' && r.probe === 'billing.usage')!.findings.map((f) => f.code)).toContain('unpriced');

    // report.html: the section of its own, every call of every model.
    if (NO_BROWSER) return;
    const browser = await launchBrowser();
    try {
      const { page, problems } = await openFile(browser, join(out, 'report.html'));
      expect(await page.locator('#billing h2').textContent()).toBe('Usage and billing');
      expect(await page.locator('#billing tbody tr').count()).toBe(12);
      expect(await page.locator('#billing').textContent()).toContain('the price of flat');
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('--no-billing reads no balance and sends no billing call', async () => {
    const { run, report, server: s } = await audit(profile(['bill-fair']), ['--no-billing', '--probes', 'chat.*', 'billing.*', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(report!.billing).toEqual({ off: 'turned off (--no-billing, or "billing": false in the config file)' });
    // Named in --probes and left out: the console says so too.
    expect(run.stderr).toContain('note: the billing probes were left out: turned off (--no-billing');
    expect(report!.results.some((r) => r.probe.startsWith('billing.'))).toBe(false);
    expect(s.received.some((r) => r.path === '/api/usage/token')).toBe(false);
  });

  it('asked for billing alone where no balance route answers: exit 2, saying which routes were tried', async () => {
    server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
    const run = await runCli(['--base-url', server.url, '--probes', 'billing.*'], { OPENAI_API_KEY: KEY });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('the billing probes cannot run: no balance route answered (GET /api/usage/token: HTTP 404');
    expect(chats(server)).toBe(0);
  });

  it('tries no balance route once GET /models has failed: a refused key, or a base URL that serves no API, is sent nowhere else', async () => {
    for (const models of [401, 'html'] as const) {
      const paths: string[] = [];
      const stub = createServer((req, res) => {
        paths.push(`${req.method} ${req.url}`);
        if (models === 401) res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"invalid api key"}}');
        else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>console</title>');
      });
      await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
      try {
        const { port } = stub.address() as AddressInfo;
        const run = await runCli(['--base-url', `http://127.0.0.1:${port}/v1`], { OPENAI_API_KEY: KEY });
        expect(run.code, String(models)).toBe(2);
        expect(paths, String(models)).toEqual(['GET /v1/models']);
      } finally {
        stub.closeAllConnections();
        await new Promise((r) => stub.close(r));
      }
    }
  });

  it('asked for billing alone with billing turned off: exit 2 before anything is sent', async () => {
    server = await startReferenceServer({ profile: loadProfile('billing'), apiKey: KEY });
    for (const off of [['--no-billing'], ['--shard', '1/2']]) {
      const run = await runCli(['--base-url', server.url, '--probes', 'billing.*', ...off], { OPENAI_API_KEY: KEY });
      expect(run.code, off.join(' ')).toBe(2);
      expect(run.stderr).toContain('the billing probes cannot run: ');
    }
    expect(server.received).toEqual([]);
  });

  it('finds a one-api meter after the other routes answer 404, and reads it in cents', async () => {
    const { report } = await audit(profile(['bill-fair'], { kind: 'one-api', lagReads: 0, drift: 0 }), ['--probes', 'billing.*']);
    expect(report!.billing).toEqual({ kind: 'one-api', route: 'GET /v1/dashboard/billing/usage', unit: 'US cents' });
    expect(verdicts(report!)).toEqual({ 'bill-fair billing.failed_call': 'pass', 'bill-fair billing.stream': 'pass', 'bill-fair billing.usage': 'pass' });
    expect(report!.models[0]!.billing!.calls[0]!.deducted).toBeCloseTo(690 / 5000, 10);
  });

  it('trap (issue 33): a meter that writes charges 1.5 s late, charges of the smoke calls still pending when the billing calls begin: no false failure, the faults still found', async () => {
    // The old quiet check (two reads 0.3 s apart) let the smoke calls' charges land in the first plain
    // call's window: 690 + 510 given to it, and billing.stream failed "billed less than its usage requires".
    const { report } = await audit(profile(['bill-fair', 'bill-failures'], { kind: 'new-api', lateMs: 1500 }), ['--probes', 'billing.*']);
    const v = verdicts(report!);
    expect(v['bill-fair billing.stream']).not.toBe('fail');
    expect(v['bill-fair billing.usage']).not.toBe('fail');
    expect(v['bill-fair billing.failed_call']).toBe('pass');
    // The second model's set knows the meter: every window runs twice its lateness, every deduction is its call's.
    expect(v['bill-failures billing.failed_call']).toBe('fail');
    expect(v['bill-failures billing.stream']).toBe('pass');
    expect(v['bill-failures billing.usage']).toBe('pass');
    const second = report!.models.find((m) => m.id === 'bill-failures')!.billing!;
    expect(second.calls.map((c) => c.deducted)).toEqual([690, 690, 170, 480]);
    expect(second.calls.every((c) => c.unattributed === undefined)).toBe(true);
    expect(second.settlement!.lateMs).toBeGreaterThanOrEqual(1500);
    // The first set settled: nothing of the run is pending, so the quiet check looks for other traffic only.
    expect(second.settlement!.quietMs).toBeGreaterThanOrEqual(1500);
    // The cell says how it was watched.
    const cell = report!.results.find((r) => r.model === 'bill-failures' && r.probe === 'billing.stream')!;
    expect(cell.findings.find((f) => f.code === 'settlement')?.message).toMatch(/this meter showed charges up to \d\.\d s after their call/);
  }, 120_000);

  it('waits for a LiteLLM meter that shows charges two reads late, and still gives each call its own', async () => {
    const { report } = await audit(profile(['bill-fair', 'bill-failures'], { kind: 'litellm', lagReads: 2, drift: 0 }), ['--probes', 'billing.*']);
    expect(report!.billing).toMatchObject({ kind: 'litellm', route: 'GET /key/info', unit: 'USD' });
    expect(verdicts(report!)).toEqual({
      'bill-fair billing.failed_call': 'pass',
      'bill-fair billing.stream': 'pass',
      'bill-fair billing.usage': 'pass',
      'bill-failures billing.failed_call': 'fail',
      'bill-failures billing.stream': 'pass',
      'bill-failures billing.usage': 'pass',
    });
    const plain = report!.models[0]!.billing!.calls[0]!;
    expect(plain.lagMs).toBeGreaterThan(0);
    expect(plain.deducted).toBeCloseTo(690 / 500_000, 12);
    // A meter that showed charges late is watched 12.7 s before a zero is believed: a minute of waiting.
  }, 240_000);

  it('trap: a balance that moves on its own (other traffic on the key) is inconclusive, and costs no billing call', async () => {
    const { report, server: s } = await audit(profile(['bill-fair'], { kind: 'openrouter', lagReads: 0, drift: 1 }), ['--probes', 'billing.*', '--json']);
    expect(verdicts(report!)).toEqual({ 'bill-fair billing.failed_call': 'inconclusive', 'bill-fair billing.stream': 'inconclusive', 'bill-fair billing.usage': 'inconclusive' });
    expect(report!.results[0]!.observed).toContain('while chatprobe sent nothing');
    // Only the smoke call reached the model.
    expect(chats(s)).toBe(1);
    // The quiet reads of the balance wait in real time: 15 s on a loaded 2-core machine.
  }, 60_000);
});
