import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { clip } from '../../src/text.js';
import { MAX_FINDINGS, MAX_MESSAGE, MAX_OBSERVED, probeInfo, result } from '../../src/engine/cell-result.js';
import { defineProbe, type ProbeVerdict } from '../../src/engine/probe.js';
import { CASE_BY_ID } from '../../src/passthrough/cases.js';
import { caseResult, passthroughProbes, runPassthrough } from '../../src/passthrough/run.js';
import { startUpstream, type Upstream } from '../../src/passthrough/upstream.js';
import { ProbeInfo, ProbeResult } from '../../src/results/model.js';

/** What a judge may quote of a server: a million characters, a hundred findings each of ten thousand. */
const LOUD = vi.hoisted(
  (): ProbeVerdict => ({
    verdict: 'warn',
    observed: 'o'.repeat(1_000_000),
    message: 'm'.repeat(50_000),
    findings: Array.from({ length: 100 }, (_, i) => ({ severity: 'warn' as const, code: `f${i}`, message: `finding ${i}: ${'x'.repeat(10_000)}` })),
  }),
);

// The run's catalogue: the temperature case judged loudly (the upstream still answers it as scripted), and
// max_tokens as it is, the control that the run itself judges as before.
vi.mock('../../src/passthrough/cases.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/passthrough/cases.js')>();
  const loud = { ...real.CASE_BY_ID.get('temperature')!, judge: () => LOUD };
  return { ...real, CASES: [loud, real.CASE_BY_ID.get('max_tokens')!] };
});

/** An audit probe giving the same verdict. */
const auditProbe = defineProbe({
  id: 'chat.loud',
  area: 'chat',
  kind: 'conformance',
  requirement: 'r',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 1, maxTokens: 16 },
  run: async () => LOUD,
});

/** The bounds every shaped cell keeps, whoever made it. */
function expectBounded(cell: ProbeResult): void {
  expect(cell.observed).toBe(clip(LOUD.observed, MAX_OBSERVED));
  expect(cell.observed.length).toBeLessThan(MAX_OBSERVED + 60);
  expect(cell.message).toBe(clip(LOUD.message!, MAX_MESSAGE));
  expect(cell.findings).toHaveLength(MAX_FINDINGS + 1);
  expect(cell.findings.slice(0, MAX_FINDINGS)).toEqual(LOUD.findings!.slice(0, MAX_FINDINGS).map((f) => ({ ...f, message: clip(f.message, MAX_MESSAGE) })));
  expect(cell.findings.at(-1)).toEqual({ severity: 'info', code: 'findings_cut', message: `${100 - MAX_FINDINGS} more finding(s) cut by chatprobe` });
  expect(cell.outcome).toBe('passed');
}

describe('a passthrough cell is shaped as an audit cell', () => {
  it('bounds a huge observed, message and 100 findings exactly as the audit does, its outcome by outcomeOf', () => {
    const c = CASE_BY_ID.get('temperature')!;
    const cell = caseResult('m', c, LOUD, ['c1'], 12.4);
    const audit = result('m', auditProbe, LOUD, ['c1'], 12.4);
    expectBounded(cell);
    expectBounded(audit);
    expect(cell).toEqual({ ...audit, probe: 'passthrough.temperature' });
    expect(ProbeResult.parse(cell)).toEqual(cell);
  });

  it('gives a cell the stop cut the audit\'s outcome: skipped, not run, never compared', () => {
    const cell = caseResult('m', CASE_BY_ID.get('temperature')!, { verdict: 'error', cause: 'interrupted', notRun: true, observed: 'not run: the run was interrupted' }, [], 0);
    expect(cell).toMatchObject({ verdict: 'error', cause: 'interrupted', outcome: 'skipped', notRun: true });
  });

  it('lists its probes as the audit lists its own (probeInfo)', () => {
    const probes = passthroughProbes();
    expect(probes.map((p) => p.id)).toEqual(['passthrough.temperature', 'passthrough.max_tokens']);
    expect(probes[0]).toEqual({ id: 'passthrough.temperature', area: 'passthrough', kind: 'conformance', scope: 'model', requirement: CASE_BY_ID.get('temperature')!.requirement, cost: { requests: 1, maxTokens: 16 } });
    expect(Object.keys(probes[0]!)).toEqual(Object.keys(probeInfo(auditProbe)));
    for (const p of probes) expect(ProbeInfo.parse(p)).toEqual(p);
  });
});

describe('runPassthrough with a judge that quotes too much (chatprobe upstream standing as its own gateway)', () => {
  let up: Upstream;
  beforeAll(async () => {
    up = await startUpstream({ models: ['pt-model'] });
  });
  afterAll(() => up.close());
  const options = () => ({ baseUrl: `${up.url}/v1`, apiKey: 'k', headers: {}, upstream: up.url, models: ['pt-model'], timeoutMs: 10_000, concurrency: 2 });

  it('writes the loud cell bounded as an audit cell, and judges the other case as before', async () => {
    const { report } = await runPassthrough(options());
    const [loud, plain] = report.results;
    expect(loud!.probe).toBe('passthrough.temperature');
    expectBounded(loud!);
    expect(loud!.evidence).toHaveLength(1);
    expect(loud).toEqual(result('pt-model', { id: 'passthrough.temperature', kind: 'conformance' }, LOUD, loud!.evidence, loud!.durationMs));
    // The control: a case judged by its own rule through the same run passes, its texts untouched.
    expect(plain).toMatchObject({ probe: 'passthrough.max_tokens', verdict: 'pass', outcome: 'passed' });
    expect(plain!.observed).not.toContain('cut by chatprobe');
    expect(report.probes).toEqual(passthroughProbes());
  });

  it('makes every cell of a stopped run not run and skipped, as the audit does', async () => {
    const stop = new AbortController();
    stop.abort();
    const { report } = await runPassthrough(options(), {}, stop.signal);
    expect(report.interrupted).toBe(true);
    expect(report.results).toHaveLength(2);
    for (const r of report.results) expect(r).toMatchObject({ verdict: 'error', cause: 'interrupted', outcome: 'skipped', notRun: true, evidence: [] });
  });
});
