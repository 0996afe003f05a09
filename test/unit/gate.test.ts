import { describe, expect, it } from 'vitest';
import type { Baseline } from '../../src/report/baseline.js';
import { gate, gateResult } from '../../src/report/gate.js';
import { EVERY_PROBE, rowAsResult } from '../../src/results/view.js';
import { sampleReport } from '../helpers/report.js';

const about = { path: 'b.json', updated: false };
const baselineA: Baseline = { schemaVersion: 1, cells: { 'gpt-4.1|mini': { 'chat.basic': 'fail', 'parameters.max_tokens': ['honoured', 'inconclusive'] } } };
const baselineB: Baseline = { schemaVersion: 1, cells: { 'gpt-4.1|mini': { 'chat.basic': 'pass', 'parameters.max_tokens': 'honoured' }, 'gone-model': { 'chat.basic': 'pass' } } };

describe('gate (observe, judge, then gate against the baseline)', () => {
  it('says in summary.exitCode the exit code the run earns: 130 interrupted; with the baseline rewritten, 1 only for chatprobe’s own errors', () => {
    const plain = gate(sampleReport(), undefined);
    const failing = plain.summary!.exitCode;
    expect(failing).toBe(plain.results.some((r) => r.outcome === 'failed' || r.outcome === 'errored') ? 1 : 0);
    expect(gate({ ...sampleReport(), interrupted: true }, undefined).summary!.exitCode).toBe(130);
    const updated = gate(sampleReport(), undefined, { path: 'b.json', updated: true });
    const errored = updated.results.some((r) => r.outcome === 'errored') || updated.models.some((m) => m.notRun?.outcome === 'errored');
    expect(updated.summary!.exitCode).toBe(errored ? 1 : 0);
    const noErrors = { ...sampleReport(), models: sampleReport().models.filter((m) => !m.notRun), results: sampleReport().results.filter((r) => r.verdict !== 'error') };
    expect(gate(noErrors, undefined).summary!.exitCode).toBe(1);
    expect(gate(noErrors, undefined, { path: 'b.json', updated: true }).summary!.exitCode).toBe(0);
  });

  it('judges each result as the run hands it on (cell or not-probed row) as the report will: progress agrees with the summary', () => {
    // A row the smoke call stopped, which one baseline expects to fail so.
    const down = { id: 'down', listed: true, notRun: { verdict: 'error' as const, outcome: 'errored' as const, observed: 'not run: the smoke call failed', evidence: ['c9'], cause: 'upstream' as const } };
    const baselineC: Baseline = { schemaVersion: 1, cells: { ...baselineA.cells, down: { 'chat.basic': 'error', 'parameters.max_tokens': 'error' } } };
    for (const baseline of [undefined, baselineA, baselineB, baselineC]) {
      const raw = { ...sampleReport(), models: [...sampleReport().models, down] };
      const judged = gate(raw, baseline, baseline ? about : undefined);
      const live = [...raw.results, ...raw.models.filter((m) => m.notRun).map((m) => rowAsResult(m, EVERY_PROBE)!)].map((r) => gateResult(r, baseline));
      const final = [...judged.results, ...judged.models.filter((m) => m.notRun && m.notRun.comparison !== 'missing').map((m) => rowAsResult(m, EVERY_PROBE)!)];
      const key = (r: { model: string; probe: string; outcome: string; comparison?: string }) => `${r.model} ${r.probe} ${r.outcome} ${r.comparison ?? '-'}`;
      expect(live.map(key).sort()).toEqual(final.map(key).sort());
    }
    // The trap: a failing cell the baseline expects counts as passed, live as in the report.
    const failing = sampleReport().results.find((r) => r.model === 'gpt-4.1|mini' && r.probe === 'chat.basic')!;
    expect(failing.outcome).toBe('failed');
    expect(gateResult(failing, baselineA).outcome).toBe('passed');
    const row = rowAsResult(down, EVERY_PROBE)!;
    expect(row.outcome).toBe('errored');
    expect(gateResult(row, baselineC)).toMatchObject({ outcome: 'passed', comparison: 'expected' });
  });

  it("trap: chatprobe's own failure in a cell the baseline holds is an error, neither new nor a regression of the endpoint", () => {
    const baseline: Baseline = { schemaVersion: 1, cells: { 'org/llama-3.1': { 'parameters.max_tokens': 'honoured' } } };
    const judged = gate(sampleReport(), baseline, about);
    const ours = judged.results.find((r) => r.cause === 'harness')!;
    expect(ours).toMatchObject({ probe: 'parameters.max_tokens', verdict: 'error', outcome: 'errored', expected: ['honoured'] });
    // It said "new: not in the baseline" of a cell the baseline held.
    expect(ours.comparison).toBeUndefined();
    expect(judged.summary!.exitCode).toBe(1);
  });

  it('never says the baseline was rewritten from a run that did not finish (interrupted, or stopped at --max-duration)', () => {
    const updated = { path: 'b.json', updated: true };
    expect(gate(sampleReport(), undefined, updated).baseline).toEqual(updated);
    expect(gate({ ...sampleReport(), interrupted: true }, undefined, updated).baseline).toEqual({ path: 'b.json', updated: false });
    expect(gate({ ...sampleReport(), maxDurationReached: true }, undefined, updated).baseline).toEqual({ path: 'b.json', updated: false });
  });

  it('is a pure function of the report and the baseline: judging again gives the same report', () => {
    const once = gate(sampleReport(), baselineB, about);
    expect(gate(once, baselineB, about)).toEqual(once);
  });

  it('judges a stored report again against another baseline, or none, with no stale outcome left', () => {
    const a = gate(sampleReport(), baselineA, about);
    const cell = (r: typeof a, probe: string) => r.results.find((x) => x.model === 'gpt-4.1|mini' && x.probe === probe)!;
    expect(cell(a, 'chat.basic')).toMatchObject({ outcome: 'passed', comparison: 'expected', expected: ['fail'] });
    expect(cell(a, 'parameters.max_tokens')).toMatchObject({ outcome: 'passed', comparison: 'expected' });
    const b = gate(a, baselineB, about);
    expect(cell(b, 'chat.basic')).toMatchObject({ outcome: 'failed', comparison: 'regression', expected: ['pass'] });
    expect(cell(b, 'parameters.max_tokens')).toMatchObject({ outcome: 'failed', comparison: 'regression' });
    const none = gate(b, undefined);
    expect(cell(none, 'chat.basic')).toEqual(expect.not.objectContaining({ comparison: expect.anything() }));
    expect(cell(none, 'chat.basic').expected).toBeUndefined();
    expect(none.baseline).toBeUndefined();
    expect(none.models.map((m) => m.id)).toEqual(['gpt-4.1|mini', 'org/llama-3.1']);
  });

  it('adds a model the baseline expects and the report lacks, once, as a missing regression', () => {
    const once = gate(sampleReport(), baselineB, about);
    const gone = once.models.filter((m) => m.id === 'gone-model');
    expect(gone).toHaveLength(1);
    expect(gone[0]!.notRun).toMatchObject({ outcome: 'failed', comparison: 'missing' });
    expect(gate(once, baselineB, about).models.filter((m) => m.id === 'gone-model')).toHaveLength(1);
    // A model outside --models is not missing; a sharded run says it in shard 1 only.
    const filtered = sampleReport();
    filtered.options.modelFilter = ['gpt-*'];
    expect(gate(filtered, baselineB, about).models.some((m) => m.id === 'gone-model')).toBe(false);
    const shard2 = sampleReport();
    shard2.shard = { index: 2, count: 2, allModels: ['gpt-4.1|mini', 'org/llama-3.1'] };
    expect(gate(shard2, baselineB, about).models.some((m) => m.id === 'gone-model')).toBe(false);
  });
});
