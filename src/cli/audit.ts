import { randomBytes } from 'node:crypto';
import { resolveOptions, secretsOf, type ResolvedOptions } from '../config/options.js';
import { audit, INTERRUPTED_WRITE_MS, plan, type AuditResult, type AuditSinks, type AuditWith } from '../pipeline/audit.js';
import { describeUpdate } from '../report/baseline.js';
import { CAUSES } from '../results/causes.js';
import { extentText } from '../report/style.js';
import { ENDPOINT, type Report } from '../results/model.js';
import { githubAnnotations } from '../report/writers/github.js';
import { jsonPieces } from '../report/writers/json.js';
import type { HarWriter } from '../report/har.js';
import { oneLine } from '../text.js';
import { matchAny } from '../glob.js';
import { painter, progressLine, renderConsole, RowProgress } from '../report/writers/console.js';
import { EVERY_PROBE } from '../results/view.js';
import { EXIT } from '../results/exit.js';
import { CannotTestError } from '../errors.js';
import { ownVocabulary } from '../report/vocabulary.js';
import { cannotTest, command, displayPath, err, FINISHING, guardSecrets, harSaved, interruptible, keptText, out, progress, terminalColumns } from './output.js';
import { renderPlan } from './plan.js';
import type { ProbeDefinition } from '../engine/probe.js';
import { withProbeFiles } from '../pipeline/user-probes.js';
import { WARN_SHARE, type CapWarning } from '../engine/budget.js';
import { capText, countsRequests } from '../results/budget.js';
import { capsReachedText } from '../report/summary.js';

/** Beyond this many models, a run is worth a warning before it starts spending. */
const LARGE_RUN_MODELS = 500;

/** The options that audit part of what a full run would: a rewritten baseline keeps the rest, and says why. */
function narrowing(options: ResolvedOptions): string[] {
  const by: string[] = [];
  if (options.shard) by.push(`--shard ${options.shard.index}/${options.shard.count}`);
  if (options.models.length > 0) by.push(`--models ${options.models.map(oneLine).join(' ')}`);
  if (options.probes.length > 0) by.push(`--probes ${options.probes.join(' ')}`);
  // The default tier is what a run without --tier audits; the quick one is part of it.
  if (options.tier === 'quick') by.push('--tier quick');
  return by;
}

/**
 * What runs in place of a plain audit (`chatprobe judge`: a record judged again, pipeline/judge.ts), and
 * what the progress line says it does.
 */
export interface OtherRun {
  doing: string;
  start(sinks: AuditSinks, how: AuditWith): Promise<AuditResult>;
}

/**
 * Runs an audit (pipeline/audit.ts) with resolved options, as a command line shows it: progress on
 * stderr, the matrix (or JSON) on stdout, what was written, GitHub annotations in a workflow; or, with
 * `source`, the same from a recorded run.
 */
/** The models a stop left unreached, beside the cells it left: said only where there are some. */
const notReachedText = (models: number, perRow: number): string => (models > 0 ? `, and ${models} model(s) not reached, each counted once for its ${perRow} cells` : '');

