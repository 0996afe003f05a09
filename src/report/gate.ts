import { expectedVerdicts, type Baseline } from './baseline.js';
import { matchAny } from '../glob.js';
import { EVERY_PROBE } from '../results/view.js';
import { ENDPOINT, type ModelEntry, type ProbeResult, type Report, type RowResult } from '../results/model.js';
import { outcomeOf } from '../results/outcome.js';
import { stoppedEarly } from '../results/head.js';
import { exitCodeOf, summarise } from './summary.js';
import { compareFingerprints, identityCheck, type IdentityCheck } from '../results/identity.js';

/**
 * Observe, judge, then gate. The probes give verdicts; what they mean for a gate (expected, regression,
 * improvement, new, missing) is this pure function of the report and a baseline, used by the audit, by
 * `merge` and by anything that gates a stored report again. Gating twice gives the same report.
 */
export function gate(report: Report, baseline: Baseline | undefined, about?: { path: string; updated: boolean }): Report {
  const { baseline: _previous, ...rest } = report;
  const models = report.models.filter((m) => m.notRun?.comparison !== 'missing').map((m) => (m.notRun ? { ...m, notRun: gateRow(m.id, m.notRun, baseline) } : m));
  // A loop, not push(...spread): a baseline may name as many models as a server once listed (the stack
  // holds a spread's arguments).
  if (baseline && (!report.shard || report.shard.index === 1)) for (const m of missingModels(report, baseline)) models.push(m);
  const { summary: _summary, identity: _identity, ...observed } = rest;
  // A run that did not finish never rewrites the baseline (the CLI keeps the file as it was): its report says so.
  const said = about && about.updated && stoppedEarly(report) ? { ...about, updated: false } : about;
  const judged: Report = { ...observed, ...(said ? { baseline: said } : {}), models, results: report.results.map((r) => gateCell(r, baseline)) };
  const identity = identityChecks(report, baseline);
  if (identity.length > 0) judged.identity = identity;
  const s = summarise(judged);
  // A name that no longer serves the model its baseline requires fails the gate as a regression does.
  const swapped = identity.filter((i) => i.outcome === 'failed').length;
  const exitCode = Math.max(exitCodeOf(judged, s), swapped > 0 && !judged.interrupted && !judged.baseline?.updated ? 1 : 0);
  judged.summary = { outcomes: s.outcomes, verdicts: s.verdicts as Record<string, number>, comparisons: s.comparisons, regressions: s.comparisons.regression + s.comparisons.missing + swapped, notRun: s.notRun, exitCode };
  return judged;
}

/** Each model this run fingerprinted that the baseline keeps a fingerprint of, weighed (results/identity.ts). */
function identityChecks(report: Report, baseline: Baseline | undefined): IdentityCheck[] {
  const kept = baseline?.identity;
  if (!kept) return [];
  const out: IdentityCheck[] = [];
  for (const m of report.models) {
    const before = kept[m.id];
    if (!before || !m.fingerprint || m.notRun) continue;
    out.push(identityCheck(m.id, compareFingerprints(before.fingerprint, m.fingerprint), before.require));
  }
  return out;
}

/**
 * One result as the run hands it on, judged against the baseline as the report will judge it: a cell, or a
 * not-probed row as one result (`EVERY_PROBE`). What progress lines count, so they agree with the summary.
 */
export function gateResult(r: ProbeResult, baseline: Baseline | undefined): ProbeResult {
  if (r.probe !== EVERY_PROBE) return gateCell(r, baseline);
  const row = gateRow(r.model, r, baseline);
  return row.comparison ? { ...r, outcome: row.outcome, comparison: row.comparison } : { ...r, outcome: row.outcome };
}

function gateCell(r: ProbeResult, baseline: Baseline | undefined): ProbeResult {
  const { expected: _e, comparison: _c, ...cell } = r;
  const expected = expectedVerdicts(baseline, r.model, r.probe);
  const { outcome, comparison } = outcomeOf(r.verdict, r.cause, baseline ? { cell: expected } : undefined);
  const out: ProbeResult = { ...cell, outcome };
  if (comparison) out.comparison = comparison;
  if (expected) out.expected = expected;
  return out;
}

/** A not-probed row against the baseline's cells for the model as a whole. */
function gateRow(model: string, row: RowResult, baseline: Baseline | undefined): RowResult {
  const { comparison: _c, ...rest } = row;
  const cells = baseline?.cells[model];
  const expected = cells ? Object.values(cells).map((e) => (Array.isArray(e) ? e : [e])) : undefined;
  const { outcome, comparison } = outcomeOf(row.verdict, row.cause, baseline ? { row: expected } : undefined);
  return comparison ? { ...rest, outcome, comparison } : { ...rest, outcome };
}

/**
 * The models the baseline expects that the run's plan did not have (GET /models no longer lists them),
 * among those the run was asked for: each a regression, one line. No verdict was observed, so there is
 * nothing for outcomeOf to weigh: missing is failed by definition.
 */
function missingModels(report: Report, baseline: Baseline): ModelEntry[] {
  const planned = new Set(report.shard?.allModels ?? report.models.filter((m) => m.notRun?.comparison !== 'missing').map((m) => m.id));
  const filter = report.options.modelFilter;
  return Object.keys(baseline.cells)
    .filter((id) => id !== ENDPOINT && !planned.has(id) && (filter.length === 0 || matchAny(id, filter)))
    .map((id) => ({
      id,
      listed: false,
      cause: 'model_not_listed',
      advice: 'the baseline expects this model and GET /models no longer lists it: restore it, or remove it from the baseline',
      notRun: {
        verdict: 'error',
        outcome: 'failed',
        comparison: 'missing',
        cause: 'model_not_listed',
        observed: `missing: the baseline expects ${Object.keys(baseline.cells[id]!).length} cell(s) of this model, and GET /models no longer lists it`,
        evidence: [],
      },
    }));
}
