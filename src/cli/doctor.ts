import { loadConfig } from '../config/file.js';
import { resolveOptions, secretsOf } from '../config/options.js';
import { CannotTestError } from '../errors.js';
import { oneLine } from '../text.js';
import { DOCTOR_CHECKS } from '../results/causes.js';
import type { ModelEntry } from '../results/model.js';
import { CHECK_NAMES, doctor, doctorChecks } from '../pipeline/doctor.js';
import { EXIT } from '../results/exit.js';
import { err, guardSecrets, out } from './output.js';

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
    const found = await doctor(options, boundary);
    const lines = [`chatprobe doctor: ${found.baseUrl}`, `✓ GET /models answered a model list`];
    for (const m of found.models) lines.push(...doctorLines(m));
    const failing = found.models.filter((m) => m.cause);
    lines.push('', failing.length === 0 ? 'every check passed' : `${failing.length} of ${found.models.length} model(s) fail a check`);
    // Per model, its checks as the list prints them; `cause` too, for a script that reads only that.
    const json = found.models.map((m) => ({ id: m.id, listed: m.listed, ...(m.cause ? { cause: m.cause } : {}), checks: m.checks }));
    if (options.json) out(`${JSON.stringify(json, null, 2)}\n`);
    else out(`${lines.join('\n')}\n`);
    return failing.length > 0 ? EXIT.failed : EXIT.ok;
  } catch (e) {
    if (e instanceof CannotTestError) {
      // --json prints JSON only, the failure included: a CI script parses it either way.
      if (options.json) out(`${JSON.stringify({ error: oneLine(e.message), ...(e.advice ? { advice: oneLine(e.advice) } : {}) }, null, 2)}\n`);
      else out(`✗ GET /models: ${oneLine(e.message)}\n${e.advice ? `  ${oneLine(e.advice)}\n` : ''}`);
      return EXIT.cannotTest;
    }
    throw e;
  }
}
