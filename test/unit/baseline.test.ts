import { describe, expect, it } from 'vitest';
import { baselineFrom, describeUpdate, type Baseline } from '../../src/report/baseline.js';
import { gate } from '../../src/report/gate.js';
import { ENDPOINT, type Report } from '../../src/results/model.js';
import { sampleReport } from '../helpers/report.js';

/** A full baseline: the endpoint, three models, two probes each. */
const full: Baseline = {
  schemaVersion: 1,
  cells: {
    [ENDPOINT]: { 'auth.missing_key': 'pass' },
    'gpt-4.1|mini': { 'chat.basic': 'fail', 'parameters.max_tokens': ['honoured', 'inconclusive'] },
    'org/llama-3.1': { 'chat.basic': 'pass', 'parameters.max_tokens': 'ignored' },
    'other-shard': { 'chat.basic': 'pass', 'parameters.max_tokens': 'honoured' },
  },
};

/** The sample report narrowed to one model that answered: what `--shard 2/3` or `--models` leaves. */
function narrowed(): Report {
  const r = sampleReport();
  return {
    ...r,
    options: { ...r.options, modelFilter: ['gpt-4.1|mini'] },
    models: r.models.filter((m) => m.id === 'gpt-4.1|mini'),
    results: [
      { ...r.results[0]!, verdict: 'pass', outcome: 'passed' },
      { ...r.results[1]!, verdict: 'honoured', outcome: 'passed' },
    ],
  };
}

describe('--update-baseline on a narrowed run', () => {
  it('keeps every expectation it did not observe: other models, the endpoint, and probes it did not run', () => {
    const next = baselineFrom(narrowed(), full);
    expect(Object.keys(next.cells).sort()).toEqual(Object.keys(full.cells).sort());
    expect(next.cells[ENDPOINT]).toEqual(full.cells[ENDPOINT]);
    expect(next.cells['other-shard']).toEqual(full.cells['other-shard']);
    expect(next.cells['org/llama-3.1']).toEqual(full.cells['org/llama-3.1']);
    // Observed: changed where the verdict left the set, a flaky set that still holds kept as it was.
    expect(next.cells['gpt-4.1|mini']).toEqual({ 'chat.basic': 'pass', 'parameters.max_tokens': ['honoured', 'inconclusive'] });

    // --probes: one probe of the model observed, the other kept.
    const oneProbe = { ...narrowed(), results: narrowed().results.slice(0, 1) };
    expect(baselineFrom(oneProbe, full).cells['gpt-4.1|mini']).toEqual({ 'chat.basic': 'pass', 'parameters.max_tokens': ['honoured', 'inconclusive'] });
  });

  it('says what it observed, what it changed (each change named) and what it kept, with what narrowed the run', () => {
    const { update } = baselineFrom(narrowed(), full);
    expect(update).toMatchObject({ observed: 2, added: 0, kept: 5, keptModels: 3, changed: [{ model: 'gpt-4.1|mini', probe: 'chat.basic', from: ['fail'], to: ['pass'] }] });
    expect(describeUpdate('b.json', update, ['--shard 2/3'])).toEqual([
      'baseline written: b.json: 2 cell(s) observed (0 new, 1 changed); 5 cell(s) kept as they were, not observed (this run was narrowed by --shard 2/3), 3 model(s) of them untouched',
      '  changed: gpt-4.1|mini · chat.basic: fail → pass',
    ]);
  });

  it('writes from a run with no previous baseline exactly what it observed', () => {
    const next = baselineFrom(narrowed());
    expect(next.cells).toEqual({ 'gpt-4.1|mini': { 'chat.basic': 'pass', 'parameters.max_tokens': 'honoured' } });
    expect(next.update).toMatchObject({ observed: 2, added: 2, kept: 0, changed: [] });
  });

  it('leaves the next full run judging every cell against its old expectation, none of them "new"', () => {
    const next = baselineFrom(narrowed(), full);
    const fullRun = gate(sampleReport(), next, { path: 'b.json', updated: false });
    expect(fullRun.results.filter((r) => r.expected === undefined)).toEqual([]);
  });
});
