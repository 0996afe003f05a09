import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { CannotTestError } from '../errors.js';
import { notJson, schemaProblem, unreadable } from '../words.js';
import { oneLine } from '../text.js';
import { CapabilityVerdict, ConformanceVerdict, Verdict, type ProbeKind, type Report } from '../results/model.js';
import { BaselineIdentity } from '../results/identity.js';

/** The verdicts a probe of each kind gives. */
const VERDICTS_OF: Record<ProbeKind, readonly Verdict[]> = {
  capability: [...CapabilityVerdict.options, 'inconclusive', 'error'],
  conformance: [...ConformanceVerdict.options, 'inconclusive', 'error'],
};

/**
 * A baseline: per model, per probe, the verdict expected, or a set of verdicts for cells known to flip
 * (a model random at temperature 0 may be inconclusive or honoured). CI fails only on regressions from it.
 */
export const Baseline = z.object({
  schemaVersion: z.literal(1),
  cells: z.record(z.string(), z.record(z.string(), z.union([Verdict, z.array(Verdict).min(1)]))),
  /**
   * Per model, the fingerprint of the run that wrote it (identity.*) and, when the user adds it, what a
   * later run's must be against it: `"require": "same"` (or `"not_different"`). Written and refreshed by
   * --update-baseline, which keeps a `require` as it was; docs/identity.md.
   */
  identity: z.record(z.string(), BaselineIdentity).optional(),
});
export type Baseline = z.infer<typeof Baseline>;

export const DEFAULT_BASELINE = 'chatprobe.baseline.json';

/**
 * Reads and validates a baseline. With `probes`, a cell naming a probe that does not exist (renamed, or a
 * typo) is refused with the valid ids listed: a cell that can never match would never fail; so is a verdict
 * its probe cannot give ("honoured" for a conformance probe), which would fail every run.
 */
