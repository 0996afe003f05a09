import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { CannotTestError } from '../engine/errors.js';
import { oneLine } from '../boundary/text.js';
import { CapabilityVerdict, ConformanceVerdict, Verdict, type ProbeKind, type Report } from './model.js';

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
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new CannotTestError(`invalid baseline ${path}: not JSON (${(e as Error).message})`);
  }
  const parsed = Baseline.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.join('.') || 'top level';
    const verdictHint = issue.path.length >= 3 ? ` (valid verdicts: ${Verdict.options.join(', ')})` : '';
    throw new CannotTestError(`invalid baseline ${path} at ${where}: ${issue.message}${verdictHint}`);
  }
  if (probes) {
    const kinds = new Map(probes.map((p) => [p.id, p.kind]));
    const unknown = [...new Set(Object.values(parsed.data.cells).flatMap((cells) => Object.keys(cells)))].filter((p) => !kinds.has(p));
    if (unknown.length > 0) {
      throw new CannotTestError(`invalid baseline ${path}: unknown probe(s) ${unknown.join(', ')}`, `valid probes: ${[...kinds.keys()].join(', ')}`);
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

/**
 * The baseline a run leaves: its verdicts, keeping a flaky set that still contains the verdict seen. An
 * `error` is never stored as expected (a gateway with 5 of 7 models down must not become the norm): the
 * cell keeps its previous expectation, or has none; `heldBack` counts those cells for the user.
 */
export function baselineFrom(report: Report, previous?: Baseline): Baseline & { heldBack: { kept: number; none: number; rows: { kept: string[]; none: string[] } } } {
  const cells: Baseline['cells'] = {};
  const heldBack = { kept: 0, none: 0, rows: { kept: [] as string[], none: [] as string[] } };
  for (const r of report.results) {
    const before = expectedVerdicts(previous, r.model, r.probe);
    if (r.verdict === 'error') {
      if (before) (cells[r.model] ??= {})[r.probe] = before.length > 1 ? before : before[0]!;
      heldBack[before ? 'kept' : 'none']++;
      continue;
    }
    (cells[r.model] ??= {})[r.probe] = before && before.length > 1 && before.includes(r.verdict) ? before : r.verdict;
  }
  // A row that was not probed says nothing new about its cells: the previous expectations stay.
  for (const m of report.models) {
    if (!m.notRun) continue;
    const kept = previous?.cells[m.id];
    if (kept) cells[m.id] = { ...kept };
    // A model no longer listed is said apart (its own line); one that failed its smoke call is said here.
    if (m.notRun.comparison !== 'missing') heldBack.rows[kept ? 'kept' : 'none'].push(m.id);
  }
  return { schemaVersion: 1, cells, heldBack };
}

export async function writeBaseline(path: string, baseline: Baseline): Promise<void> {
  await writeFile(path, `${JSON.stringify({ schemaVersion: baseline.schemaVersion, cells: baseline.cells }, null, 2)}\n`, 'utf8');
}
