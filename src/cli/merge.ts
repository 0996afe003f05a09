import { renderJson } from '../report/writers/json.js';
import { Boundary } from '../boundary/boundary.js';
import { loadBaseline } from '../report/baseline.js';
import { gate } from '../report/gate.js';
import { PROBES } from '../../suites/index.js';
import { mergeRuns, readRunFiles } from '../report/merge.js';
import { summarise } from '../report/summary.js';
import { ensureDir, writeReports } from '../report/write.js';
import { eachHarEntry, HAR_FILE, HarWriter } from '../report/har.js';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { painter, renderConsole } from '../report/writers/console.js';
import { VERSION } from '../version.js';
import { CannotTestError } from '../errors.js';
import { oneLine } from '../boundary/text.js';
import { EXIT, runExitCode } from './exit.js';
import { cannotTest, displayPath, err, onStopSignal, out, terminalColumns } from './output.js';

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

/** chatprobe merge DIR…: shard reports into the report.json, junit.xml, matrix.md a single run writes. */
export async function mergeCommand(dirs: string[], args: { out: string; json: boolean; quiet: boolean; baseline?: string | undefined }, env: NodeJS.ProcessEnv): Promise<number> {
  let har: HarWriter | undefined;
  let placed = false;
  // A stop signal (Ctrl-C, SIGTERM, SIGHUP): the merge is dropped whole. Its files are put in place in one
  // synchronous step (writeReports), so until then the folder holds what it held, and no temporary file is left.
  const quit = () => {
    har?.abandon();
    err(placed ? '\ninterrupted: the merged reports were already written\n' : '\nmerge interrupted: nothing written; the folders are as they were\n');
    process.exit(EXIT.interrupted);
  };
  const release = onStopSignal(quit);
  try {
    // The merged reports would replace a shard's own: merging again would then fail on a folder that is no shard.
    const target = resolve(args.out);
    const own = dirs.find((d) => resolve(d) === target);
    if (own !== undefined) throw new CannotTestError(`--out ${oneLine(displayPath(args.out))} is one of the shard folders merged: its reports would be replaced`, 'write the merged reports to a folder of their own, e.g. --out reports');
    const runs = await Promise.all(dirs.map(readRunFiles));
    // The reports were redacted when written and no secret is known here; the boundary still bounds and
    // shows what a report file carries, which may have been edited by hand.
    const boundary = new Boundary();
    const merged = mergeRuns(runs);
    // Judged again, not copied: a shard's stored outcomes may come from another baseline, or none.
    const baseline = args.baseline ? loadBaseline(args.baseline, PROBES) : undefined;
    const report = gate(boundary.report(merged.report), baseline, args.baseline ? { path: args.baseline, updated: false } : undefined);
    // The shards' recorded exchanges (their call ids carry the shard: s2c14) become the merged run's.
    await ensureDir(args.out);
    const recorded = await mergeHars(dirs, () => (har = new HarWriter(join(args.out, HAR_FILE), VERSION)));
    const written = await writeReports(report, merged.trace, args.out, boundary, recorded?.finish(), () => {
      recorded?.commit();
      placed = true;
    });
    har = undefined;
    if (recorded) written.written = [...written.written, join(args.out, HAR_FILE)].sort();
    for (const f of written.failed) err(`error: could not write ${f.file}: ${f.error}\n`);
    if (args.json) out(renderJson(report));
    else if (!args.quiet) out(renderConsole(report, painter(Boolean(process.stdout.isTTY), env), terminalColumns()));
    if (!args.quiet) err(`merged ${dirs.length} report(s) into ${written.written.map(displayPath).join(', ')}\n`);
    return runExitCode({ unwritten: written.failed.length, exitCode: summarise(report).exitCode });
  } catch (e) {
    return cannotTest(e);
  } finally {
    har?.abandon();
    release();
  }
}
