import { existsSync, rmSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Boundary } from '../boundary/boundary.js';
import { secretsOf, type ResolvedOptions } from '../config/options.js';
import type { ProbeDefinition } from '../engine/probe.js';
import { planAudit, runAudit, type AuditHooks, type AuditOptions, type AuditRun, type PlanSummary } from '../engine/run.js';
import type { PlannedModel } from '../engine/plan.js';
import { RECORD_FILE } from '../record/format.js';
import { RunRecord } from '../record/recorder.js';
import { baselineFrom, DEFAULT_BASELINE, loadBaseline, writeBaseline, type Baseline, type BaselineUpdate } from '../report/baseline.js';
import { gate, gateResult } from '../report/gate.js';
import { HAR_FILE, HarWriter, recordCalls } from '../report/har.js';
import { ownVocabulary } from '../report/vocabulary.js';
import { checkOutputs, writeReports, type WriteOutcome } from '../report/write.js';
import { renderGithubSummary } from '../report/writers/github.js';
import type { ProbeResult, Report } from '../results/model.js';
import { VERSION } from '../version.js';
import { runExitCode } from '../results/exit.js';
import { stoppedEarly } from '../results/head.js';
import type { CapWarning } from '../engine/budget.js';
import { PROBES } from '../../suites/index.js';

/**
 * After a stop (Ctrl-C, SIGTERM), the time left to write the partial report: a signal must end the run
 * within seconds whatever its size (a supervisor's SIGKILL follows), so past this only report.json is
 * written (report/write.ts: ALWAYS_WRITTEN), and the files left out are named.
 */
export const INTERRUPTED_WRITE_MS = 3000;

/** Where the progress of a run goes as it happens; every field optional (a library caller may want none). */
export interface AuditSinks {
  /** Once GET /models has answered: the models the run will call (or not) and the probes it runs. */
  plan?(models: readonly PlannedModel[], probes: readonly ProbeDefinition[]): void;
  /**
   * Each cell as it completes, through the output boundary and gated against the baseline, as the report
   * will have it; a model that is not probed comes as one result (probe `EVERY_PROBE`).
   */
  result?(cell: ProbeResult, progress: { done: number; total: number; inFlight: number; queued: number }): void;
  /** The run's exchanges file, once it is open: where its calls are if the process quits before the reports. */
  recording?(har: HarWriter): void;
  /** Something the run could not do and went on without (a step summary it could not append to). */
  warn?(text: string): void;
  /** A spending cap at 80% of its limit, once a cap (engine/budget.ts); its model, if any, through the output boundary. */
  nearCap?(warning: CapWarning): void;
}

/**
 * Where a run's observations come from when it is not the endpoint: a recorded run, judged again
 * (`chatprobe judge`, record/replay.ts). Its run is not recorded again.
 */
export interface RunSource {
  run(options: AuditOptions, probes: readonly ProbeDefinition[], hooks: AuditHooks, signal: AbortSignal | undefined): Promise<AuditRun>;
}

export interface AuditWith {
  /** The probes to run (default: chatprobe's own, `PROBES`); a caller's own `defineProbe`s among them. */
  probes?: readonly ProbeDefinition[];
  /** Aborted, the run stops sending, and writes the partial report (within INTERRUPTED_WRITE_MS). */
  signal?: AbortSignal;
  /** Observations from a recorded run instead of the endpoint. */
  source?: RunSource;
  /** The output boundary (secrets, sizes) every output passes; by default one for the options' secrets. */
  boundary?: Boundary;
  /** A GitHub step summary file the matrix and failing cells are appended to. */
  githubSummary?: string;
}

export interface AuditResult {
  /** The report as written: through the output boundary, gated against the baseline, with its summary. */
  report: Report;
  /** The files written, those that could not be, and those left out for lack of time. */
  written: WriteOutcome;
  /** With `updateBaseline`: the file rewritten and what changed, or why it was not (the run did not finish). */
  baseline?: { path: string; update: BaselineUpdate; previous: Baseline | undefined } | { path: string; notRewritten: string };
  /** Set when the run was cut short: probing stopped this long before --max-duration ended, to write the reports. */
  reserveMs?: number;
  /** The exit code the run earned (report.summary.exitCode), or 2 when a report file could not be written (results/exit.ts). */
  exitCode: number;
}

/** The models a baseline has cells for: a name among them that GET /models no longer lists is a missing model. */
const expectedModels = (b: Baseline | undefined): ReadonlySet<string> | undefined => (b ? new Set(Object.keys(b.cells)) : undefined);

/** The baseline a run gates against: none, the file given, or (rewriting one not there yet) none. */
export function baselineOf(options: Pick<ResolvedOptions, 'baseline' | 'updateBaseline'>, probes: Parameters<typeof loadBaseline>[1]): Baseline | undefined {
  return options.baseline && (!options.updateBaseline || existsSync(options.baseline)) ? loadBaseline(options.baseline, probes) : undefined;
}

/** --dry-run: the plan and its cost; nothing is sent but GET /models and the balance routes' GETs. */
export async function plan(options: ResolvedOptions, probes: readonly ProbeDefinition[] = PROBES): Promise<PlanSummary> {
  // A name the baseline expects is a model gone missing, not a typo: the plan must know them.
  return planAudit({ ...options, expectedModels: expectedModels(baselineOf(options, probes)) }, probes);
}

