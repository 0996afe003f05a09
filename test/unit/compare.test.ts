import { describe, expect, it } from 'vitest';
import { compareReports } from '../../src/report/compare.js';
import type { ProbeResult, Report } from '../../src/results/model.js';
import { sampleReport, wideReport } from '../helpers/report.js';

/** The sample report with some cells' verdicts replaced. */
function variant(verdicts: Record<string, ProbeResult['verdict']>, edit: (r: Report) => void = () => {}): Report {
  const r = sampleReport();
  for (const x of r.results) {
    const v = verdicts[`${x.model} ${x.probe}`];
    if (v) x.verdict = v;
  }
  edit(r);
  return r;
}

describe('compareReports', () => {
  it('finds nothing between a report and itself', () => {
    const r = compareReports(sampleReport(), sampleReport());
    expect(r).toMatchObject({ changes: [], worse: false });
  });

  it('ranks changes as the gate does: lower is worse, decisive to inconclusive is worse, the reverse better', () => {
    const a = variant({ 'gpt-4.1|mini chat.basic': 'pass', 'gpt-4.1|mini parameters.max_tokens': 'honoured' });
    const b = variant({ 'gpt-4.1|mini chat.basic': 'fail', 'gpt-4.1|mini parameters.max_tokens': 'inconclusive' });
    const r = compareReports(a, b);
    expect(r.changes.map((c) => [c.probe, c.a, c.b, c.change])).toEqual([
      ['chat.basic', 'pass', 'fail', 'worse'],
      ['parameters.max_tokens', 'honoured', 'inconclusive', 'worse'],
    ]);
    expect(r.worse).toBe(true);
    const back = compareReports(b, a);
    expect(back.changes.map((c) => c.change)).toEqual(['better', 'better']);
    expect(back.worse).toBe(false);
  });

  it('calls a model gone from B worse, a model new in B not, and compares only probes both ran', () => {
    const b = variant({}, (r) => {
      r.models = r.models.filter((m) => m.id !== 'org/llama-3.1');
      r.results = r.results.filter((x) => x.model !== 'org/llama-3.1' && x.probe !== 'parameters.max_tokens');
      r.probes = r.probes.filter((p) => p.id !== 'parameters.max_tokens');
    });
    const r = compareReports(sampleReport(), b);
    expect(r.probesOnlyIn).toEqual({ a: ['parameters.max_tokens'], b: [] });
    expect(r.changes).toEqual([{ model: 'org/llama-3.1', probe: '(every probe)', a: undefined, b: undefined, change: 'model_missing', cells: 1 }]);
    expect(r.worse).toBe(true);
    expect(compareReports(b, sampleReport()).changes.map((c) => c.change)).toEqual(['model_added']);
    expect(compareReports(b, sampleReport()).worse).toBe(false);
  });

  it('does not call a model gone from B when B’s --models did not ask for it: it is not compared, and said', () => {
    const b = variant({}, (r) => {
      r.models = r.models.filter((m) => m.id !== 'org/llama-3.1');
      r.results = r.results.filter((x) => x.model !== 'org/llama-3.1');
      r.options.modelFilter = ['gpt-*'];
    });
    const r = compareReports(sampleReport(), b);
    expect(r).toMatchObject({ changes: [], worse: false, modelsOnlyIn: { a: ['org/llama-3.1'], b: [] } });
    // Asked for and not there: gone.
    const asked = variant({}, (x) => {
      x.models = x.models.filter((m) => m.id !== 'org/llama-3.1');
      x.results = x.results.filter((y) => y.model !== 'org/llama-3.1');
      x.options.modelFilter = ['gpt-*', 'org/*'];
    });
    expect(compareReports(sampleReport(), asked).worse).toBe(true);
  });

  it('does not take a model a baseline still expected (a line of that report’s judgement) for a model of the run', () => {
    const missing = { id: 'gone-model', listed: false, cause: 'model_not_listed' as const, notRun: { verdict: 'error' as const, outcome: 'failed' as const, cause: 'model_not_listed' as const, observed: 'not run: the baseline expects it', evidence: [], comparison: 'missing' as const } };
    const b = variant({}, (r) => r.models.push(missing));
    expect(compareReports(sampleReport(), b)).toMatchObject({ changes: [], worse: false });
    // Run in A, only expected in B: gone from B.
    const a = variant({}, (r) => r.models.push({ id: 'gone-model', listed: true, notRun: { verdict: 'error', outcome: 'errored', cause: 'upstream', observed: 'not run', evidence: [] } }));
    expect(compareReports(a, b).changes.map((c) => [c.model, c.change, c.cells])).toEqual([['gone-model', 'model_missing', 2]]);
  });

  it('says a model gone from B, or new in it, in one line with its number of cells, not one line per probe', () => {
    const a = wideReport(3, 56);
    const b = { ...wideReport(3, 56), models: a.models.slice(0, 2), results: a.results.filter((r) => r.model !== a.models[2]!.id) };
    const gone = compareReports(a, b);
    expect(gone.changes).toEqual([{ model: a.models[2]!.id, probe: '(every probe)', a: undefined, b: undefined, change: 'model_missing', cells: 56 }]);
    expect(gone.counts).toMatchObject({ model_missing: 1, worse: 0 });
    expect(gone.worse).toBe(true);
    const added = compareReports(b, a);
    expect(added.changes).toEqual([{ model: a.models[2]!.id, probe: '(every probe)', a: undefined, b: undefined, change: 'model_added', cells: 56 }]);
    expect(added.worse).toBe(false);
  });

  it('reads a row that was not probed cell by cell', () => {
    const b = variant({}, (r) => {
      r.results = r.results.filter((x) => x.model !== 'gpt-4.1|mini');
      r.models[0]!.notRun = { verdict: 'error', outcome: 'failed', cause: 'auth', observed: 'not run', evidence: [] };
    });
    const r = compareReports(sampleReport(), b);
    expect(r.changes.map((c) => [c.model, c.probe, c.b, c.change])).toEqual([
      ['gpt-4.1|mini', 'chat.basic', 'error', 'worse'],
      ['gpt-4.1|mini', 'parameters.max_tokens', 'error', 'worse'],
    ]);
  });
});

