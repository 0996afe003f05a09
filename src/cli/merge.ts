import { renderJson } from '../report/writers/json.js';
import { Boundary } from '../boundary/boundary.js';
import { loadBaseline } from '../report/baseline.js';
import { judge } from '../report/judge.js';
import { PROBES } from '../../suites/index.js';
import { mergeRuns, readRunFiles } from '../report/merge.js';
import { summarise } from '../report/summary.js';
import { ensureDir, writeReports } from '../report/write.js';
import { eachHarEntry, HAR_FILE, HarWriter } from '../report/har.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { painter, renderConsole } from '../report/writers/console.js';
import { VERSION } from '../version.js';
import { EXIT } from './exit.js';
import { err, out, terminalColumns, cannotTest } from './output.js';

/** The exchanges.har of each folder that has one, as one file in `out`; undefined when none has. */
async function mergeHars(dirs: readonly string[], out: string): Promise<string | undefined> {
  const found = dirs.map((d) => join(d, HAR_FILE)).filter((p) => existsSync(p));
  if (found.length === 0) return undefined;
  await ensureDir(out);
  const writer = new HarWriter(join(out, HAR_FILE), VERSION);
  try {
    for (const path of found) await eachHarEntry(path, (e) => writer.add(JSON.stringify(e)));
  } catch (e) {
    writer.abandon();
    throw e;
  }
  return writer.close();
}

/** chatprobe merge DIR…: shard reports into the report.json, junit.xml, matrix.md a single run writes. */
export async function mergeCommand(dirs: string[], args: { out: string; json: boolean; quiet: boolean; baseline?: string | undefined }, env: NodeJS.ProcessEnv): Promise<number> {
  try {
    const runs = await Promise.all(dirs.map(readRunFiles));
    // The reports were redacted when written and no secret is known here; the boundary still bounds and
    // shows what a report file carries, which may have been edited by hand.
    const boundary = new Boundary();
    const merged = mergeRuns(runs);
    // Judged again, not copied: a shard's stored outcomes may come from another baseline, or none.
    const baseline = args.baseline ? loadBaseline(args.baseline, PROBES.map((p) => p.id)) : undefined;
    const report = judge(boundary.report(merged.report), baseline, args.baseline ? { path: args.baseline, updated: false } : undefined);
    // The shards' recorded exchanges (their call ids carry the shard: s2c14) become the merged run's.
    const har = await mergeHars(dirs, args.out);
    const written = await writeReports(report, merged.trace, args.out, boundary, har);
    if (har) written.written = [...written.written, har].sort();
    for (const f of written.failed) err(`error: could not write ${f.file}: ${f.error}\n`);
    if (args.json) out(renderJson(report));
    else if (!args.quiet) out(renderConsole(report, painter(Boolean(process.stdout.isTTY), env), terminalColumns()));
    if (!args.quiet) err(`merged ${dirs.length} report(s) into ${written.written.join(', ')}\n`);
    if (written.failed.length > 0) return EXIT.failed;
    return summarise(report).exitCode;
  } catch (e) {
    return cannotTest(e);
  }
}
