import { CAUSES } from '../results/causes.js';
import { ENDPOINT, type Comparison, type ModelEntry, type Outcome, type ProbeResult, type Report, type Verdict } from '../results/model.js';
import { gateResults } from '../results/view.js';
import { VERDICT_TONE, type Tone } from './style.js';
import { capText, perModelCap } from '../results/budget.js';

export interface Summary {
  outcomes: Record<Outcome, number>;
  verdicts: Partial<Record<Verdict, number>>;
  comparisons: Record<Comparison, number>;
  /** Results that fail the gate: regressions, and un-baselined MUST failures or untestable cells. */
  failures: ProbeResult[];
  /**
   * Results the run's stop left unrun (cause `deadline`: counted among the failed; `interrupted`: among the
   * skipped), counted as the outcomes are: a cell once, a row not reached once. Every place that says how
   * many were not run says this number, so stderr, the console, report.json and the step summary agree.
   */
  notRun: number;
  exitCode: 0 | 1;
}

/** Counts, and the exit code a finished run earns: 1 when any result failed or errored. A row that was not
 *  probed counts once. */
export function summarise(report: Report): Summary {
  const results = gateResults(report);
  const outcomes: Record<Outcome, number> = { passed: 0, failed: 0, skipped: 0, errored: 0 };
  const comparisons: Record<Comparison, number> = { expected: 0, regression: 0, improvement: 0, new: 0, missing: 0 };
  const verdicts: Partial<Record<Verdict, number>> = {};
  for (const r of results) {
    outcomes[r.outcome]++;
    verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1;
    if (r.comparison) comparisons[r.comparison]++;
  }
  const failures = results.filter((r) => r.outcome === 'failed' || r.outcome === 'errored');
  const notRun = results.filter((r) => r.cause !== undefined && CAUSES[r.cause].notRun).length;
  return { outcomes, verdicts, comparisons, failures, notRun, exitCode: failures.length > 0 ? 1 : 0 };
}

/**
 * The exit code a run with this report earns, as the README's table gives it: 130 when it was interrupted;
 * when it rewrote its baseline it accepted its verdicts, and only chatprobe's own errors still fail it (1);
 * else 1 when any result fails the gate. (A report file the CLI then cannot write also makes it 1.)
 */
export function exitCodeOf(report: Pick<Report, 'interrupted' | 'baseline'>, s: Summary): number {
  if (report.interrupted) return 130;
  if (report.baseline?.updated) return s.outcomes.errored > 0 ? 1 : 0;
  return s.exitCode;
}

/** What the closing lines add to the counts when the run stopped early: how many of them were not run. */
export function notRunText(report: Pick<Report, 'interrupted' | 'maxDurationReached' | 'budgetReached'>, s: Pick<Summary, 'notRun'>): string {
  if (report.interrupted) return `${s.notRun} not run (interrupted), counted among the skipped`;
  if (report.maxDurationReached) return `${s.notRun} not run (stopped at --max-duration), counted among the failed`;
  if (report.budgetReached) return `${s.notRun} not run (a spending cap reached), counted among the failed`;
  return '';
}

/** Whether the closing lines say how many were not run: the run stopped early, or a spending cap left cells. */
export const saysNotRun = (report: Pick<Report, 'interrupted' | 'maxDurationReached' | 'budgetReached'>): boolean =>
  report.interrupted || report.maxDurationReached === true || report.budgetReached !== undefined;

/**
 * The spending caps a run reached, as its headline says them: "stopped at --max-requests 40: partial
 * report" for a whole-run cap, "--max-requests-per-model 20 reached by 2 model(s)" for a model's.
 */
export function capsReachedText(report: Pick<Report, 'budgetReached'>, partial = ': partial report'): string | undefined {
  const reached = report.budgetReached ?? [];
  if (reached.length === 0) return undefined;
  return reached.map((r) => (perModelCap(r.cap) ? `${capText(r)} reached by ${r.models ?? 0} model(s)` : `stopped at ${capText(r)}${partial}`)).join('; ');
}

