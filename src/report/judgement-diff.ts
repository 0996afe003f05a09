import type { ModelEntry, ProbeResult, Report, RowResult } from '../results/model.js';
import { EVERY_PROBE } from '../results/view.js';

/**
 * The fields of a cell that its judgement made: what `chatprobe judge` must reproduce from a run's record.
 * Not compared: `durationMs` (how long the probe took on this machine, a replay's is its own), and the
 * gate's fields, `outcome`, `comparison` and `expected`, which weigh the judgement against a baseline
 * (results/outcome.ts) and change with the baseline given, not with the judgement.
 */
export const JUDGED_FIELDS = ['kind', 'verdict', 'observed', 'findings', 'cause', 'status', 'message', 'evidence', 'notRun'] as const;

/** The probe name a model's fingerprint differs under (it belongs to the row, not to a cell). */
export const FINGERPRINT_ROW = '(fingerprint)';

/** A row that was not probed: the fields of its one line the judgement made (its `outcome` and `comparison` are the gate's). */
const ROW_FIELDS = ['verdict', 'observed', 'cause', 'status', 'evidence'] as const;

export interface JudgementDiff {
  model: string;
  /** The probe, or EVERY_PROBE for a row that was not probed. */
  probe: string;
  /** The first field that differs, and its value in each report (undefined: the cell is not there). */
  field: string;
  a: unknown;
  b: unknown;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The cells whose judgement differs between two reports of one run (the report it wrote, and the one
 * `chatprobe judge` wrote from its record): each cell, and each row not probed, compared on the fields
 * the judgement made (JUDGED_FIELDS), in A's order, then B's cells that A does not have.
 */
export function diffJudgements(a: Report, b: Report): JudgementDiff[] {
  const out: JudgementDiff[] = [];
  const key = (r: { model: string; probe: string }) => `${r.model}\u0000${r.probe}`;
  const cellsB = new Map(b.results.map((r) => [key(r), r]));
  const seen = new Set<string>();
  const compare = (model: string, probe: string, ra: Partial<ProbeResult> | Partial<RowResult> | undefined, rb: Partial<ProbeResult> | Partial<RowResult> | undefined, fields: readonly string[]) => {
    if (!ra || !rb) {
      out.push({ model, probe, field: 'cell', a: ra?.verdict, b: rb?.verdict });
      return;
    }
    const field = fields.find((f) => !same((ra as Record<string, unknown>)[f], (rb as Record<string, unknown>)[f]));
    if (field) out.push({ model, probe, field, a: (ra as Record<string, unknown>)[field], b: (rb as Record<string, unknown>)[field] });
  };
  for (const r of a.results) {
    seen.add(key(r));
    compare(r.model, r.probe, r, cellsB.get(key(r)), JUDGED_FIELDS);
  }
  for (const r of b.results) if (!seen.has(key(r))) compare(r.model, r.probe, undefined, r, JUDGED_FIELDS);
  const rowsB = new Map<string, ModelEntry>(b.models.map((m) => [m.id, m]));
  const rowsA = new Set(a.models.map((m) => m.id));
  for (const m of a.models) {
    const other = rowsB.get(m.id);
    if (m.notRun || other?.notRun) compare(m.id, EVERY_PROBE, m.notRun, other?.notRun, ROW_FIELDS);
  }
  for (const m of b.models) if (!rowsA.has(m.id) && m.notRun) compare(m.id, EVERY_PROBE, undefined, m.notRun, ROW_FIELDS);
  // A model's fingerprint (identity.*) is judged from its answers too: the record must give it back whole.
  for (const m of a.models) {
    const other = rowsB.get(m.id);
    if ((m.fingerprint || other?.fingerprint) && !same(m.fingerprint, other?.fingerprint)) out.push({ model: m.id, probe: FINGERPRINT_ROW, field: 'fingerprint', a: m.fingerprint, b: other?.fingerprint });
  }
  return out;
}
