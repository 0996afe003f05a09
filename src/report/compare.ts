import { ENDPOINT, type ProbeInfo, type ProbeResult, type Report, type Verdict } from '../results/model.js';
import { RANK } from '../results/outcome.js';
import { EVERY_PROBE, viewOf } from '../results/view.js';
import { matchAny } from '../glob.js';
import { compareFingerprints, type FingerprintComparison } from '../results/identity.js';

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
  /**
   * Each model both runs fingerprinted (identity.*), its two fingerprints weighed (results/identity.ts):
   * same, different or unverifiable, with the statistic, the threshold and the rates behind it.
   */
  identity: { model: string; comparison: FingerprintComparison }[];
  /** B is worse than A: a cell fell, a model A had is gone, or a name serves a different model. */
  worse: boolean;
}

/** The models both reports fingerprinted, in A's order, each pair weighed. */
export function compareIdentities(a: Report, b: Report): ReportComparison['identity'] {
  const inB = new Map(b.models.filter((m) => m.fingerprint && !m.notRun).map((m) => [m.id, m.fingerprint!]));
  const out: ReportComparison['identity'] = [];
  for (const m of a.models) {
    const other = inB.get(m.id);
    if (m.fingerprint && !m.notRun && other) out.push({ model: m.id, comparison: compareFingerprints(m.fingerprint, other) });
  }
  return out;
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
  const identity = compareIdentities(a, b);
  return {
    changes,
    probesOnlyIn: { a: [...probesA].filter((p) => !probesB.has(p)), b: [...probesB].filter((p) => !probesA.has(p)) },
    modelsOnlyIn: { a: onlyA, b: onlyB },
    counts,
    identity,
    worse: counts.worse > 0 || counts.model_missing > 0 || identity.some((i) => i.comparison.verdict === 'different'),
  };
}

/** One row of a side-by-side view: a model's cell of one probe in each run (null where a run has none). */
export interface SideRow {
  model: string;
  probe: string;
  cells: (ProbeResult | null)[];
  /**
   * How the row changed from the first run, the worst over the other runs (as compareReports ranks each
   * pair); absent when every compared run has the first's verdict, or the row was not compared.
   */
  change?: Change;
  /** Why the row was not compared: a probe one run did not run, or a model one run's --models left out. */
  notCompared?: string;
}

export interface SideBySide {
  /** The probes of every run: the first run's catalogue, then those only later runs ran. */
  probes: ProbeInfo[];
  /** The rows that changed, worst first (then the first run's model order, then the catalogue's). */
  differences: SideRow[];
  /** Every other row, in model order then catalogue order. */
  same: SideRow[];
  /** Each later run against the first (compareReports), for its counts and what was not compared. */
  against: ReportComparison[];
}

/** The order differences are listed in: what got worse first. */
export const CHANGE_ORDER: readonly Change[] = ['worse', 'model_missing', 'different', 'better', 'model_added'];

/**
 * Two or more runs side by side (two runs of one endpoint, or several endpoints audited together): each
 * model's cell of each probe in every run, and how it changed from the first run, ranked by compareReports
 * so the page and `chatprobe compare` never disagree. A pure function of the reports.
 */
export function sideBySide(reports: readonly Report[]): SideBySide {
  const [first, ...rest] = reports;
  if (!first || rest.length === 0) throw new Error('sideBySide needs two reports or more');
  const against = rest.map((r) => compareReports(first, r));
  // The change of each compared row, by run: a model gone or new stands for each of its rows.
  const key = (model: string, probe: string) => `${model}\u0000${probe}`;
  const changes = against.map((c) => new Map(c.changes.map((x) => [key(x.model, x.probe), x.change])));
  const views = reports.map(viewOf);
  const probes: ProbeInfo[] = [];
  const seenProbe = new Set<string>();
  for (const r of reports) for (const p of r.probes) if (!seenProbe.has(p.id)) (seenProbe.add(p.id), probes.push(p));
  const models: string[] = [ENDPOINT];
  const seenModel = new Set<string>(models);
  for (const r of reports) for (const m of r.models) if (m.notRun?.comparison !== 'missing' && !seenModel.has(m.id)) (seenModel.add(m.id), models.push(m.id));
  const cellOf = (v: ReturnType<typeof viewOf>, model: string, probe: string) =>
    (model === ENDPOINT ? v.endpoint.find((e) => e.probe.id === probe)?.result : v.cell(model, probe)) ?? null;
  const differences: SideRow[] = [];
  const same: SideRow[] = [];
  for (const model of models) {
    const scope = model === ENDPOINT ? 'target' : 'model';
    for (const p of probes) {
      if ((p.scope ?? 'model') !== scope) continue;
      const cells = views.map((v) => cellOf(v, model, p.id));
      if (cells.every((c) => c === null)) continue;
      const row: SideRow = { model, probe: p.id, cells };
      let worst: number | undefined;
      against.forEach((c, i) => {
        const change = changes[i]!.get(key(model, p.id)) ?? changes[i]!.get(key(model, EVERY_PROBE));
        if (change) worst = Math.min(worst ?? Infinity, CHANGE_ORDER.indexOf(change));
        if (c.probesOnlyIn.a.includes(p.id) || c.probesOnlyIn.b.includes(p.id)) row.notCompared ??= `${p.id} was not run by every run`;
        else if (c.modelsOnlyIn.a.includes(model) || c.modelsOnlyIn.b.includes(model)) row.notCompared ??= `${model} was left out by a run's --models`;
      });
      if (worst !== undefined) row.change = CHANGE_ORDER[worst]!;
      (row.change ? differences : same).push(row);
    }
  }
  // Stable: within a change, the order of the models and the catalogue.
  differences.sort((a, b) => CHANGE_ORDER.indexOf(a.change!) - CHANGE_ORDER.indexOf(b.change!));
  return { probes, differences, same, against };
}
