import { CAUSES } from '../results/causes.js';
import type { Exchange } from './exchange.js';
import type { ProbeVerdict } from './probe.js';
import type { Cause, Finding } from '../results/model.js';
import { errorIn2xx, readChoices } from '../wire/completion.js';
import { errorMember, quotedMessage, readError } from '../wire/error.js';

export const honoured = (observed: string): ProbeVerdict => ({ verdict: 'honoured', observed });
export const ignored = (observed: string): ProbeVerdict => ({ verdict: 'ignored', observed });
export const accepted = (observed: string): ProbeVerdict => ({ verdict: 'accepted', observed });
export const inconclusive = (observed: string): ProbeVerdict => ({ verdict: 'inconclusive', observed });

export function errored(cause: Cause, x: Exchange | undefined, observed?: string): ProbeVerdict {
  const v: ProbeVerdict = { verdict: 'error', cause, observed: observed ?? `could not run: ${cause} (${CAUSES[cause].advice})` };
  if (x?.status !== undefined) v.status = x.status;
  if (x?.errorMessage) v.message = x.errorMessage;
  return v;
}

/** How a call failed, in words: "HTTP 400: Unsupported parameter…" or "timeout: …". */
export function describeFailure(x: Exchange): string {
  if (x.transport) return `${x.transport.code}: ${x.transport.message}`;
  const msg = x.errorMessage ? `: ${x.errorMessage}` : '';
  return `HTTP ${x.status}${msg}`;
}

/** The keys of the output limit every probe request carries (verdict contract, rule 7). */
export const LIMIT_KEYS = ['max_tokens', 'max_completion_tokens'] as const;

/**
 * Whether `word` appears in `text` as a whole word: "n" is not named by "not supported", nor "name" by
 * "model_name" (verdict contract, rule 10).
 */
export function mentions(text: string | undefined, word: string): boolean {
  if (!text) return false;
  let pattern = wordPatterns.get(word);
  if (!pattern) {
    const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    pattern = new RegExp(`(?<![A-Za-z0-9_])${escaped}(?![A-Za-z0-9_])`, 'i');
    // The words are the probes' parameter names, a few dozen: compiled once each, not once a refusal.
    if (wordPatterns.size < 1000) wordPatterns.set(word, pattern);
  }
  return pattern.test(text);
}

/** Whole-word patterns by word (no `g` flag: test() keeps no state between texts). */
const wordPatterns = new Map<string, RegExp>();

/** Whether a refusal names one of `names`: in `error.param` (or a path inside it), or as a whole word of its message. */
export function namesAny(x: Exchange, names: readonly string[]): boolean {
  const param = x.errorParam;
  return names.some(
    (n) => param === n || (param?.startsWith(`${n}[`) ?? false) || (param?.startsWith(`${n}.`) ?? false) || mentions(x.errorMessage, n) || mentions(x.firstTry?.message, n),
  );
}

/**
 * Why a 2xx is not a readable answer, or undefined when it is one (verdict contract, rule 3): JSON with a
 * first choice, no error member, and content (`content_or_tool_calls`: or tool calls; `ended`: or tool
 * calls, or no content from a model that ended its turn with "stop", which is an answer too). A 200
 * carrying an error body, no choice, or an empty content cut by the limit or gone to a reasoning field
 * shows nothing about any feature.
 */
export function answerProblem(x: Exchange, accept: 'content' | 'content_or_tool_calls' | 'ended' | 'choice' = 'content'): string | undefined {
  if (!x.ok) return describeFailure(x);
  if (x.truncated) return ourCut(x);
  if (x.json === undefined) return `HTTP ${x.status} with a ${x.contentType || 'untyped'} body that is not JSON`;
  const error = errorIn2xx(x.json);
  if (error) {
    const read = errorMember(x.json) ?? readError(x.json);
    const said = quotedMessage(read);
    const stated = read.status !== undefined && read.status !== x.status ? `, status ${read.status} in the body` : '';
    return `HTTP ${x.status} with an error body${said ? `: ${said}` : ''} (${error}${stated})`;
  }
  const choice = readChoices(x.json)[0];
  if (!choice) return `HTTP ${x.status} with JSON but no choice`;
  if (accept === 'choice') return undefined;
  const hasContent = choice.content !== null && /\S/.test(choice.content);
  if (hasContent || (accept !== 'content' && choice.toolCalls.length > 0)) return undefined;
  if (accept === 'ended' && choice.finishReason === 'stop') return undefined;
  const where = choice.reasoning ? ' (the text went to a reasoning field)' : choice.finishReason === 'length' ? ' (cut by the output limit before any content)' : '';
  return `HTTP ${x.status} with an empty content${where}`;
}

/** An exchange that is no readable answer, as an `inconclusive` verdict (never `ignored`); else undefined. */
export function unreadable(x: Exchange, accept: Parameters<typeof answerProblem>[1] = 'content', what = 'no answer to judge'): ProbeVerdict | undefined {
  const problem = answerProblem(x, accept);
  if (!problem) return undefined;
  const v = inconclusive(`${problem}: ${what}`);
  if (x.ok && errorIn2xx(x.json)) v.findings = [warn('error_in_2xx', `an error in a 2xx: ${problem}`)];
  return v;
}

