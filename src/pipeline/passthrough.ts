import { join } from 'node:path';
import { Boundary } from '../boundary/boundary.js';
import { oneLine } from '../text.js';
import { secretsOf, type ResolvedOptions } from '../config/options.js';
import { CannotTestError } from '../errors.js';
import { passthroughProbes, runPassthrough } from '../passthrough/run.js';
import { gate } from '../report/gate.js';
import { HAR_FILE, HarWriter, recordCalls } from '../report/har.js';
import { ownVocabulary } from '../report/vocabulary.js';
import { checkOutputs, writeReports } from '../report/write.js';
import { runExitCode } from '../results/exit.js';
import { VERSION } from '../version.js';
import { baselineOf, rewriteBaseline, type AuditResult, type AuditSinks } from './audit.js';

/** The baseline file a passthrough run rewrites when the options name none. */
export const PASSTHROUGH_BASELINE = 'chatprobe.passthrough.baseline.json';

export interface PassthroughTarget {
  /** Where chatprobe upstream listens, as chatprobe reaches it (its records are read there). */
  upstream: string;
  /** Case ids to run (default: all). */
  cases?: string[] | undefined;
}

/**
 * A passthrough run, whole, as an audit runs (pipeline/audit.ts): each case sent through the gateway to
 * chatprobe upstream (passthrough/run.ts), the exchanges recorded, the cells gated against the baseline
 * (default chatprobe.passthrough.baseline.json) and the reports written through the output boundary.
 */
export async function passthrough(options: ResolvedOptions, target: PassthroughTarget, sinks: Pick<AuditSinks, 'recording'> = {}, how: { signal?: AbortSignal; boundary?: Boundary } = {}): Promise<AuditResult> {
  if (options.models.length === 0) throw new CannotTestError('passthrough needs --models: the model name(s) the gateway routes to chatprobe upstream');
  if (!/^https?:\/\/[^/]+/.test(target.upstream)) throw new CannotTestError(`invalid --upstream "${oneLine(target.upstream)}": give the address chatprobe upstream printed, e.g. http://127.0.0.1:8788`);
  const boundary = how.boundary ?? Boundary.of(secretsOf(options), { vocabulary: ownVocabulary() });
  // A baseline gates a gateway's deploys as it gates an audit: fail only on what got worse.
  const baselinePath = options.baseline ?? PASSTHROUGH_BASELINE;
  await checkOutputs({ out: options.out, ...(options.updateBaseline ? { baseline: baselinePath } : {}) });
  const baseline = baselineOf(options, passthroughProbes());
  let har: HarWriter | undefined = new HarWriter(join(options.out, HAR_FILE), VERSION);
  sinks.recording?.(har);
  try {
    const { report: raw, trace } = await runPassthrough(
      {
        baseUrl: options.baseUrl,
        apiKey: options.apiKey,
        apiKeyEnv: options.apiKeyEnv,
        headers: options.headers,
        upstream: target.upstream,
        models: options.models,
        ...(target.cases ? { cases: target.cases } : {}),
        timeoutMs: options.timeoutMs,
        concurrency: options.concurrency,
        rpm: options.rpm,
      },
      { onCall: recordCalls(har, boundary) },
      how.signal,
    );
    const report = gate(boundary.report(raw), baseline, options.baseline || options.updateBaseline ? { path: baselinePath, updated: options.updateBaseline } : undefined);
    // exchanges.har put in place with the reports, in one step (as an audit's).
    const recorded = har;
    const written = await writeReports(report, trace, options.out, boundary, recorded.finish(), () => recorded.commit());
    har = undefined;
    written.written = [...written.written, join(options.out, HAR_FILE)].sort();
    return { report, written, exitCode: runExitCode({ unwritten: written.failed.length, exitCode: report.summary!.exitCode }), ...(await rewriteBaseline(report, options, baselinePath, baseline)) };
  } finally {
    har?.abandon();
  }
}
