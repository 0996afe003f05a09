import type { Exchange } from '../../src/engine/exchange.js';
import { defineProbe, type ProbeVerdict } from '../../src/engine/probe.js';
import { answerProblem, conformance, describeFailure, errored, fail, namesAny, note, warn } from '../../src/engine/verdicts.js';
import { outsideTheRequest } from '../../src/results/causes.js';
import type { Finding } from '../../src/results/model.js';
import { readChoices, errorIn2xx } from '../../src/wire/completion.js';
import { isObject } from '../../src/wire/json.js';
import { readUsage } from '../../src/wire/usage.js';
import { LIMITS, user } from '../support/prompts.js';

/** The values sent, one request each: each outside the range OpenAI documents for its parameter. */
export const OUT_OF_RANGE = [
  { param: 'temperature', value: 5, range: '0 to 2' },
  { param: 'top_p', value: 2, range: '0 to 1' },
  { param: 'max_tokens', value: -5, range: 'at least 1' },
  { param: 'n', value: 0, range: 'at least 1' },
] as const;

export type OutOfRangeCase = (typeof OUT_OF_RANGE)[number];

/** One value's request and what came back, or why it was not sent. */
export interface OutOfRangeTry {
  case: OutOfRangeCase;
  x?: Exchange;
  notSent?: string;
}

/**
 * What a 2xx to an out-of-range value shows: the value was clamped or dropped in silence. The answer says
 * which where it can (a -5 limit turned into 0 gives no tokens; n: 0 gives one choice).
 */
function silently(t: OutOfRangeTry, x: Exchange): string {
  const said = `${t.case.param}: ${t.case.value} (valid: ${t.case.range}) was answered with HTTP ${x.status}`;
  const choices = readChoices(x.json);
  const usage = isObject(x.json) ? readUsage(x.json.usage) : undefined;
  if (t.case.param === 'n') return `${said} and ${choices.length} choice(s): clamped or ignored without a word`;
  if (t.case.param === 'max_tokens' && usage) {
    return `${said} and ${usage.completionTokens} completion token(s)${usage.completionTokens === 0 ? ' (turned into 0)' : ' (ignored or clamped)'}, without a word`;
  }
  return `${said}: clamped or ignored without a word`;
}

/**
 * A value outside its documented range must be refused with a 4xx that names the parameter. A refusal in
 * the OpenAI envelope naming it is right; one that does not name it, or another JSON shape, warns; a silent
 * 2xx (a gateway clamping temperature 5 to 2) warns per value; an HTML or text refusal, a 5xx or an error
 * body in a 2xx fails. Values that could not be tested (rate limit, timeout …) leave the cell inconclusive
 * unless another value already shows a deviation; all of them untested is an error with the cause.
 */
export function judgeOutOfRange(tries: readonly OutOfRangeTry[]): ProbeVerdict {
  const findings: Finding[] = [];
  const refused: string[] = [];
  const untested: string[] = [];
  let outside: Exchange | undefined;
  for (const t of tries) {
    const what = `${t.case.param}: ${t.case.value}`;
    const x = t.x;
    if (!x) {
      untested.push(`${what} (${t.notSent ?? 'not sent'})`);
      continue;
    }
    // Rate limits, quota, the token, timeouts and transport failures say nothing about validation: that value is untested.
    if (outsideTheRequest(x.cause)) {
      outside ??= x;
      untested.push(`${what} (${describeFailure(x)})`);
      continue;
    }
    if (x.truncated) {
      untested.push(`${what} (${x.unparsed ? `${x.unparsed}: chatprobe did not parse it` : "the answer passed chatprobe's own cap"})`);
      continue;
    }
    const status = x.status ?? 0;
    if (status >= 200 && status < 300) {
      const error = errorIn2xx(x.json);
      // A 200 that is no answer (HTML, no choice) shows neither a clamp nor a refusal.
      const unreadable = error ? undefined : answerProblem(x, 'choice');
      if (unreadable) untested.push(`${what} (${unreadable})`);
      else findings.push(error ? fail('error_in_2xx', `${what} was refused inside an HTTP ${status} (${error}): clients read it as a success`) : warn('accepted_out_of_range', silently(t, x)));
    } else if (status >= 500) {
      findings.push(fail('server_error', `${what} got ${describeFailure(x)}: a client error answered as a server error (SDKs retry it)`));
    } else if (x.errorShape === 'html' || x.errorShape === 'text' || x.errorShape === 'empty') {
      findings.push(fail('not_json', `${what} was refused with HTTP ${status} and ${x.errorShape === 'empty' ? 'an empty body' : x.errorShape}, not a JSON error`));
    } else {
      if (x.errorShape !== 'openai') findings.push(warn('shape', `${what} was refused with HTTP ${status} in the ${x.errorShape ?? 'unknown'} shape, not {"error":{"message":…}}`));
      if (!namesAny(x, [t.case.param])) findings.push(warn('param_not_named', `${what} was refused with HTTP ${status} without naming ${t.case.param}: ${x.errorMessage ?? '(no message)'}`));
      else refused.push(`${what} → ${status}`);
    }
  }
  if (untested.length === tries.length) {
    return outside?.cause ? errored(outside.cause, outside, `could not test any value: ${untested.join('; ')}`) : { verdict: 'inconclusive', observed: `could not test any value: ${untested.join('; ')}` };
  }
  if (untested.length > 0) findings.push(note('untested', `not tested: ${untested.join('; ')}`));
  const v = conformance(findings, `each value refused with a 4xx naming its parameter (${refused.join(', ')})`);
  // Nothing wrong seen, but not every value tried: no pass on part of the evidence.
  if (v.verdict === 'pass' && untested.length > 0) return { verdict: 'inconclusive', observed: `refused as it should be: ${refused.join(', ')}; not tested: ${untested.join('; ')}`, findings };
  return v;
}

export default defineProbe({
  id: 'errors.out_of_range',
  area: 'errors',
  kind: 'conformance',
  requirement: 'Values outside their documented range (temperature: 5, top_p: 2, max_tokens: -5, n: 0) are refused with a 4xx naming the parameter, not clamped or dropped in silence.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  // max_tokens: -5 carries no usable limit: it counts the word its prompt asks for.
  cost: { requests: OUT_OF_RANGE.length, maxTokens: OUT_OF_RANGE.length * LIMITS.refused },
  async run(ctx) {
    const runaway = ctx.runaway();
    const tries = await Promise.all(
      OUT_OF_RANGE.map(async (c): Promise<OutOfRangeTry> => {
        const body = { messages: [user('Say OK.')], max_tokens: LIMITS.refused, [c.param]: c.value };
        if (c.param === 'max_tokens') {
          // The value under test is the only limit: a model that never stops would run to --timeout if
          // the server dropped it.
          if (runaway) return { case: c, notSent: 'the model does not stop on its own, and this request can carry no other limit' };
          // Sent as it is: a refusal of -5 must not teach the caller that the model refuses max_tokens.
          return { case: c, x: await ctx.chat(body, { raw: true }) };
        }
        return { case: c, x: await ctx.chat(body) };
      }),
    );
    return judgeOutOfRange(tries);
  },
});