/** "regression: expected honoured, got ignored" and the like, for one result. */
export function describeChange(r: ProbeResult): string {
  const expected = r.expected ? r.expected.join(' or ') : undefined;
  switch (r.comparison) {
    case 'regression':
      return `regression: expected ${expected}, got ${r.verdict}`;
    case 'improvement':
      return `improvement: expected ${expected}, got ${r.verdict} (update the baseline)`;
    case 'new':
      return `new: not in the baseline, got ${r.verdict}`;
    case 'missing':
      return 'missing: the baseline expects this model, GET /models no longer lists it';
    default:
      return r.verdict;
  }
}

/**
 * Whether the run was compared with a baseline's cells: not when `--update-baseline` wrote the first one
 * (there was none to compare with), where "0 new" would say the opposite of what happened.
 */
export function comparedWithBaseline(report: Report): boolean {
  return report.results.some((r) => r.comparison !== undefined) || report.models.some((m) => m.notRun?.comparison !== undefined);
}

/** One model's cells counted, for the tables of models (console, report.html). */
export interface ModelTotals {
  /** The model's cells; a model not probed has one result standing for each of them. */
  cells: number;
  /** By outcome, as the gate counts them (ignored and rejected pass, unless a baseline expected better). */
  passed: number;
  failed: number;
  skipped: number;
  errored: number;
  /** By verdict: capabilities the model accepted and did not apply, or refused. */
  ignored: number;
  rejected: number;
  regressions: number;
  improvements: number;
  /** By the verdict's colour: a score bar's parts. */
  tones: Record<Tone, number>;
}

const noTotals = (): ModelTotals => ({ cells: 0, passed: 0, failed: 0, skipped: 0, errored: 0, ignored: 0, rejected: 0, regressions: 0, improvements: 0, tones: { good: 0, notice: 0, bad: 0, muted: 0 } });

/**
 * Each model's totals (every model of the report, a model the baseline expects and the server no longer
 * lists among them): its cells counted by outcome, by the verdicts a capability table reads (ignored,
 * rejected), against the baseline and by colour. A model not probed counts its row result once per probe,
 * its regression once.
 */
export function modelTotals(report: Report): Map<string, ModelTotals> {
  const perModel = report.probes.filter((p) => p.scope !== 'target').length;
  const totals = new Map<string, ModelTotals>();
  const add = (t: ModelTotals, r: Pick<ProbeResult, 'verdict' | 'outcome' | 'comparison'>, n: number) => {
    t.cells += n;
    t[r.outcome] += n;
    if (r.verdict === 'ignored' || r.verdict === 'rejected') t[r.verdict] += n;
    t.tones[VERDICT_TONE[r.verdict]] += n;
    if (r.comparison === 'regression') t.regressions++;
    if (r.comparison === 'improvement') t.improvements++;
  };
  for (const m of report.models) {
    if (m.id === ENDPOINT) continue;
    const t = noTotals();
    if (m.notRun) add(t, m.notRun, perModel);
    totals.set(m.id, t);
  }
  for (const r of report.results) {
    const t = totals.get(r.model);
    if (t) add(t, r, 1);
  }
  return totals;
}

/**
 * The models failures first: the most regressions, then the most cells failed or errored, then skipped;
 * models alike keep the order they were listed in.
 */
export function failuresFirst(models: readonly ModelEntry[], totals: Map<string, ModelTotals>): ModelEntry[] {
  const of = (m: ModelEntry) => totals.get(m.id) ?? noTotals();
  // Array.prototype.sort is stable: models alike stay as listed.
  return [...models].sort((a, b) => {
    const x = of(a);
    const y = of(b);
    return y.regressions - x.regressions || y.failed + y.errored - (x.failed + x.errored) || y.skipped - x.skipped;
  });
}
