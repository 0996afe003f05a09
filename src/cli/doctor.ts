import { loadConfig } from '../config/file.js';
import { resolveOptions, secretsOf } from '../config/options.js';
import { CannotTestError } from '../errors.js';
import { runAudit } from '../engine/run.js';
import { oneLine } from '../text.js';
import { CAUSES, DOCTOR_CHECKS, type DoctorCheck as CheckId } from '../results/causes.js';
import type { ModelEntry } from '../results/model.js';
import { EXIT } from './exit.js';
import { err, guardSecrets, out } from './output.js';

/** The words of each check a model passes, in order; which cause fails which is results/causes.ts's. */
const CHECK_NAMES: Record<CheckId, string> = {
  listed: 'listed by GET /models',
  token: 'token accepted',
  group: "token's group can reach it",
  quota: 'quota left',
  answers: 'no rate limit, upstream answers',
};

/** One check of a model, as the list prints it and `--json` gives it. */
export interface DoctorCheck {
  name: string;
  /** ✓ pass, ✗ fail, ? unknown (nothing answered to tell), ! note (not a check that stops an audit). */
  state: 'pass' | 'fail' | 'unknown' | 'note';
  /** What was seen: the status and time, the server's message, or why it is not known. */
  seen: string;
  /** What to do about it, for a failure or a note. */
  advice?: string;
}

/**
 * The checklist of one model: each step passes until the one its cause belongs to. A step passes only when
 * an answer showed it: a smoke call with no HTTP answer (a timeout, the run stopped) leaves the token,
 * group and quota checks unknown, and a model called though not listed (--allow-unlisted) says so.
 */
export function doctorChecks(m: ModelEntry): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  const cause = m.cause ? CAUSES[m.cause] : undefined;
  const failing = cause?.check;
  // With no HTTP answer (a timeout, the run stopped), the token, group and quota checks were never reached.
  const unanswered = cause !== undefined && !cause.answered;
  const failure = (): DoctorCheck => ({ name: failing ? CHECK_NAMES[failing] : 'smoke call', state: 'fail', seen: oneLine(m.smoke?.message ?? m.cause!), advice: cause!.advice });
  // A 2xx whose body is an error (the message then says so, read by wire/error.ts) answered nothing.
  const errorIn2xx = m.smoke?.status !== undefined && m.smoke.status >= 200 && m.smoke.status < 300 && m.smoke.message !== undefined;
  const answer = m.smoke ? `HTTP ${m.smoke.status ?? '—'} in ${Math.round(m.smoke.durationMs)} ms${m.smoke.message && !errorIn2xx ? ` (${oneLine(m.smoke.message)})` : ''}` : 'no smoke call';
  for (const step of DOCTOR_CHECKS) {
    if (step === failing) return [...checks, failure()];
    const name = CHECK_NAMES[step];
    if (step === 'listed') {
      checks.push(m.listed ? { name, state: 'pass', seen: 'listed' } : { name, state: 'note', seen: 'not listed by GET /models: called anyway (--allow-unlisted)' });
      continue;
    }
    if (unanswered) {
      checks.push({ name, state: 'unknown', seen: 'not known (no HTTP answer to tell)' });
      continue;
    }
    checks.push({ name, state: 'pass', seen: answer });
  }
  // A cause no step names (the run stopped, our own failure): said last, never as a pass.
  if (m.cause) return [...checks, failure()];
  // Not checks that stop an audit, but operators fix them here: an error in a success, a model that does not stop.
  if (errorIn2xx) {
    checks.push({ name: 'answers in its 2xx', state: 'note', seen: oneLine(m.smoke!.message!), advice: 'clients read an error inside a success as an answer: check the upstream channel serving this model' });
  }
  if (m.smoke?.runaway) {
    checks.push({ name: 'stops on its own', state: 'note', seen: 'no answer without a limit within --timeout, one with a limit', advice: 'check the chat template and EOS token' });
  }
  return checks;
}

/** The checklist of one model as lines: a pass shows what it saw on the last step only (the smoke call's answer). */
export function doctorLines(m: ModelEntry): string[] {
  const lines = [`model ${oneLine(m.id)}`];
  const last = CHECK_NAMES[DOCTOR_CHECKS.at(-1)!];
  for (const c of doctorChecks(m)) {
    if (c.state === 'pass') lines.push(`  ✓ ${c.name}${c.name === last && m.smoke ? `: ${c.seen}` : ''}`);
    else if (c.state === 'fail') lines.push(`  ✗ ${c.name}: ${c.seen}`, `    ${c.advice}`);
    else if (c.state === 'unknown') lines.push(`  ? ${c.name}: ${c.seen}`);
    else lines.push(`  ! ${c.name === CHECK_NAMES.listed ? c.seen : `${c.name}: ${c.seen}`}${c.advice ? `: ${c.advice}` : ''}`);
  }
  return lines;
}

/** chatprobe doctor: the smoke checks only, printed in the order an operator checks them (DOCTOR_CHECKS). */
export async function doctorCommand(flags: Record<string, unknown>, env: NodeJS.ProcessEnv, configPath?: string): Promise<number> {
  // Outside the try: a config that cannot be read or a bad flag value is a usage error (exit 2, the CLI's
  // own message), not a GET /models step that failed.
  const options = resolveOptions({ ...flags, probes: [] }, env, loadConfig(configPath).config);
  try {
    const boundary = guardSecrets(secretsOf(options));
    // As the audit says it: a missing key explains every "token accepted" failure below.
    if (!options.apiKey && !options.json) err(`note: $${options.apiKeyEnv} is ${env[options.apiKeyEnv] === undefined ? 'not set' : 'empty'}: requests carry no Authorization header\n`);
    const raw = await runAudit(options, []);
    const run = { report: boundary.report(raw.report) };
    const lines = [`chatprobe doctor: ${run.report.target.baseUrl}`, `✓ GET /models answered a model list`];
    for (const m of run.report.models) lines.push(...doctorLines(m));
    const failing = run.report.models.filter((m) => m.cause);
    lines.push('', failing.length === 0 ? 'every check passed' : `${failing.length} of ${run.report.models.length} model(s) fail a check`);
    // Per model, its checks as the list prints them; `cause` too, for a script that reads only that.
    const json = run.report.models.map((m) => ({ id: m.id, listed: m.listed, ...(m.cause ? { cause: m.cause } : {}), checks: doctorChecks(m) }));
    if (options.json) out(`${JSON.stringify(json, null, 2)}\n`);
    else out(`${lines.join('\n')}\n`);
    return failing.length > 0 ? EXIT.failed : EXIT.ok;
  } catch (e) {
    if (e instanceof CannotTestError) {
      // --json prints JSON only, the failure included: a CI script parses it either way.
      if (flags.json) out(`${JSON.stringify({ error: oneLine(e.message), ...(e.advice ? { advice: oneLine(e.advice) } : {}) }, null, 2)}\n`);
      else out(`✗ GET /models: ${oneLine(e.message)}\n${e.advice ? `  ${oneLine(e.advice)}\n` : ''}`);
      return EXIT.cannotTest;
    }
    throw e;
  }
}
