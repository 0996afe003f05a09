import { renderJson } from '../report/writers/json.js';
import { join } from 'node:path';
import { resolveOptions, secretsOf } from '../config/options.js';
import { oneLine } from '../boundary/text.js';
import { CannotTestError } from '../errors.js';
import { existsSync } from 'node:fs';
import { passthroughProbes, runPassthrough } from '../passthrough/run.js';
import { baselineFrom, describeUpdate, loadBaseline, writeBaseline } from '../report/baseline.js';
import { HAR_FILE, HarWriter, recordCalls } from '../report/har.js';
import { gate } from '../report/gate.js';
import { checkOutputs, writeReports } from '../report/write.js';
import { painter, renderConsole } from '../report/writers/console.js';
import { VERSION } from '../version.js';
import { runExitCode } from './exit.js';
import { ownVocabulary } from '../report/vocabulary.js';
import { cannotTest, displayPath, err, guardSecrets, harSaved, interruptible, keptText, out, terminalColumns } from './output.js';

/** The baseline file a passthrough run rewrites when --update-baseline names none. */
export const PASSTHROUGH_BASELINE = 'chatprobe.passthrough.baseline.json';

export interface PassthroughArgs {
  upstream: string;
  cases: string[] | undefined;
}

/**
 * chatprobe passthrough: each case sent through the gateway to chatprobe upstream, what arrived compared
 * with what was sent (and the upstream's scripted answers with what came back); reports as an audit writes.
 */
export async function passthroughCommand(flags: Record<string, unknown>, args: PassthroughArgs, env: NodeJS.ProcessEnv): Promise<number> {
  let har: HarWriter | undefined;
  // A stop signal (Ctrl-C, SIGTERM, SIGHUP): the cases not yet sent are reported as not run, and the partial report is written.
  const interrupt = interruptible(err, () => harSaved(har));
  try {
    const options = resolveOptions(flags, env);
    if (options.models.length === 0) throw new CannotTestError('passthrough needs --models: the model name(s) the gateway routes to chatprobe upstream');
    if (!/^https?:\/\/[^/]+/.test(args.upstream)) throw new CannotTestError(`invalid --upstream "${oneLine(args.upstream)}": give the address chatprobe upstream printed, e.g. http://127.0.0.1:8788`);
    const boundary = guardSecrets(secretsOf(options), ownVocabulary());
    // A baseline gates a gateway's deploys as it gates an audit: fail only on what got worse.
    const baselinePath = options.baseline ?? PASSTHROUGH_BASELINE;
    await checkOutputs({ out: options.out, ...(options.updateBaseline ? { baseline: baselinePath } : {}) });
    const baseline = options.baseline && (!options.updateBaseline || existsSync(options.baseline)) ? loadBaseline(options.baseline, passthroughProbes()) : undefined;
    har = new HarWriter(join(options.out, HAR_FILE), VERSION);
    const recorder = har;
    if (!options.quiet) err(`passthrough: ${options.models.length} model(s) through ${options.baseUrl} to chatprobe upstream at ${args.upstream}\n`);
    const { report: raw, trace } = await runPassthrough(
      {
        baseUrl: options.baseUrl,
        apiKey: options.apiKey,
        apiKeyEnv: options.apiKeyEnv,
        headers: options.headers,
        upstream: args.upstream,
        models: options.models,
        ...(args.cases ? { cases: args.cases } : {}),
        timeoutMs: options.timeoutMs,
        concurrency: options.concurrency,
        rpm: options.rpm,
      },
      { onCall: recordCalls(recorder, boundary) },
      interrupt.signal,
    );
    const report = gate(boundary.report(raw), baseline, options.baseline || options.updateBaseline ? { path: baselinePath, updated: options.updateBaseline } : undefined);
    // exchanges.har put in place with the reports, in one step (as audit does).
    const recorded = har;
    const written = await writeReports(report, trace, options.out, boundary, recorded.finish(), () => recorded.commit());
    har = undefined;
    const harPath = join(options.out, HAR_FILE);
    for (const f of written.failed) err(`error: could not write ${f.file}: ${f.error}\n`);
    if (options.json) out(renderJson(report));
    else if (!options.quiet) out(renderConsole(report, painter(Boolean(process.stdout.isTTY), env), terminalColumns()));
    if (!options.quiet) err(`reports: ${[...written.written, harPath].sort().map(displayPath).join(', ')}\n`);
    err(keptText(written));
    if (options.updateBaseline && report.interrupted) err('the baseline was not rewritten: this run did not finish\n');
    else if (options.updateBaseline) {
      const next = baselineFrom(report, baseline);
      await writeBaseline(baselinePath, next);
      if (!options.quiet) for (const line of describeUpdate(displayPath(baselinePath), next.update, [])) err(`${line}\n`);
    }
    return runExitCode({ unwritten: written.failed.length, exitCode: report.summary!.exitCode });
  } catch (e) {
    return cannotTest(e);
  } finally {
    har?.abandon();
    interrupt.release();
  }
}
