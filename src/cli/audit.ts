import { jsonPieces } from '../report/writers/json.js';
import { randomBytes } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import { loadConfig } from '../config/file.js';
import { resolveOptions, secretsOf, type ResolvedOptions } from '../config/options.js';
import { planAudit, runAudit, type AuditHooks, type AuditOptions, type AuditRun } from '../engine/run.js';
import type { ProbeDefinition } from '../engine/probe.js';
import { RECORD_FILE } from '../record/format.js';
import { RunRecord } from '../record/recorder.js';
import { baselineFrom, DEFAULT_BASELINE, describeUpdate, loadBaseline, writeBaseline, type Baseline } from '../report/baseline.js';
import { CAUSES } from '../results/causes.js';
import { gate, gateResult } from '../report/gate.js';
import { extentText } from '../report/style.js';
import { existsSync, rmSync } from 'node:fs';
import type { Report } from '../results/model.js';
import { githubAnnotations, renderGithubSummary } from '../report/writers/github.js';
import type { Boundary } from '../boundary/boundary.js';
import { oneLine } from '../boundary/text.js';
import { matchAny } from '../glob.js';
import { checkOutputs, writeReports } from '../report/write.js';
import { HAR_FILE, HarWriter, recordCalls } from '../report/har.js';
import { VERSION } from '../version.js';
import { join } from 'node:path';
import { painter, progressLine, renderConsole, RowProgress } from '../report/writers/console.js';
import { ENDPOINT } from '../results/model.js';
import { EVERY_PROBE } from '../results/view.js';
import { PROBES } from '../../suites/index.js';
import { EXIT, runExitCode } from './exit.js';
import { CannotTestError } from '../errors.js';
import { ownVocabulary } from '../report/vocabulary.js';
import { cannotTest, command, displayPath, err, FINISHING, guardSecrets, harSaved, interruptible, keptText, out, progress, terminalColumns } from './output.js';
import { renderPlan } from './plan.js';

/** GitHub Actions: the matrix and failing cells in the step summary, and ::error annotations. */
async function reportToGithub(report: Report, boundary: Boundary, env: NodeJS.ProcessEnv, json: boolean): Promise<void> {
  const file = env.GITHUB_STEP_SUMMARY;
  if (file) {
    try {
      await appendFile(file, boundary.redact(renderGithubSummary(report)));
    } catch (e) {
      err(`warning: could not append to GITHUB_STEP_SUMMARY: ${(e as Error).message}\n`);
    }
  }
  // Annotations go to stdout, where the runner reads workflow commands, unless stdout carries the JSON.
  for (const line of githubAnnotations(report)) command(line, json ? 'err' : 'out');
}

/**
 * After Ctrl-C or SIGTERM, the time left to write the partial report: a signal must end the run within
 * seconds whatever its size (a supervisor's SIGKILL follows), so past this only report.json is written
 * (report/write.ts: ALWAYS_WRITTEN), and the files left out are named.
 */
const INTERRUPTED_WRITE_MS = 3000;

/** Beyond this many models, a run is worth a warning before it starts spending. */
const LARGE_RUN_MODELS = 500;



/** The models a baseline has cells for. */
const expectedModels = (b: Baseline | undefined): ReadonlySet<string> | undefined => (b ? new Set(Object.keys(b.cells)) : undefined);

/** The options that audit part of what a full run would: a rewritten baseline keeps the rest, and says why. */
function narrowing(options: ResolvedOptions): string[] {
  const by: string[] = [];
  if (options.shard) by.push(`--shard ${options.shard.index}/${options.shard.count}`);
  if (options.models.length > 0) by.push(`--models ${options.models.map(oneLine).join(' ')}`);
  if (options.probes.length > 0) by.push(`--probes ${options.probes.join(' ')}`);
  return by;
}

/**
 * Where a run's observations come from when it is not the endpoint: a recorded run, judged again
 * (`chatprobe judge`, record/replay.ts). Its run is not recorded again.
 */
export interface RunSource {
  run(options: AuditOptions, probes: readonly ProbeDefinition[], hooks: AuditHooks, signal: AbortSignal): Promise<AuditRun>;
  /** What the progress line says the run does ("judging … from the record of"). */
  doing: string;
}

