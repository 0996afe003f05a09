import { renderJson } from '../report/writers/json.js';
import { resolveOptions, secretsOf } from '../config/options.js';
import { passthrough } from '../pipeline/passthrough.js';
import { describeUpdate } from '../report/baseline.js';
import type { HarWriter } from '../report/har.js';
import { painter, renderConsole } from '../report/writers/console.js';
import { ownVocabulary } from '../report/vocabulary.js';
import { cannotTest, displayPath, err, guardSecrets, harSaved, interruptible, keptText, out, terminalColumns } from './output.js';

export interface PassthroughArgs {
  upstream: string;
  cases: string[] | undefined;
}

/**
 * chatprobe passthrough: each case sent through the gateway to chatprobe upstream, what arrived compared
 * with what was sent (and the upstream's scripted answers with what came back); reports as an audit writes
 * (pipeline/passthrough.ts).
 */
export async function passthroughCommand(flags: Record<string, unknown>, args: PassthroughArgs, env: NodeJS.ProcessEnv): Promise<number> {
  let har: HarWriter | undefined;
  // A stop signal (Ctrl-C, SIGTERM, SIGHUP): the cases not yet sent are reported as not run, and the partial report is written.
  const interrupt = interruptible(err, () => harSaved(har));
  try {
    const options = resolveOptions(flags, env);
    const boundary = guardSecrets(secretsOf(options), ownVocabulary());
    if (!options.quiet && options.models.length > 0) err(`passthrough: ${options.models.length} model(s) through ${options.baseUrl} to chatprobe upstream at ${args.upstream}\n`);
    const result = await passthrough(options, args, { recording: (h) => (har = h) }, { signal: interrupt.signal, boundary });
    har = undefined;
    const { report, written } = result;
    for (const f of written.failed) err(`error: could not write ${f.file}: ${f.error}\n`);
    if (options.json) out(renderJson(report));
    else if (!options.quiet) out(renderConsole(report, painter(Boolean(process.stdout.isTTY), env), terminalColumns()));
    if (!options.quiet) err(`reports: ${written.written.map(displayPath).join(', ')}\n`);
    err(keptText(written));
    const b = result.baseline;
    if (b && 'notRewritten' in b) err(`the baseline was not rewritten: ${b.notRewritten}\n`);
    else if (b && !options.quiet) for (const line of describeUpdate(displayPath(b.path), b.update, [])) err(`${line}\n`);
    return result.exitCode;
  } catch (e) {
    return cannotTest(e);
  } finally {
    interrupt.release();
  }
}
