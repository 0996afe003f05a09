import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Boundary } from '../boundary/boundary.js';
import { oneLine } from '../text.js';
import { CannotTestError } from '../errors.js';
import { loadBaseline } from '../report/baseline.js';
import { gate } from '../report/gate.js';
import { eachHarEntry, HAR_FILE, HarWriter } from '../report/har.js';
import { mergeRuns, readRunFiles } from '../report/merge.js';
import { ensureDir, writeReports, type WriteOutcome } from '../report/write.js';
import { runExitCode } from '../results/exit.js';
import type { Report } from '../results/model.js';
import { VERSION } from '../version.js';
import { PROBES } from '../../suites/index.js';

/**
 * The exchanges.har of each folder that has one, as one file in `out`, complete but not yet in place
 * (writeReports puts it there with the reports); undefined when no folder has one.
 */
async function mergeHars(dirs: readonly string[], writer: () => HarWriter): Promise<HarWriter | undefined> {
  const found = dirs.map((d) => join(d, HAR_FILE)).filter((p) => existsSync(p));
  if (found.length === 0) return undefined;
  const w = writer();
  for (const path of found) await eachHarEntry(path, (e) => w.add(JSON.stringify(e)));
  w.finish();
  return w;
}

/**
 * Shard runs (their folders' report.json, trace.jsonl, exchanges.har) as the one run they split: the
 * report gated again against `baseline` (a shard's stored outcomes may come from another, or none) and
 * written into `out` as a single run writes it. `placed` is called once the files are in place.
 */
export async function merge(dirs: readonly string[], options: { out: string; baseline?: string | undefined }, sinks: { recording?(har: HarWriter): void; placed?(): void } = {}): Promise<{ report: Report; written: WriteOutcome; exitCode: number }> {
  // The merged reports would replace a shard's own: merging again would then fail on a folder that is no shard.
  const target = resolve(options.out);
  if (dirs.some((d) => resolve(d) === target)) throw new CannotTestError(`--out ${oneLine(options.out)} is one of the shard folders merged: its reports would be replaced`, 'write the merged reports to a folder of their own, e.g. --out reports');
  const runs = await Promise.all(dirs.map(readRunFiles));
  // The reports were redacted when written and no secret is known here; the boundary still bounds and
  // shows what a report file carries, which may have been edited by hand.
  const boundary = new Boundary();
  const merged = mergeRuns(runs);
  // The probes the shards ran are in their reports, the user's own among them (merge runs none, and takes
  // no --probe-file): a baseline's cells for them are known, as they are to the shards that wrote them.
  const known = new Map<string, { id: string; kind: Report['probes'][number]['kind'] }>(PROBES.map((p) => [p.id, p]));
  for (const p of merged.report.probes) if (!known.has(p.id)) known.set(p.id, p);
  const baseline = options.baseline ? loadBaseline(options.baseline, [...known.values()]) : undefined;
  const report = gate(boundary.report(merged.report), baseline, options.baseline ? { path: options.baseline, updated: false } : undefined);
  // The shards' recorded exchanges (their call ids carry the shard: s2c14) become the merged run's.
  await ensureDir(options.out);
  let har: HarWriter | undefined;
  try {
    const recorded = await mergeHars(dirs, () => {
      har = new HarWriter(join(options.out, HAR_FILE), VERSION);
      sinks.recording?.(har);
      return har;
    });
    const written = await writeReports(report, merged.trace, options.out, boundary, recorded?.finish(), () => {
      recorded?.commit();
      sinks.placed?.();
    });
    har = undefined;
    if (recorded) written.written = [...written.written, join(options.out, HAR_FILE)].sort();
    return { report, written, exitCode: runExitCode({ unwritten: written.failed.length, exitCode: report.summary!.exitCode }) };
  } finally {
    har?.abandon();
  }
}