/**
 * The verdict for a capability request that did not succeed (verdict contract, rules 8 and 10). `rejected`
 * needs a refusal the feature explains while the same request without it (the control) got a readable
 * answer: a 4xx, or a 5xx that came back on a second try and whose error names the feature (llama.cpp's
 * 500 for an image without a vision projector), which is a dirty refusal and a conformance finding.
 * Other causes (5xx, rate limits, quota, timeouts) are errors. A refusal of the output limit chatprobe adds
 * to every request says nothing about the feature. A refusal is clean when it comes in the OpenAI
 * envelope and names the feature (in `param`, or as a whole word of the message), dirty otherwise.
 */
export function refusal(x: Exchange, control: Exchange, feature: string, names: string | readonly string[]): ProbeVerdict {
  const words = typeof names === 'string' ? [names] : names;
  const names5xx = x.status !== undefined && x.status >= 500 && !x.transport && x.firstTry?.status !== undefined && x.firstTry.status >= 500 && namesAny(x, words);
  if (x.cause && !names5xx) return errored(x.cause, x, `expected an answer with ${feature}, got ${describeFailure(x)}`);
  const controlProblem = answerProblem(control, 'content_or_tool_calls');
  if (controlProblem) {
    return inconclusive(`the request with ${feature} failed (${describeFailure(x)}), but the same request without it got no answer either (${controlProblem})`);
  }
  const limit = namesAny(x, words) ? undefined : LIMIT_KEYS.find((k) => !words.includes(k) && namesAny(x, [k]));
  if (limit) return inconclusive(`the request with ${feature} was refused (${describeFailure(x)}), naming ${limit}: the output limit chatprobe sends, not the feature`);
  const named = namesAny(x, words);
  const clean = x.errorShape === 'openai' && named && !names5xx;
  const how = names5xx
    ? `dirty refusal: HTTP ${x.status} twice, naming the feature`
    : clean
      ? 'clean refusal'
      : x.errorShape === 'openai'
        ? 'refusal that does not name the parameter'
        : `dirty refusal: ${x.errorShape} body`;
  const findings: Finding[] = [{ severity: clean ? 'info' : 'warn', code: clean ? 'clean_refusal' : 'dirty_refusal', message: how }];
  if (names5xx) findings.push(fail('server_error_for_client_error', `a client error answered with HTTP ${x.status}: clients and SDKs retry 5xx`));
  const v: ProbeVerdict = { verdict: 'rejected', observed: `expected ${feature} to be accepted, got ${describeFailure(x)} (${how})`, findings };
  if (x.status !== undefined) v.status = x.status;
  if (x.errorMessage) v.message = x.errorMessage;
  return v;
}

/** A conformance verdict from findings: any fail → fail, any warn → warn, else pass. */
export function conformance(findings: Finding[], passed: string): ProbeVerdict {
  const fails = findings.filter((f) => f.severity === 'fail');
  const warns = findings.filter((f) => f.severity === 'warn');
  if (fails.length > 0) return { verdict: 'fail', observed: fails.map((f) => f.message).join('; '), findings };
  if (warns.length > 0) return { verdict: 'warn', observed: warns.map((f) => f.message).join('; '), findings };
  return { verdict: 'pass', observed: passed, findings };
}

/** A conformance probe whose call did not succeed: a cause is an error, a client error on a plain request fails. */
export function conformanceFailure(x: Exchange, what: string): ProbeVerdict {
  if (x.cause) return errored(x.cause, x, `expected ${what}, got ${describeFailure(x)}`);
  const v: ProbeVerdict = {
    verdict: 'fail',
    observed: `expected ${what}, got ${describeFailure(x)}`,
    findings: [{ severity: 'fail', code: 'refused', message: `a plain request was refused: ${describeFailure(x)}` }],
  };
  if (x.status !== undefined) v.status = x.status;
  if (x.errorMessage) v.message = x.errorMessage;
  return v;
}

/**
 * For a conformance probe reading one answer: the verdict when it cannot be judged at all, else undefined.
 * Refused: the plain request failed. Cut at our cap: we did not read it, so nothing in it is blamed.
 */
export function unjudgeable(x: Exchange, what: string): ProbeVerdict | undefined {
  if (!x.ok) return conformanceFailure(x, what);
  if (x.truncated) return inconclusive(`cannot judge ${what}: ${ourCut(x)}`);
  return undefined;
}

/** Our body cap, said as ours: the server is not blamed for what we chose not to read. */
export function ourCut(x: Exchange): string {
  if (x.unparsed) return `HTTP ${x.status ?? '—'} with ${x.unparsed}: chatprobe read it but does not parse it (its own limit), so nothing in it was judged`;
  const mib = (x.cap / 1024 / 1024).toFixed(x.cap % (1024 * 1024) === 0 ? 0 : 1);
  return `HTTP ${x.status ?? '—'} with more than ${mib} MiB: chatprobe stopped reading at its own cap, so the rest was not seen`;
}

/** A broken MUST. */
export const fail = (code: string, message: string): Finding => ({ severity: 'fail', code, message });
/** A missed SHOULD or a tolerated deviation. */
export const warn = (code: string, message: string): Finding => ({ severity: 'warn', code, message });
/** A fact worth recording that breaks nothing. */
export const note = (code: string, message: string): Finding => ({ severity: 'info', code, message });