/**
 * Runs an audit with resolved options: progress on stderr, matrix (or JSON) on stdout, reports on disk,
 * and the run's record (record.jsonl.gz) beside them; or, with `source`, the same from a recorded run.
 */
export async function auditWith(options: ResolvedOptions, env: NodeJS.ProcessEnv, source?: RunSource): Promise<number> {
  const boundary = guardSecrets(secretsOf(options), ownVocabulary());
  const say = (text: string) => {
    if (!options.quiet) err(text);
  };
  const tty = Boolean(process.stderr.isTTY);
  if (!options.apiKey && !source) say(`note: $${options.apiKeyEnv} is ${env[options.apiKeyEnv] === undefined ? 'not set' : 'empty'}: requests carry no Authorization header\n`);
  // Before the signal handlers: a dry run writes nothing, so a signal may stop it as it stops any program.
  if (options.dryRun) {
    try {
      // A name the baseline expects is a model gone missing, not a typo: the plan must know them.
      const expected = options.baseline && existsSync(options.baseline) ? loadBaseline(options.baseline, PROBES) : undefined;
      const plan = await planAudit({ ...options, expectedModels: expectedModels(expected) }, PROBES);
      out(options.json ? `${JSON.stringify(boundary.clean(plan), null, 2)}\n` : renderPlan(plan));
      return EXIT.ok;
    } catch (e) {
      return cannotTest(e);
    }
  }
  let har: HarWriter | undefined;
  let record: RunRecord | undefined;
  // Until the plan is made there is no partial report to finish: the first signal says what it does then.
  let begun = false;
  const interrupt = interruptible(say, () => harSaved(har), () => (begun ? FINISHING : 'interrupted while discovering the models: stopping (nothing audited yet, so no report will be written)'));
  try {
    // A baseline that cannot be read, or a path that cannot be written, fails before a request is paid for.
    // With --update-baseline the file may not exist yet; otherwise a missing baseline is an error (exit 2).
    const baselinePath = options.baseline ?? DEFAULT_BASELINE;
    await checkOutputs({
      out: options.out,
      ...(options.updateBaseline ? { baseline: baselinePath } : {}),
      ...(env.GITHUB_ACTIONS === 'true' && env.GITHUB_STEP_SUMMARY ? { summary: env.GITHUB_STEP_SUMMARY } : {}),
    });
    const baseline = options.baseline && (!options.updateBaseline || existsSync(options.baseline)) ? loadBaseline(options.baseline, PROBES) : undefined;
    // Every call as it completes, through the output boundary, into exchanges.har (report/har.ts).
    har = new HarWriter(join(options.out, HAR_FILE), VERSION);
    const recorder = har;
    const auditOptions: AuditOptions = { ...options, expectedModels: expectedModels(baseline) };
    // Every input of the judgements, through the output boundary, into record.jsonl.gz (record/recorder.ts).
    const keeping = source ? undefined : new RunRecord(join(options.out, RECORD_FILE), boundary, auditOptions, secretsOf(options));
    record = keeping;
    const runWith = source ? source.run : (o: AuditOptions, p: readonly ProbeDefinition[], h: AuditHooks, s: AbortSignal) => runAudit(o, p, h, s, { recorder: keeping });
    let rows: RowProgress | undefined;
    const started = performance.now();
    let run: AuditRun | undefined = await runWith(
      auditOptions,
      PROBES,
      {
        onPlan: (models, probes) => {
          begun = true;
          const perModel = probes.filter((p) => p.scope !== 'target').length;
          // Every output names each model by its unique id (Boundary.nameModels), exchanges.har as it is written too.
          boundary.nameModels(models.map((m) => m.id));
          rows = new RowProgress((model) => (model === ENDPOINT ? probes.length - perModel : perModel));
          const called = models.filter((m) => m.call).length;
          const unlisted = models.filter((m) => !m.listed).map((m) => m.id);
          say(`${source?.doing ?? 'auditing'} ${extentText(called, probes)} at ${options.baseUrl}\n`);
          if (called > LARGE_RUN_MODELS) {
            say(`warning: ${called} models is a large run: narrow it with --models, split it with --shard i/n, or bound it with --max-duration\n`);
          }
          if (unlisted.length > 0) {
            say(`not listed by GET /models: ${unlisted.map(oneLine).join(', ')}${options.allowUnlisted ? ' (called anyway: --allow-unlisted)' : ' (reported as not tested, not called)'}\n`);
            for (const m of models.filter((x) => x.closest && x.closest.length > 0)) say(`  closest listed to ${oneLine(m.id)}: ${m.closest!.map(oneLine).join(', ')}\n`);
          }
          // A shard the plan left no model: nothing to audit here, but merge needs its report to see the run whole.
          if (options.shard && models.length === 0) {
            say(`shard ${options.shard.index}/${options.shard.count} has no model of its own (the plan has fewer models than shards): its report is written for merge\n`);
          }
        },
        onCall: recordCalls(recorder, boundary),
        onResult: (r, done, total, inFlight, queued) => {
          if (options.quiet) return;
          // Rows the run did not reach before Ctrl-C or --max-duration are counted in the closing line, not
          // a progress line each: a run stopped early among 100,000 models wrote 100,000 lines here.
          if (r.probe === EVERY_PROBE && r.cause !== undefined && CAUSES[r.cause].notRun) return;
          const cell = gateResult(boundary.result(r), baseline);
          if (tty) {
            const line = progressLine(cell, done, total, { elapsedMs: performance.now() - started, inFlight, queued });
            progress([...line].slice(0, (process.stderr.columns || 100) - 1).join(''));
          } else {
            // Piped: one line per model as its row completes, not one per cell.
            const line = rows?.add(cell, done, total);
            if (line) err(`${line}\n`);
          }
        },
      },
      interrupt.signal,
    );
    if (tty && !options.quiet) progress('');
    record?.finish(run.report);
    // Past this line only the report that crossed the output boundary is used; the raw one is let go.
    const report = gate(boundary.report(run.report), baseline, options.baseline || options.updateBaseline ? { path: baselinePath, updated: options.updateBaseline } : undefined);
    const trace = run.trace;
    const { endBy, reserveMs } = run;
    run = undefined;
    // exchanges.har is complete before report.html, which shows its exchanges, is written, and put in place
    // with the reports, in one step.
    const recorded = har;
    const signalled = interrupt.at();
    const writeBy = Math.min(endBy ?? Infinity, signalled === undefined ? Infinity : signalled + INTERRUPTED_WRITE_MS);
    const kept = record;
    const written = await writeReports(report, trace, options.out, boundary, recorded.finish(), () => {
      recorded.commit();
      // A judgement of a record writes none: the folder must not keep another run's record beside its reports.
      if (kept) kept.commit();
      else rmSync(join(options.out, RECORD_FILE), { force: true });
    }, Number.isFinite(writeBy) ? writeBy : undefined);
    har = undefined;
    record = undefined;
    written.written = [...written.written, join(options.out, HAR_FILE), ...(kept ? [join(options.out, RECORD_FILE)] : [])].sort();
    if (options.json) for (const piece of jsonPieces(report)) out(piece);
    else if (!options.quiet) out(renderConsole(report, painter(Boolean(process.stdout.isTTY), env), terminalColumns()));
    for (const f of written.failed) err(`error: could not write ${f.file}: ${f.error}\n`);
    if (written.skipped.length > 0) {
      const why = signalled !== undefined ? `the run was interrupted, and they could not be written within ${INTERRUPTED_WRITE_MS / 1000} s of it` : '--max-duration ran out while writing the reports';
      err(`not written: ${written.skipped.join(', ')} (${why}); report.json has every cell\n`);
    }
    say(`reports: ${written.written.map(displayPath).join(', ')}\n`);
    err(keptText(written));
    // Probes that read the balance (billing) named in --probes and left out of the run: said here too, not only in the reports.
    const billing = report.billing;
    if (billing && 'off' in billing && options.probes.length > 0 && PROBES.some((p) => p.meter && matchAny(p.id, options.probes))) {
      say(`note: the billing probes were left out: ${oneLine(billing.off)}\n`);
    }
    if (env.GITHUB_ACTIONS === 'true') await reportToGithub(report, boundary, env, options.json);
    if (report.maxDurationReached) {
      // The summary's unit: a cell once, a model not reached once (as report.json, the console and the step
      // summary count it); the cells those models stand for are said beside it.
      const perRow = report.probes.filter((p) => p.scope !== 'target').length;
      const cells = report.results.filter((r) => r.cause === 'deadline').length;
      const rows = report.models.filter((m) => m.notRun?.cause === 'deadline').length;
      err(
        `stopped at --max-duration (${options.maxDurationMs! / 1000} s): ${report.summary!.notRun} not run (${cells} cell(s), and ${rows} model(s) not reached, each counted once for its ${perRow} cells), ` +
          `reported with cause "deadline" and counted among the ${report.summary!.outcomes.failed} failed` +
          `${reserveMs ? ` (probing stopped ${(reserveMs / 1000).toFixed(1)} s before the end, the time kept to write the reports)` : ''}\n`,
      );
    }
    if (options.updateBaseline && (report.interrupted || report.maxDurationReached)) {
      err('the baseline was not rewritten: this run did not finish\n');
    } else if (options.updateBaseline) {
      const path = baselinePath;
      const next = baselineFrom(report, baseline);
      await writeBaseline(path, next);
      for (const m of report.models.filter((x) => x.notRun?.comparison === 'missing')) {
        say(`${oneLine(m.id)} is no longer listed: its baseline cells are kept (remove them from ${displayPath(path)} to accept that it is gone)\n`);
      }
      const { kept, none, rows } = next.update.heldBack;
      if (kept + none > 0) {
        say(`${kept + none} error cell(s) not stored as expected: ${kept} keep their previous expectation, ${none} have none (an error is never the norm)\n`);
      }
      if (rows.kept.length > 0) say(`not probed, so not stored: ${rows.kept.map(oneLine).join(', ')} (every cell keeps its previous expectation)\n`);
      if (rows.none.length > 0) say(`not probed, so not stored: ${rows.none.map(oneLine).join(', ')} (no expectation yet: run --update-baseline again once it answers)\n`);
      for (const line of describeUpdate(displayPath(path), next.update, narrowing(options))) say(`${line}\n`);
    }
    return runExitCode({ unwritten: written.failed.length, exitCode: report.summary!.exitCode });
  } catch (e) {
    // Ctrl-C before the model list came: GET /models was cut short by us, not failed by the server.
    if (interrupt.signal.aborted && e instanceof CannotTestError) {
      err('chatprobe: interrupted before the audit began: nothing was audited, no report written\n');
      return EXIT.interrupted;
    }
    return cannotTest(e);
  } finally {
    // A run that never started leaves no half-written file.
    har?.abandon();
    record?.abandon();
    interrupt.release();
  }
}

