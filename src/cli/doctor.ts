import { loadConfig } from '../config/file.js';
import { resolveOptions, secretsOf } from '../config/options.js';
import { ADVICE } from '../engine/diagnose.js';
import { CannotTestError } from '../engine/errors.js';
import { runAudit } from '../engine/run.js';
import { oneLine } from '../boundary/text.js';
import type { Cause, ModelEntry } from '../report/model.js';
import { EXIT } from './exit.js';
import { err, guardSecrets, out } from './output.js';

/** The checks a model passes in order, and the cause that fails each. */
const STEPS: { name: string; causes: Cause[] }[] = [
  { name: 'listed by GET /models', causes: ['model_not_listed'] },
  { name: 'token accepted', causes: ['auth'] },
  { name: "token's group can reach it", causes: ['model_not_in_group'] },
  { name: 'quota left', causes: ['quota'] },
  { name: 'no rate limit, upstream answers', causes: ['rate_limited', 'upstream', 'timeout', 'network'] },
];

/** Causes that leave no HTTP answer: the token, group and quota checks before them were never reached. */
const NO_ANSWER: readonly Cause[] = ['timeout', 'network', 'interrupted', 'deadline', 'harness'];

/**
 * The checklist of one model: each step passes until the one its cause belongs to. A step is ✓ only when
 * an answer showed it: a smoke call with no HTTP answer (a timeout, the run stopped) leaves the token,
 * group and quota checks unknown (?), and a model called though not listed (--allow-unlisted) says so.
 */
export function doctorLines(m: ModelEntry): string[] {
  const lines = [`model ${oneLine(m.id)}`];
  const failing = m.cause ? STEPS.find((s) => s.causes.includes(m.cause!)) : undefined;
  const unanswered = m.cause !== undefined && NO_ANSWER.includes(m.cause);
  const failure = () => [`  ✗ ${failing?.name ?? 'smoke call'}: ${oneLine(m.smoke?.message ?? m.cause!)}`, `    ${ADVICE[m.cause!]}`];
  for (const step of STEPS) {
    if (step === failing) return [...lines, ...failure()];
    if (step === STEPS[0] && !m.listed) {
      lines.push('  ! not listed by GET /models: called anyway (--allow-unlisted)');
      continue;
    }
    if (unanswered && step !== STEPS[0]) {
      lines.push(`  ? ${step.name}: not known (no HTTP answer to tell)`);
      continue;
    }
    const last = step === STEPS.at(-1);
    const detail = last && m.smoke ? `: HTTP ${m.smoke.status ?? '—'} in ${Math.round(m.smoke.durationMs)} ms${m.smoke.message ? ` (${oneLine(m.smoke.message)})` : ''}` : '';
    lines.push(`  ✓ ${step.name}${detail}`);
  }
  // A cause no step names (the run stopped, our own failure): said last, never under a ✓.
  if (m.cause) return [...lines, ...failure()];
  // Not a check that stops an audit: the model is audited with limits. But operators fix it here.
  if (m.smoke?.runaway) lines.push('  ! stops on its own: no answer without a limit within --timeout, one with a limit: check the chat template and EOS token');
  return lines;
}

/** chatprobe doctor: the smoke checks only, printed in the order the spec tells operators to check them. */
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
    if (options.json) out(`${JSON.stringify(run.report.models, null, 2)}\n`);
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
