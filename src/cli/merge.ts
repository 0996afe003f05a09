import { Boundary } from '../boundary/boundary.js';
import { loadBaseline } from '../report/baseline.js';
import { judge } from '../report/judge.js';
import { PROBES } from '../../suites/index.js';
import { oneLine } from '../boundary/text.js';
import { mergeRuns, readRunFiles } from '../report/merge.js';
import { summarise } from '../report/summary.js';
import { writeReports } from '../report/write.js';
import { painter, renderConsole } from '../report/writers/console.js';
import { CannotTestError } from '../engine/errors.js';
import { EXIT } from './exit.js';
import { err, out, terminalColumns } from './output.js';

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
    const written = await writeReports(report, merged.trace, args.out, boundary);
    for (const f of written.failed) err(`error: could not write ${f.file}: ${f.error}\n`);
    if (args.json) out(`${JSON.stringify(report, null, 2)}\n`);
    else if (!args.quiet) out(renderConsole(report, painter(Boolean(process.stdout.isTTY), env), terminalColumns()));
    if (!args.quiet) err(`merged ${dirs.length} report(s) into ${written.written.join(', ')}\n`);
    if (written.failed.length > 0) return EXIT.failed;
    return summarise(report).exitCode;
  } catch (e) {
    if (e instanceof CannotTestError) {
      err(`chatprobe: ${oneLine(e.message)}\n${e.advice ? `hint: ${oneLine(e.advice)}\n` : ''}`);
      return EXIT.cannotTest;
    }
    throw e;
  }
}