/**
 * An audit, whole: observe the endpoint (or a recorded run), record every input of the judgements as it
 * goes (record.jsonl.gz, exchanges.har), judge, then gate against the baseline and render the reports
 * into `options.out` through the output boundary. Progress goes to `sinks`; the CLI's commands are
 * callers of this, as a program using chatprobe is.
 *
 * Throws CannotTestError before anything is spent when the endpoint cannot be audited (no model list, an
 * unwritable folder, a baseline that cannot be read); otherwise resolves with the report as written.
 */
export async function audit(options: ResolvedOptions, sinks: AuditSinks = {}, how: AuditWith = {}): Promise<AuditResult> {
  const probes = how.probes ?? PROBES;
  const boundary = how.boundary ?? Boundary.of(secretsOf(options), { vocabulary: ownVocabulary() });
  const { signal, source } = how;
  let stoppedAt: number | undefined;
  signal?.addEventListener('abort', () => (stoppedAt = performance.now()), { once: true });
  let har: HarWriter | undefined;
  let record: RunRecord | undefined;
  try {
    // A baseline that cannot be read, or a path that cannot be written, fails before a request is paid for.
    // With updateBaseline the file may not exist yet; otherwise a missing baseline is an error.
    const baselinePath = options.baseline ?? DEFAULT_BASELINE;
    await checkOutputs({ out: options.out, ...(options.updateBaseline ? { baseline: baselinePath } : {}), ...(how.githubSummary ? { summary: how.githubSummary } : {}) });
    const baseline = baselineOf(options, probes);
    // Record: every call as it completes into exchanges.har, every input of the judgements into record.jsonl.gz.
    har = new HarWriter(join(options.out, HAR_FILE), VERSION);
    sinks.recording?.(har);
    const auditOptions: AuditOptions = { ...options, expectedModels: expectedModels(baseline) };
    record = source ? undefined : new RunRecord(join(options.out, RECORD_FILE), boundary, auditOptions, secretsOf(options));
    const keeping = record;
    const hooks: AuditHooks = {
      onPlan: (models, planned) => {
        // Every output names each model by its unique id (Boundary.nameModels), exchanges.har as it is written too.
        boundary.nameModels(models.map((m) => m.id));
        sinks.plan?.(models, planned);
      },
      onCall: recordCalls(har, boundary),
      ...(sinks.nearCap ? { onNearCap: (w) => sinks.nearCap!(w.model === undefined ? w : { ...w, model: boundary.redact(w.model) }) } : {}),
      ...(sinks.result ? { onResult: (r, done, total, inFlight, queued) => sinks.result!(gateResult(boundary.result(r), baseline), { done, total, inFlight, queued }) } : {}),
    };
    // Observe.
    let run: AuditRun | undefined = source ? await source.run(auditOptions, probes, hooks, signal) : await runAudit(auditOptions, probes, hooks, signal, { recorder: keeping });
    record?.finish(run.report);
    // Judge: past this line only the report that crossed the output boundary is used; the raw one is let go.
    const report = gate(boundary.report(run.report), baseline, options.baseline || options.updateBaseline ? { path: baselinePath, updated: options.updateBaseline } : undefined);
    const { trace, endBy, reserveMs } = run;
    run = undefined;
    // Render: exchanges.har is complete before report.html, which shows its exchanges, is written, and put
    // in place with the reports in one step, the record beside them.
    // A judgement of a record is not bound by the recorded run's --max-duration: its clock is not this one.
    const writeBy = Math.min((!source && endBy) || Infinity, stoppedAt === undefined ? Infinity : stoppedAt + INTERRUPTED_WRITE_MS);
    const recorded = har;
    const written = await writeReports(
      report,
      trace,
      options.out,
      boundary,
      recorded.finish(),
      () => {
        recorded.commit();
        // A judgement of a record writes none: the folder must not keep another run's record beside its reports.
        if (keeping) keeping.commit();
        else rmSync(join(options.out, RECORD_FILE), { force: true });
      },
      Number.isFinite(writeBy) ? writeBy : undefined,
    );
    har = undefined;
    record = undefined;
    written.written = [...written.written, join(options.out, HAR_FILE), ...(keeping ? [join(options.out, RECORD_FILE)] : [])].sort();
    if (how.githubSummary) {
      try {
        await appendFile(how.githubSummary, boundary.redact(renderGithubSummary(report)));
      } catch (e) {
        sinks.warn?.(`could not append to the GitHub step summary: ${(e as Error).message}`);
      }
    }
    return { report, written, exitCode: runExitCode({ unwritten: written.failed.length, exitCode: report.summary!.exitCode }), ...(reserveMs ? { reserveMs } : {}), ...(await rewriteBaseline(report, options, baselinePath, baseline)) };
  } finally {
    // A run that never finished leaves no half-written file.
    har?.abandon();
    record?.abandon();
  }
}

/**
 * With updateBaseline, the baseline a finished run leaves (report/baseline.ts: the cells it observed
 * stored, every other kept); a run that did not finish leaves the file as it was, and says so.
 */
export async function rewriteBaseline(report: Report, options: { updateBaseline: boolean }, path: string, previous: Baseline | undefined): Promise<Pick<AuditResult, 'baseline'>> {
  if (!options.updateBaseline) return {};
  if (stoppedEarly(report)) return { baseline: { path, notRewritten: 'this run did not finish' } };
  const next = baselineFrom(report, previous);
  await writeBaseline(path, next);
  return { baseline: { path, update: next.update, previous } };
}