export async function auditCommand(flags: Record<string, unknown>, env: NodeJS.ProcessEnv, configPath?: string): Promise<number> {
  let options: ResolvedOptions;
  try {
    options = resolveOptions(flags, env, loadConfig(configPath).config);
  } catch (e) {
    return cannotTest(e);
  }
  return auditWith(options, env);
}

/** Starts the reference server on a free loopback port, audits it with a throw-away key, stops it. */
export async function demoCommand(profileName: string, flags: Record<string, unknown>, env: NodeJS.ProcessEnv): Promise<number> {
  const key = `sk-demo-${randomBytes(16).toString('hex')}`;
  // The reference server and its profiles are loaded for the demo only, not for every audit.
  const { loadProfile } = await import('../reference/profiles.js');
  const { startReferenceServer } = await import('../reference/server.js');
  const profile = loadProfile(profileName);
  const server = await startReferenceServer({ profile, apiKey: key });
  try {
    // The demo key only, under the usual name: the user's own $OPENAI_API_KEY is neither read (a flaw in it
    // is no reason to stop a demo) nor sent.
    let options: ResolvedOptions;
    try {
      options = resolveOptions({ ...flags, baseUrl: server.url, apiKeyEnv: 'OPENAI_API_KEY' }, { OPENAI_API_KEY: key });
    } catch (e) {
      return cannotTest(e);
    }
    return await auditWith(options, env);
  } finally {
    await server.close();
  }
}