export async function auditWith(options: ResolvedOptions, env: NodeJS.ProcessEnv, source?: OtherRun): Promise<number> {
  const boundary = guardSecrets(secretsOf(options), ownVocabulary());
  const say = (text: string) => {
    if (!options.quiet) err(text);
  };
  const tty = Boolean(process.stderr.isTTY);
  // The user's probe files, loaded before anything is sent: a probe that cannot run stops the run here.
  let probes: readonly ProbeDefinition[];
  try {
    probes = await withProbeFiles(options.probeFiles);
  } catch (e) {
    return cannotTest(e);
  }
  if (!options.apiKey && !source) say(`note: $${options.apiKeyEnv} is ${env[options.apiKeyEnv] === undefined ? 'not set' : 'empty'}: requests carry no Authorization header\n`);
  // Before the signal handlers: a dry run writes nothing, so a signal may stop it as it stops any program.
  if (options.dryRun) {
    try {
      const summary = await plan(options, probes);
      out(options.json ? `${JSON.stringify(boundary.clean(summary), null, 2)}\n` : renderPlan(summary));
      return EXIT.ok;
    } catch (e) {
      return cannotTest(e);
    }
  }
  let har: HarWriter | undefined;
  // Until the plan is made there is no partial report to finish: the first signal says what it does then.
  let begun = false;
  const interrupt = interruptible(say, () => harSaved(har), () => (begun ? FINISHING : 'interrupted while discovering the models: stopping (nothing audited yet, so no report will be written)'));
  let rows: RowProgress | undefined;
  const started = performance.now();
  const sinks: AuditSinks = {
    recording: (h) => (har = h),
    warn: (text) => err(`warning: ${text}\n`),
    nearCap: (w) => say(`warning: ${nearCapText(w)}\n`),
    plan: (models, probes) => {
      begun = true;
      const perModel = probes.filter((p) => p.scope !== 'target').length;
      rows = new RowProgress((model) => (model === ENDPOINT ? probes.length - perModel : perModel));
      const called = models.filter((m) => m.call).length;
      const unlisted = models.filter((m) => !m.listed).map((m) => m.id);
      say(`${source?.doing ?? 'auditing'} ${extentText(called, probes)} at ${options.baseUrl}\n`);
      if (called > LARGE_RUN_MODELS) {
        say(`warning: ${called} models is a large run: narrow it with --models, split it with --shard i/n, or bound it with --max-duration or --max-requests\n`);
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
    result: (cell, { done, total, inFlight, queued }) => {
      if (options.quiet) return;
      // Rows the run did not reach before Ctrl-C or --max-duration are counted in the closing line, not
      // a progress line each: a run stopped early among 100,000 models wrote 100,000 lines here.
      if (cell.probe === EVERY_PROBE && cell.cause !== undefined && CAUSES[cell.cause].notRun) return;
      if (tty) {
        const line = progressLine(cell, done, total, { elapsedMs: performance.now() - started, inFlight, queued });
        progress([...line].slice(0, (process.stderr.columns || 100) - 1).join(''));
      } else {
        // Piped: one line per model as its row completes, not one per cell.
        const line = rows?.add(cell, done, total);
        if (line) err(`${line}\n`);
      }
    },
  };
  try {
    const github = env.GITHUB_ACTIONS === 'true' && env.GITHUB_STEP_SUMMARY ? env.GITHUB_STEP_SUMMARY : undefined;
    const how: AuditWith = { probes, signal: interrupt.signal, boundary, ...(github ? { githubSummary: github } : {}) };
    const result = source ? await source.start(sinks, how) : await audit(options, sinks, how);
    har = undefined;
    if (tty && !options.quiet) progress('');
    const { report, written } = result;
    if (options.json) for (const piece of jsonPieces(report)) out(piece);
    else if (!options.quiet) out(renderConsole(report, painter(Boolean(process.stdout.isTTY), env), terminalColumns()));
    for (const f of written.failed) err(`error: could not write ${f.file}: ${f.error}\n`);
    if (written.skipped.length > 0) {
      const why = interrupt.at() !== undefined ? `the run was interrupted, and they could not be written within ${INTERRUPTED_WRITE_MS / 1000} s of it` : '--max-duration ran out while writing the reports';
      err(`not written: ${written.skipped.join(', ')} (${why}); report.json has every cell\n`);
    }
    say(`reports: ${written.written.map(displayPath).join(', ')}\n`);
    err(keptText(written));
    // Probes that read the balance (billing) named in --probes and left out of the run: said here too, not only in the reports.
    const billing = report.billing;
    if (billing && 'off' in billing && options.probes.length > 0 && probes.some((p) => p.meter && matchAny(p.id, options.probes))) {
      say(`note: the billing probes were left out: ${oneLine(billing.off)}\n`);
    }
    // Annotations go to stdout, where the runner reads workflow commands, unless stdout carries the JSON.
    if (env.GITHUB_ACTIONS === 'true') for (const line of githubAnnotations(report)) command(line, options.json ? 'err' : 'out');
    if (report.maxDurationReached) {
      // The summary's unit: a cell once, a model not reached once (as report.json, the console and the step
      // summary count it); the cells those models stand for are said beside it.
      const perRow = report.probes.filter((p) => p.scope !== 'target').length;
      const cells = report.results.filter((r) => r.cause === 'deadline').length;
      const notReached = report.models.filter((m) => m.notRun?.cause === 'deadline').length;
      err(
        `stopped at --max-duration (${options.maxDurationMs! / 1000} s): ${report.summary!.notRun} not run (${cells} cell(s)${notReachedText(notReached, perRow)}), ` +
          `reported with cause "deadline" and counted among the ${report.summary!.outcomes.failed} failed` +
          `${result.reserveMs ? ` (probing stopped ${(result.reserveMs / 1000).toFixed(1)} s before the end, the time kept to write the reports)` : ''}\n`,
      );
    }
    const capped = capsReachedText(report, '');
    if (capped) {
      const perRow = report.probes.filter((p) => p.scope !== 'target').length;
      const cells = report.results.filter((r) => r.cause === 'budget').length;
      const notReached = report.models.filter((m) => m.notRun?.cause === 'budget').length;
      err(
        `${capped}: ${cells} cell(s) not run${notReachedText(notReached, perRow)}, reported with cause "budget" ` +
          `and counted among the ${report.summary!.outcomes.failed} failed; the dry run (--dry-run) says what the plan needs of each cap\n`,
      );
    }
    if (result.baseline) sayBaseline(result.baseline, report, options, say);
    return result.exitCode;
  } catch (e) {
    // Ctrl-C before the model list came: GET /models was cut short by us, not failed by the server.
    if (interrupt.signal.aborted && e instanceof CannotTestError) {
      err('chatprobe: interrupted before the audit began: nothing was audited, no report written\n');
      return EXIT.interrupted;
    }
    return cannotTest(e);
  } finally {
    interrupt.release();
  }
}

/** A spending cap at 80%: what is spent, and what happens at the cap. */
function nearCapText(w: CapWarning): string {
  const unit = countsRequests(w.cap) ? 'requests sent' : 'output tokens asked for';
  const reached = `${Math.round(WARN_SHARE * 100)}% of ${capText(w)}`;
  if (w.model === undefined) return `${reached} spent (${w.spent} ${unit}): the request past ${w.limit} is not sent, and the run stops there`;
  return `${oneLine(w.model)} has spent ${reached} (${w.spent} ${unit}): a model's requests past ${w.limit} are not sent, and its row stops there (said for the first model to get there)`;
}

/** What a rewrite of the baseline did, or why it was not rewritten. */
function sayBaseline(b: NonNullable<AuditResult['baseline']>, report: Report, options: ResolvedOptions, say: (text: string) => void): void {
  if ('notRewritten' in b) {
    err(`the baseline was not rewritten: ${b.notRewritten}\n`);
    return;
  }
  for (const m of report.models.filter((x) => x.notRun?.comparison === 'missing')) {
    say(`${oneLine(m.id)} is no longer listed: its baseline cells are kept (remove them from ${displayPath(b.path)} to accept that it is gone)\n`);
  }
  const { kept, none, rows } = b.update.heldBack;
  if (kept + none > 0) {
    say(`${kept + none} error cell(s) not stored as expected: ${kept} keep their previous expectation, ${none} have none (an error is never the norm)\n`);
  }
  if (rows.kept.length > 0) say(`not probed, so not stored: ${rows.kept.map(oneLine).join(', ')} (every cell keeps its previous expectation)\n`);
  if (rows.none.length > 0) say(`not probed, so not stored: ${rows.none.map(oneLine).join(', ')} (no expectation yet: run --update-baseline again once it answers)\n`);
  for (const line of describeUpdate(displayPath(b.path), b.update, narrowing(options))) say(`${line}\n`);
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
