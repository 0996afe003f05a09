/**
 * chatprobe against a real inference server: llama.cpp's llama-server, built from source by
 * `npm run real:setup`, serving two tiny generated models. Every cell of both rows must match the truth
 * table (truth.ts), whose evidence the test re-establishes with direct requests first.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINT, Report, type ProbeResult } from '../../src/results/model.js';
import { PROBES } from '../../suites/index.js';
import { runCli, type CliRun } from '../helpers/cli.js';
import { startPortkey } from '../helpers/portkey.js';
import { tempDir } from '../helpers/tmp.js';
import { gatherFacts, type Facts } from './facts.js';
import { realPaths, startLlama, stopAll, type Llama } from './llama.js';
import { ENDPOINT_TRUTH, TRUTH } from './truth.js';

const KEY = 'sk-real-server-test-0123456789';
// Long enough for a busy machine to answer a capped grammar request; the model that never stops costs it once.
const TIMEOUT_S = '30';

interface Audit {
  server: Llama;
  facts: Facts;
  run: CliRun;
  out: string;
  report: Report;
}

async function audit(model: 'stops' | 'runaway', key?: string, args: string[] = []): Promise<Audit> {
  const paths = realPaths();
  const server = await startLlama(paths, model, `tiny-${model}`, key ? { apiKey: key } : {});
  try {
    const facts = await gatherFacts(server.url, `tiny-${model}`, key);
    const out = await tempDir();
    // Every probe, the extended tier included.
    const run = await runCli(['--base-url', server.url, '--out', out, '--timeout', TIMEOUT_S, '--probes', '*', ...args], key ? { OPENAI_API_KEY: key } : {});
    const report = Report.parse(JSON.parse(await readFile(join(out, 'report.json'), 'utf8')));
    return { server, facts, run, out, report };
  } catch (err) {
    await server.stop();
    throw new Error(`${(err as Error).message}\n--- llama-server log ---\n${server.log().slice(-3000)}`);
  }
}

/** A loopback server that answers every request with the same body: a control for the evidence. */
async function startControl(status: number, body: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(status, { 'content-type': 'application/json' }).end(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('the evidence of the truth table', () => {
  // Every row's evidence must be something the server did: on a server that did nothing, or that hid an
  // error in every 200, none may hold (an absence, such as no tool call, counts only on an answer).
  it.each([
    ['answers every request with HTTP 404', 404, '{"error":{"message":"File Not Found","type":"not_found_error","code":404}}'],
    ['answers every request with an error inside an HTTP 200', 200, '{"error":{"message":"upstream failed","type":"server_error"}}'],
  ])('holds for no row on a server that %s', async (_, status, body) => {
    const control = await startControl(status, body);
    try {
      const open = await gatherFacts(control.url, 'tiny-control');
      const keyed = await gatherFacts(control.url, 'tiny-control', KEY);
      expect([...TRUTH, ...ENDPOINT_TRUTH].filter((row) => row.holds(open, keyed)).map((row) => row.probe)).toEqual([]);
    } finally {
      await control.close();
    }
  });
});

describe('a real llama.cpp server', () => {
  let stops: Audit;
  let runaway: Audit;

  beforeAll(async () => {
    // Two requests at a time: still batched (the seed may drift), and grammar-constrained answers over a
    // 150k-token vocabulary stay well inside --timeout on two cores.
    stops = await audit('stops', undefined, ['--concurrency', '2']);
    // One request at a time: nothing is batched with the seeded samples, so the seed must fix them.
    runaway = await audit('runaway', KEY, ['--concurrency', '1']);
  });
  afterAll(stopAll);

  const cells = (a: Audit, model: string) => new Map(a.report.results.filter((r) => r.model === model).map((r) => [r.probe, r]));
  const show = (r: ProbeResult | undefined) => (r ? `${r.verdict}: ${r.observed}` : 'no cell');

  it('has a truth-table row for every model probe (billing aside: llama-server shows no balance)', () => {
    const modelProbes = PROBES.filter((p) => p.scope !== 'target' && p.area !== 'billing').map((p) => p.id);
    expect(TRUTH.map((r) => r.probe).sort()).toEqual([...modelProbes].sort());
    const targets = PROBES.filter((p) => p.scope === 'target').map((p) => p.id);
    expect(ENDPOINT_TRUTH.map((r) => r.probe).sort()).toEqual([...targets].sort());
  });

  it.each([...TRUTH, ...ENDPOINT_TRUTH].map((r) => [r.probe, r] as const))('evidence for %s still holds', (_, row) => {
    expect(row.holds(stops.facts, runaway.facts), `${row.because}\nstops: ${JSON.stringify(stops.facts)}\nrunaway: ${JSON.stringify(runaway.facts)}`).toBe(true);
  });

  it.each(['stops', 'runaway'] as const)('gives every cell of the %s model its true verdict', (which) => {
    const a = which === 'stops' ? stops : runaway;
    const got = cells(a, `tiny-${which}`);
    const allowed = (row: (typeof TRUTH)[number]) => [row[which]].flat();
    const wrong = TRUTH.filter((row) => !allowed(row).includes(got.get(row.probe)?.verdict as never)).map(
      (row) => `${row.probe}: expected ${allowed(row).join(' or ')} (${row.because}), got ${show(got.get(row.probe))}`,
    );
    expect(wrong, a.run.stdout.slice(-3000)).toEqual([]);
    const endpoint = cells(a, ENDPOINT);
    const wrongEndpoint = ENDPOINT_TRUTH.filter((row) => endpoint.get(row.probe)?.verdict !== row[which]).map((row) => `${row.probe}: expected ${row[which]} (${row.because}), got ${show(endpoint.get(row.probe))}`);
    expect(wrongEndpoint).toEqual([]);
  });

  it('names the Qwen 2 family from an exact fit, and finds Qwen 2.5\'s template around the prompt and no hidden prompt', () => {
    for (const [a, model] of [
      [stops, 'tiny-stops'],
      [runaway, 'tiny-runaway'],
    ] as const) {
      const tokenizer = cells(a, model).get('usage.tokenizer');
      expect(tokenizer?.findings.map((f) => f.code), show(tokenizer)).toEqual(['tokenizer']);
      expect(tokenizer?.observed).toMatch(/: exact, the unit 24 tokens a copy, as Qwen 2 \/ 2\.5 \/ 3 counts it, and the instruction in a user message and the counting prompt as it counts them/);
      const overhead = cells(a, model).get('usage.prompt_overhead');
      expect(overhead?.findings.map((f) => f.code), show(overhead)).toEqual(['template']);
      expect(overhead?.findings[0]?.message).toContain('29 for the template, exactly what Qwen 2.5 adds');
    }
  });

  it('gives the same usage cells through the Portkey gateway in front of llama-server (it changes no count)', async () => {
    const gateway = await startPortkey();
    try {
      const out = await tempDir();
      // Portkey routes by header: the provider, and llama-server as its custom host; the key is a dummy the
      // keyless server ignores.
      const route = ['--header', 'x-portkey-provider: openai', '--header', `x-portkey-custom-host: ${stops.server.url}`];
      const run = await runCli(['--base-url', gateway.url, '--out', out, '--timeout', TIMEOUT_S, '--probes', 'usage.*', ...route], { OPENAI_API_KEY: 'sk-portkey-dummy-0123456789' });
      const report = Report.parse(JSON.parse(await readFile(join(out, 'report.json'), 'utf8')));
      const through = cells({ ...stops, run, out, report }, 'tiny-stops');
      const direct = cells(stops, 'tiny-stops');
      for (const probe of ['usage.tokenizer', 'usage.prompt_overhead', 'usage.completion', 'usage.cache']) {
        const [d, t] = [direct.get(probe), through.get(probe)];
        expect(t?.verdict, `${probe}: ${show(t)}\n${run.stderr.slice(-2000)}`).toBe(d?.verdict);
        expect(t?.findings.map((f) => f.code), probe).toEqual(d?.findings.map((f) => f.code));
      }
      // The counts themselves: the same fitted points, the same template.
      for (const probe of ['usage.tokenizer', 'usage.prompt_overhead']) expect(through.get(probe)?.observed, probe).toBe(direct.get(probe)?.observed);
    } finally {
      await gateway.close();
    }
  });

  it('finds no balance route on llama-server, so no billing call is sent and the report says why', () => {
    for (const a of [stops, runaway]) {
      expect(a.report.billing).toMatchObject({ off: expect.stringContaining('no balance route answered (GET /api/usage/token: HTTP 404') });
      expect(a.report.results.filter((r) => r.probe.startsWith('billing.'))).toEqual([]);
    }
  });

  it('never calls a weak model\'s instruction-following "ignored"', () => {
    for (const a of [stops, runaway]) {
      const ignored = a.report.results.filter((r) => r.probe.startsWith('roles.') && r.verdict === 'ignored');
      expect(ignored.map((r) => `${r.model} ${r.probe}: ${r.observed}`)).toEqual([]);
    }
  });

  it('audits the model that never stops with limits, and says why in chat.finish_reason', () => {
    const entry = runaway.report.models.find((m) => m.id === 'tiny-runaway');
    expect(entry?.smoke?.runaway).toBe(true);
    expect(entry?.cause).toBeUndefined();
    const finish = cells(runaway, 'tiny-runaway').get('chat.finish_reason');
    expect(finish?.findings.map((f) => f.code)).toContain('runaway');
    expect(runaway.report.results.filter((r) => r.verdict === 'error').map((r) => `${r.probe}: ${r.observed}`)).toEqual([]);
    expect(stops.report.models.find((m) => m.id === 'tiny-stops')?.smoke?.runaway).toBeUndefined();
  });

  it('exits 1 (the servers break MUSTs) and leaks the key nowhere', async () => {
    expect(stops.run.code, stops.run.stderr).toBe(1);
    expect(runaway.run.code, runaway.run.stderr).toBe(1);
    for (const file of await readdir(runaway.out)) {
      expect(await readFile(join(runaway.out, file), 'utf8'), file).not.toContain(KEY);
    }
    expect(runaway.run.stdout + runaway.run.stderr).not.toContain(KEY);
  });
});
