import { Boundary } from '../boundary/boundary.js';
import { oneLine } from '../text.js';
import { secretsOf, type ResolvedOptions } from '../config/options.js';
import { runAudit } from '../engine/run.js';
import { CAUSES, DOCTOR_CHECKS, type DoctorCheck as CheckId } from '../results/causes.js';
import type { ModelEntry } from '../results/model.js';

/** The words of each check a model passes, in order; which cause fails which is results/causes.ts's. */
export const CHECK_NAMES: Record<CheckId, string> = {
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

/** The models' checklists: GET /models and each model's smoke call, no probe; through the output boundary. */
export async function doctor(options: ResolvedOptions, boundary: Boundary = Boundary.of(secretsOf(options))): Promise<{ baseUrl: string; models: (ModelEntry & { checks: DoctorCheck[] })[] }> {
  const raw = await runAudit({ ...options, probes: [] }, []);
  const report = boundary.report(raw.report);
  return { baseUrl: report.target.baseUrl, models: report.models.map((m) => ({ ...m, checks: doctorChecks(m) })) };
}