describe('sideBySide', () => {
  it('lists the cells compareReports finds changed first, worst first, with every run’s cell; the rest after', async () => {
    const { sideBySide } = await import('../../src/report/compare.js');
    const a = variant({ 'gpt-4.1|mini chat.basic': 'pass', 'gpt-4.1|mini parameters.max_tokens': 'ignored' });
    const b = variant({ 'gpt-4.1|mini chat.basic': 'fail', 'gpt-4.1|mini parameters.max_tokens': 'honoured' });
    const v = sideBySide([a, b]);
    expect(v.differences.map((d) => [d.probe, d.change, d.cells.map((c) => c?.verdict)])).toEqual([
      ['chat.basic', 'worse', ['pass', 'fail']],
      ['parameters.max_tokens', 'better', ['ignored', 'honoured']],
    ]);
    expect(v.same.every((r) => r.change === undefined)).toBe(true);
    // A model gone from B: each of its rows, its B cell empty, among the worst.
    const gone = variant({}, (r) => {
      r.models = r.models.filter((m) => m.id !== 'org/llama-3.1');
      r.results = r.results.filter((x) => x.model !== 'org/llama-3.1');
    });
    const g = sideBySide([sampleReport(), gone]);
    expect(g.differences.length).toBeGreaterThan(0);
    expect(g.differences.every((d) => d.model === 'org/llama-3.1' && d.change === 'model_missing' && d.cells[1] === null)).toBe(true);
  });

  it('renders the side-by-side matrix.md a column per run, differences first, text escaped', async () => {
    const { renderSideMatrix } = await import('../../src/report/writers/side-markdown.js');
    const a = variant({ 'gpt-4.1|mini chat.basic': 'pass' });
    const b = variant({ 'gpt-4.1|mini chat.basic': 'fail' });
    const md = renderSideMatrix([
      { label: 'a|host', path: 'r/1-a', report: a, harPath: undefined },
      { label: 'b', path: 'r/2-b', report: b, harPath: undefined },
    ]);
    const rows = md.split('\n').filter((l) => l.startsWith('| `'));
    expect(rows[0]).toContain('`chat.basic`');
    expect(rows[0]).toContain('worse than the first');
    expect(md).toContain('| model | probe | a\\|host | b | change |');
  });
});
