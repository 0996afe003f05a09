import type { HttpRequest } from '../../src/http/client.js';
import { SMOKE_PROMPT, type ProbeContext, type ProbeVerdict } from '../../src/engine/probe.js';
import { conformance, describeFailure, errored, fail, inconclusive, note, ourCut, warn } from '../../src/engine/verdicts.js';
import type { Finding } from '../../src/results/model.js';
import { LIMITS, user } from './prompts.js';

/**
 * Sends the smoke request with the Authorization header the probe chooses and judges the answer:
 * 401 with a JSON error passes; 403 or another shape warns; an answer without a valid key means the
 * endpoint is open (warn, or fail with --require-auth); a 5xx fails; a 401 whose body chatprobe did not
 * read whole is inconclusive.
 */
export async function judgeAuth(ctx: ProbeContext, auth: HttpRequest['auth'], what: string, openWords: string): Promise<ProbeVerdict> {
  const x = await ctx.send({ method: 'POST', path: '/chat/completions', auth, body: { model: ctx.model, messages: [user(SMOKE_PROMPT)], max_tokens: LIMITS.word } });
  const findings: Finding[] = [];
  if (x.transport || x.status === 429) return errored(x.cause ?? 'rate_limited', x, `expected 401 for ${what}, got ${describeFailure(x)}`);
  const status = x.status!;
  let v: ProbeVerdict;
  if (status >= 200 && status < 300) {
    v = conformance([(ctx.options.requireAuth ? fail : warn)('open', `expected 401 for ${what}, got HTTP ${status}: ${openWords}`)], '');
  } else if (status >= 500) {
    v = conformance([fail('server_error', `expected 401 for ${what}, got ${describeFailure(x)}`)], '');
  } else if (status !== 401) {
    findings.push(warn('status', `expected 401 for ${what}, got ${describeFailure(x)}`));
    v = conformance(findings, '');
  } else if (x.truncated) {
    v = inconclusive(`${what} got ${ourCut(x)}; whether it came in a JSON error envelope cannot be told`);
  } else if (x.errorShape !== 'openai') {
    v = conformance([warn('shape', `expected a JSON error envelope with the 401, got the ${x.errorShape} shape`)], '');
  } else {
    v = conformance([note('message', x.errorMessage ?? '')], `401 with the OpenAI error envelope for ${what}`);
  }
  if (x.status !== undefined) v.status = x.status;
  if (x.errorMessage) v.message = x.errorMessage;
  return v;
}
