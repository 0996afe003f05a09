import { renderJson } from '../report/writers/json.js';
import type { HarWriter } from '../report/har.js';
import { merge } from '../pipeline/merge.js';
import { painter, renderConsole } from '../report/writers/console.js';
import { EXIT } from '../results/exit.js';
import { cannotTest, displayPath, err, onStopSignal, out, terminalColumns } from './output.js';

/** chatprobe merge DIR…: shard reports into the report.json, junit.xml, matrix.md a single run writes (pipeline/merge.ts). */
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
    const { report, written, exitCode } = await merge(dirs, args, { recording: (h) => (har = h), placed: () => (placed = true) });
    har = undefined;
    for (const f of written.failed) err(`error: could not write ${f.file}: ${f.error}\n`);
    if (args.json) out(renderJson(report));
    else if (!args.quiet) out(renderConsole(report, painter(Boolean(process.stdout.isTTY), env), terminalColumns()));
    if (!args.quiet) err(`merged ${dirs.length} report(s) into ${written.written.map(displayPath).join(', ')}\n`);
    return exitCode;
  } catch (e) {
    return cannotTest(e);
  } finally {
    release();
  }
}
