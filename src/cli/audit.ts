import { randomBytes } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { loadConfig } from '../config/file.js';
import { resolveOptions, type ResolvedOptions } from '../config/options.js';
import { CannotTestError } from '../engine/errors.js';
import { planAudit, runAudit } from '../engine/run.js';
import { createRedactor } from '../http/redact.js';
import { loadProfile } from '../reference/profiles.js';
import { startReferenceServer } from '../reference/server.js';
import { baselineFrom, DEFAULT_BASELINE, writeBaseline } from '../report/baseline.js';
import type { Report } from '../report/model.js';
import { summarise } from '../report/summary.js';
import { githubAnnotations, renderGithubSummary } from '../report/writers/github.js';
import type { Redactor } from '../http/redact.js';
import { ensureDir, writeReports } from '../report/write.js';
import { painter, progressLine, renderConsole } from '../report/writers/console.js';
import { PROBES } from '../../suites/index.js';
import { EXIT } from './exit.js';
import { err, out } from './output.js';
import { renderPlan } from './plan.js';

/** GitHub Actions: the matrix and failing cells in the step summary, and ::error annotations. */
async function reportToGithub(report: Report, redact: Redactor, env: NodeJS.ProcessEnv, json: boolean): Promise<void> {
  const file = env.GITHUB_STEP_SUMMARY;
  if (file) {
    try {
      await appendFile(file, redact(renderGithubSummary(report)));
    } catch (e) {
      err(`warning: could not append to GITHUB_STEP_SUMMARY: ${(e as Error).message}\n`);
    }
  }
  // Annotations go to stdout, where the runner reads workflow commands, unless stdout carries the JSON.
  for (const line of githubAnnotations(report)) (json ? err : out)(`${redact(line)}\n`);
}

/** A path relative to the working folder when it is below it, else absolute. */
function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : resolve(path);
}


/** Runs an audit with resolved options: progress on stderr, matrix (or JSON) on stdout, reports on disk. */
export async function auditWith(options: ResolvedOptions, env: NodeJS.ProcessEnv): Promise<number> {
  const redact = createRedactor([options.apiKey, ...options.secrets]);
  const say = (text: string) => {
    if (!options.quiet) err(redact(text));
  };
  const tty = Boolean(process.stderr.isTTY);
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(EXIT.interrupted);
    say('\ninterrupted: finishing the partial report (press Ctrl-C again to quit at once)\n');
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    if (!options.apiKey) say(`note: $${options.apiKeyEnv} is empty: requests carry no Authorization header\n`);
    if (options.dryRun) {
      const plan = await planAudit(options, PROBES);
      out(redact(options.json ? `${JSON.stringify(plan, null, 2)}\n` : renderPlan(plan)));
      return EXIT.ok;
    }
    // A folder that cannot be written fails before a single request is paid for.
    try {
      await ensureDir(options.out);
    } catch (e) {
      throw new CannotTestError(`cannot create the output folder ${options.out}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'pass a writable --out');
    }
    const run = await runAudit(
      options,
      PROBES,
      {
        onPlan: (models, probes) => {
          const called = models.filter((m) => m.call).length;
          const unlisted = models.filter((m) => !m.listed).map((m) => m.id);
          say(`auditing ${called} model(s) × ${probes.length} probe(s) at ${options.baseUrl}\n`);
          if (unlisted.length > 0) {
            say(`not listed by GET /models: ${unlisted.join(', ')}${options.allowUnlisted ? ' (called anyway: --allow-unlisted)' : ' (reported, not called)'}\n`);
          }
        },
        onResult: (r, done, total) => {
          if (options.quiet) return;
          if (tty) err(`\r\x1b[2K${redact(progressLine(r, done, total)).slice(0, (process.stderr.columns || 100) - 1)}`);
          else err(redact(`${progressLine(r, done, total)}\n`));
        },
      },
      controller.signal,
    );
    if (tty && !options.quiet) err('\r\x1b[2K');
    const written = await writeReports(run.report, run.trace, options.out, run.redact);
    const summary = summarise(run.report);
    if (options.json) out(run.redact(`${JSON.stringify(run.report, null, 2)}\n`));
    else if (!options.quiet) out(run.redact(renderConsole(run.report, painter(Boolean(process.stdout.isTTY), env))));
    for (const f of written.failed) err(`error: could not write ${f.file}: ${f.error}\n`);
    say(`reports: ${written.written.map(displayPath).join(', ')}\n`);
    if (env.GITHUB_ACTIONS === 'true') await reportToGithub(run.report, run.redact, env, options.json);
    if (options.updateBaseline && !run.report.interrupted) {
      const path = options.baseline ?? DEFAULT_BASELINE;
      await writeBaseline(path, baselineFrom(run.report, run.baseline));
      say(`baseline written: ${displayPath(path)}\n`);
    }
    if (written.failed.length > 0) return EXIT.failed;
    if (run.report.interrupted) return EXIT.interrupted;
    // Rewriting the baseline accepts this run's verdicts: only our own errors still fail it.
    if (options.updateBaseline) return summary.outcomes.errored > 0 ? EXIT.failed : EXIT.ok;
    return summary.exitCode;
  } catch (e) {
    if (e instanceof CannotTestError) {
      err(redact(`chatprobe: ${e.message}\n${e.advice ? `hint: ${e.advice}\n` : ''}`));
      return EXIT.cannotTest;
    }
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export async function auditCommand(flags: Record<string, unknown>, env: NodeJS.ProcessEnv, configPath?: string): Promise<number> {
  let options: ResolvedOptions;
  try {
    options = resolveOptions(flags, env, loadConfig(configPath).config);
  } catch (e) {
    if (e instanceof CannotTestError) {
      err(`chatprobe: ${e.message}\n${e.advice ? `hint: ${e.advice}\n` : ''}`);
      return EXIT.cannotTest;
    }
    throw e;
  }
  return auditWith(options, env);
}

/** Starts the reference server on a free loopback port, audits it with a throw-away key, stops it. */
export async function demoCommand(profileName: string, flags: Record<string, unknown>, env: NodeJS.ProcessEnv): Promise<number> {
  const key = `sk-demo-${randomBytes(16).toString('hex')}`;
  const profile = loadProfile(profileName);
  const server = await startReferenceServer({ profile, apiKey: key });
  try {
    const options = resolveOptions({ ...flags, baseUrl: server.url }, env);
    options.apiKey = key;
    return await auditWith(options, env);
  } finally {
    await server.close();
  }
}