export function loadBaseline(path: string, probes?: readonly { id: string; kind: ProbeKind }[]): Baseline {
  if (!existsSync(path)) throw new CannotTestError(`baseline ${path} does not exist`, 'create it with --update-baseline');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new CannotTestError(`cannot read baseline ${path}: ${unreadable(e)}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new CannotTestError(`invalid baseline ${path}: not JSON${notJson(text)}`);
  }
  const parsed = Baseline.safeParse(raw);
  if (!parsed.success) {
    const verdictHint = parsed.error.issues[0]!.path.length >= 3 ? ` (valid verdicts: ${Verdict.options.join(', ')})` : '';
    throw new CannotTestError(`invalid baseline ${path} at ${schemaProblem(parsed.error, raw)}${verdictHint}`);
  }
  if (probes) {
    const kinds = new Map(probes.map((p) => [p.id, p.kind]));
    const unknown = [...new Set(Object.values(parsed.data.cells).flatMap((cells) => Object.keys(cells)))].filter((p) => !kinds.has(p));
    if (unknown.length > 0) {
      // A probe of the user's own is known only when its file is given again (the baseline stores its cells, not its code).
      throw new CannotTestError(`invalid baseline ${path}: unknown probe(s) ${unknown.join(', ')}`, `a probe of your own: pass its --probe-file again; valid probes: ${[...kinds.keys()].join(', ')}`);
    }
    // A verdict the probe cannot give never matches: every run would report a regression.
    for (const [model, cells] of Object.entries(parsed.data.cells)) {
      for (const [probe, expected] of Object.entries(cells)) {
        const kind = kinds.get(probe)!;
        const family = VERDICTS_OF[kind];
        const stray = (Array.isArray(expected) ? expected : [expected]).find((v) => !family.includes(v));
        if (stray) throw new CannotTestError(`invalid baseline ${path} at cells.${oneLine(model)}.${probe}: "${stray}" is no verdict of a ${kind} probe (${family.join(', ')})`);
      }
    }
  }
  return parsed.data;
}

export function expectedVerdicts(b: Baseline | undefined, model: string, probe: string): Verdict[] | undefined {
  const cell = b?.cells[model]?.[probe];
  if (cell === undefined) return undefined;
  return Array.isArray(cell) ? cell : [cell];
}

/** One expectation a rewrite changed: what the baseline held, and what it holds now. */
export interface BaselineChange {
  model: string;
  probe: string;
  from: Verdict[];
  to: Verdict[];
}

/** What `--update-baseline` did to the file, for the user to read before committing it. */
export interface BaselineUpdate {
  /** Cells this run observed and stored (a flaky set that still holds counts as observed, unchanged). */
  observed: number;
  /** Of those, the expectations that changed; cells new to the baseline are counted in `added`. */
  changed: BaselineChange[];
  added: number;
  /** Cells of the previous baseline this run did not observe, kept as they were, and their models. */
  kept: number;
  keptModels: number;
  /** Error cells and rows not probed: never stored as expected (they keep what they had, or have none). */
  heldBack: { kept: number; none: number; rows: { kept: string[]; none: string[] } };
}

const asList = (e: Verdict | Verdict[]): Verdict[] => (Array.isArray(e) ? e : [e]);
const sameSet = (a: readonly Verdict[], b: readonly Verdict[]) => a.length === b.length && a.every((v) => b.includes(v));

/**
 * The baseline a run leaves: the previous one, with the cells this run observed stored as seen (keeping a
 * flaky set that still contains the verdict seen). A cell this run did not observe keeps its expectation
 * whatever narrowed the run (--shard, --models, --probes, a row not probed, a probe left out of the default
 * selection): a rewrite that dropped them would let the next full run call those cells "new", and a
 * regression in them would no longer fail. So a rewrite never removes a cell; a model gone for good is
 * removed by hand. An `error` is never stored as expected either (a gateway with 5 of 7 models down must
 * not become the norm): the cell keeps its previous expectation, or has none.
 */
export function baselineFrom(report: Report, previous?: Baseline): Baseline & { update: BaselineUpdate } {
  const cells: Baseline['cells'] = {};
  for (const [model, expected] of Object.entries(previous?.cells ?? {})) cells[model] = { ...expected };
  const update: BaselineUpdate = { observed: 0, changed: [], added: 0, kept: 0, keptModels: 0, heldBack: { kept: 0, none: 0, rows: { kept: [], none: [] } } };
  const seen = new Set<string>();
  for (const r of report.results) {
    const before = expectedVerdicts(previous, r.model, r.probe);
    if (r.verdict === 'error') {
      update.heldBack[before ? 'kept' : 'none']++;
      continue;
    }
    const to = before && before.length > 1 && before.includes(r.verdict) ? before : [r.verdict];
    (cells[r.model] ??= {})[r.probe] = to.length > 1 ? to : to[0]!;
    seen.add(`${r.model}\u0000${r.probe}`);
    update.observed++;
    if (!before) update.added++;
    else if (!sameSet(before, to)) update.changed.push({ model: r.model, probe: r.probe, from: before, to });
  }
  // A row that was not probed says nothing new about its cells: they stay as they were (above).
  for (const m of report.models) {
    if (!m.notRun) continue;
    // A model no longer listed is said apart (its own line); one that failed its smoke call is said here.
    if (m.notRun.comparison !== 'missing') update.heldBack.rows[previous?.cells[m.id] ? 'kept' : 'none'].push(m.id);
  }
  for (const [model, expected] of Object.entries(previous?.cells ?? {})) {
    const untouched = Object.keys(expected).filter((probe) => !seen.has(`${model}\u0000${probe}`)).length;
    update.kept += untouched;
    if (untouched === Object.keys(expected).length) update.keptModels++;
  }
  // The fingerprints this run took replace the stored ones (a `require` kept); the others stay as they were.
  const identity: NonNullable<Baseline['identity']> = { ...(previous?.identity ?? {}) };
  for (const m of report.models) {
    if (!m.fingerprint || m.notRun) continue;
    const require = previous?.identity?.[m.id]?.require;
    identity[m.id] = require ? { require, fingerprint: m.fingerprint } : { fingerprint: m.fingerprint };
  }
  return Object.keys(identity).length > 0 ? { schemaVersion: 1, cells, identity, update } : { schemaVersion: 1, cells, update };
}

/** Changed expectations named one by one up to this many; the rest are counted (the file has them all). */
const CHANGES_SHOWN = 10;

/**
 * What a rewrite did, in words for stderr: what it stored, what it changed (each change named), and what it
 * kept without observing it, with what narrowed the run (`narrowedBy`: "--shard 2/3", "--models …").
 */
export function describeUpdate(path: string, u: BaselineUpdate, narrowedBy: readonly string[]): string[] {
  const lines = [`baseline written: ${path}: ${u.observed} cell(s) observed (${u.added} new, ${u.changed.length} changed)`];
  if (u.kept > 0) {
    const why = narrowedBy.length > 0 ? `this run was narrowed by ${narrowedBy.join(', ')}` : 'this run did not observe them';
    lines[0] += `; ${u.kept} cell(s) kept as they were, not observed (${why}), ${u.keptModels} model(s) of them untouched`;
  }
  for (const c of u.changed.slice(0, CHANGES_SHOWN)) lines.push(`  changed: ${oneLine(c.model)} · ${c.probe}: ${c.from.join(' or ')} → ${c.to.join(' or ')}`);
  if (u.changed.length > CHANGES_SHOWN) lines.push(`  … and ${u.changed.length - CHANGES_SHOWN} more changed (git diff ${path} shows them)`);
  return lines;
}

export async function writeBaseline(path: string, baseline: Baseline): Promise<void> {
  const out = baseline.identity ? { schemaVersion: baseline.schemaVersion, cells: baseline.cells, identity: baseline.identity } : { schemaVersion: baseline.schemaVersion, cells: baseline.cells };
  await writeFile(path, `${JSON.stringify(out, null, 2)}\n`, 'utf8');
}
