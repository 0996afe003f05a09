import { ENDPOINT, type ModelEntry, type ProbeInfo, type ProbeResult, type Report } from './model.js';

/** What the human-facing writers show: the endpoint checks apart, then the model × probe matrix. */
export interface ReportView {
  endpoint: { probe: ProbeInfo; result: ProbeResult | undefined }[];
  matrixProbes: ProbeInfo[];
  /** A cell's result; for a row that was not probed, its row result as this probe's. */
  cell(model: string, probe: string): ProbeResult | undefined;
}

/** The probe name a row result goes under where one line stands for the whole row (JUnit, summaries). */
export const EVERY_PROBE = '(every probe)';

/** A not-probed row's result as a cell (or, with EVERY_PROBE, as the row's one line). */
export function rowAsResult(m: { id: string; notRun?: ModelEntry['notRun'] | undefined }, probe: string, kind: ProbeInfo['kind'] = 'conformance'): ProbeResult | undefined {
  const row = m.notRun;
  if (!row) return undefined;
  const r: ProbeResult = { model: m.id, probe, kind, verdict: row.verdict, outcome: row.outcome, observed: row.observed, evidence: row.evidence, findings: [], durationMs: 0 };
  if (row.cause) r.cause = row.cause;
  if (row.status !== undefined) r.status = row.status;
  if (row.comparison) r.comparison = row.comparison;
  return r;
}

/**
 * A model the baseline expects and GET /models no longer lists: a line of the judgement (report/gate.ts),
 * not a model of the run. Shown as one line, never as a column of "not listed" cells.
 */
export const isMissing = (m: ModelEntry): boolean => m.notRun?.comparison === 'missing';

/** The models the run planned (probed or not): the columns of a matrix, the "N model(s)" of its extent. */
export const runModels = (report: Report): ModelEntry[] => report.models.filter((m) => !isMissing(m));

/**
 * What a gate counts: every cell, with each not-probed row as one line. A run of 10,000 unreachable models
 * is 10,000 lines, not 560,000.
 */
export function gateResults(report: Report): ProbeResult[] {
  const rows = report.models.flatMap((m) => (m.notRun ? [rowAsResult(m, EVERY_PROBE)!] : []));
  return [...report.results, ...rows];
}

export function viewOf(report: Report): ReportView {
  const byKey = new Map(report.results.map((r) => [`${r.model}\u0000${r.probe}`, r]));
  const rows = new Map(report.models.filter((m) => m.notRun).map((m) => [m.id, m]));
  const kinds = new Map(report.probes.map((p) => [p.id, p.kind]));
  const cell = (model: string, probe: string) => {
    const row = rows.get(model);
    return row ? rowAsResult(row, probe, kinds.get(probe)) : byKey.get(`${model}\u0000${probe}`);
  };
  return {
    endpoint: report.probes.filter((p) => p.scope === 'target').map((probe) => ({ probe, result: byKey.get(`${ENDPOINT}\u0000${probe.id}`) })),
    matrixProbes: report.probes.filter((p) => p.scope !== 'target'),
    cell,
  };
}
