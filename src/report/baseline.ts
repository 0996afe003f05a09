import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { CannotTestError } from '../engine/errors.js';
import { Verdict, type Report } from './model.js';

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

export function loadBaseline(path: string): Baseline {
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
    throw new CannotTestError(`invalid baseline ${path} at ${issue.path.join('.') || 'top level'}: ${issue.message}`);
  }
  return parsed.data;
}

export function expectedVerdicts(b: Baseline | undefined, model: string, probe: string): Verdict[] | undefined {
  const cell = b?.cells[model]?.[probe];
  if (cell === undefined) return undefined;
  return Array.isArray(cell) ? cell : [cell];
}

/** The baseline a run leaves: its verdicts, keeping a flaky set that still contains the verdict seen. */
export function baselineFrom(report: Report, previous?: Baseline): Baseline {
  const cells: Baseline['cells'] = {};
  for (const r of report.results) {
    const before = expectedVerdicts(previous, r.model, r.probe);
    (cells[r.model] ??= {})[r.probe] = before && before.length > 1 && before.includes(r.verdict) ? before : r.verdict;
  }
  // A row that was not probed says nothing new about its cells: the previous expectations stay.
  for (const m of report.models) {
    const kept = m.notRun ? previous?.cells[m.id] : undefined;
    if (kept) cells[m.id] = { ...kept };
  }
  return { schemaVersion: 1, cells };
}

export async function writeBaseline(path: string, baseline: Baseline): Promise<void> {
  await writeFile(path, `${JSON.stringify(baseline, null, 2)}\n`, 'utf8');
}
