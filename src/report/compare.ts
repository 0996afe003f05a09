import { ENDPOINT, type Report, type Verdict } from '../results/model.js';
import { RANK } from '../results/outcome.js';
import { EVERY_PROBE, viewOf } from '../results/view.js';
import { matchAny } from '../glob.js';

/** How a cell changed from report A to report B. */
export type Change = 'worse' | 'better' | 'different' | 'model_missing' | 'model_added';

export interface CellChange {
  model: string;
  /** The probe; for a model gone from B or new in B, EVERY_PROBE: one line stands for the model. */
  probe: string;
  a: Verdict | undefined;
  b: Verdict | undefined;
  change: Change;
  /** For a model gone or new: how many of its cells (of the probes both ran) the report that has it has. */
  cells?: number;
}

export interface ReportComparison {
  /** Cells whose verdict differs, in A's model order then catalogue order; a model gone or new is one line. */
  changes: CellChange[];
  /** Probes run in only one of the two: their cells are not compared. */
  probesOnlyIn: { a: string[]; b: string[] };
  /** Models of one report that the other's --models left out (not gone: not asked for): not compared. */
  modelsOnlyIn: { a: string[]; b: string[] };
  /** Changed cells by kind; `model_missing` and `model_added` count models (their lines). */
  counts: Record<Change, number>;
  /** B is worse than A: a cell fell, or a model A had is gone. */
  worse: boolean;
}

/**
 * Rank a change the way the CI gate does: a lower verdict, or a decisive one that became inconclusive, is
 * worse; the reverse is better; two verdicts of one rank (ignored and rejected) just differ.
 */
function changeOf(a: Verdict, b: Verdict): Change {
  // A cell that could not be tested is worse than any that ran, inconclusive included.
  if (b === 'error') return 'worse';
  if (a === 'error') return 'better';
  if (a === 'inconclusive') return 'better';
  if (b === 'inconclusive') return 'worse';
  if (RANK[b] < RANK[a]) return 'worse';
  if (RANK[b] > RANK[a]) return 'better';
  return 'different';
}

/**
 * The cells of two reports that differ (staging against production, a gateway against its upstream called
 * directly, before and after a deploy): a pure function of the two reports, rows that were not probed
 * counted cell by cell.
 */
export function compareReports(a: Report, b: Report): ReportComparison {
  const probesA = new Set(a.probes.map((p) => p.id));
  const probesB = new Set(b.probes.map((p) => p.id));
  const shared = a.probes.filter((p) => probesB.has(p.id));
  const va = viewOf(a);
  const vb = viewOf(b);
  // A model a baseline expected and the run's list no longer had is a line of that report's judgement,
  // not a model of its run: neither side has it.
  const ran = (r: Report) => r.models.filter((m) => m.notRun?.comparison !== 'missing').map((m) => m.id);
  const idsA = ran(a);
  const idsB = ran(b);
  const modelsB = new Set(idsB);
  const changes: CellChange[] = [];
  const cellOf = (v: ReturnType<typeof viewOf>, model: string, probe: string) =>
    model === ENDPOINT ? v.endpoint.find((e) => e.probe.id === probe)?.result : v.cell(model, probe);
  const seenA = new Set(idsA);
  // A model the other run's --models did not ask for is not gone from it: it was left out.
  const leftOut = (r: Report, id: string) => r.options.modelFilter.length > 0 && !matchAny(id, r.options.modelFilter);
  const onlyA = idsA.filter((id) => !modelsB.has(id) && leftOut(b, id));
  const onlyB = idsB.filter((id) => !seenA.has(id) && leftOut(a, id));
  const skipped = new Set([...onlyA, ...onlyB]);
  const models = [ENDPOINT, ...idsA, ...idsB.filter((id) => !seenA.has(id))].filter((id) => !skipped.has(id));
  for (const model of models) {
    const scope = model === ENDPOINT ? 'target' : 'model';
    const probes = shared.filter((x) => (x.scope ?? 'model') === scope);
    // A model gone from B (or new in it) is one line, not one per probe: one vanished model printed 56.
    const whole: Change | undefined = model === ENDPOINT ? undefined : !modelsB.has(model) ? 'model_missing' : !seenA.has(model) ? 'model_added' : undefined;
    if (whole) {
      const v = whole === 'model_missing' ? va : vb;
      const cells = probes.filter((p) => cellOf(v, model, p.id) !== undefined).length;
      if (cells > 0) changes.push({ model, probe: EVERY_PROBE, a: undefined, b: undefined, change: whole, cells });
      continue;
    }
    for (const p of probes) {
      const ra = cellOf(va, model, p.id)?.verdict;
      const rb = cellOf(vb, model, p.id)?.verdict;
      if (ra === rb) continue;
      let change: Change;
      if (ra === undefined || rb === undefined) change = rb === undefined ? 'worse' : 'better';
      else change = changeOf(ra, rb);
      changes.push({ model, probe: p.id, a: ra, b: rb, change });
    }
  }
  const counts: Record<Change, number> = { worse: 0, better: 0, different: 0, model_missing: 0, model_added: 0 };
  for (const c of changes) counts[c.change]++;
  return {
    changes,
    probesOnlyIn: { a: [...probesA].filter((p) => !probesB.has(p)), b: [...probesB].filter((p) => !probesA.has(p)) },
    modelsOnlyIn: { a: onlyA, b: onlyB },
    counts,
    worse: counts.worse > 0 || counts.model_missing > 0,
  };
}
