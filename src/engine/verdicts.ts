import { ADVICE } from './diagnose.js';
import type { Exchange } from './exchange.js';
import type { ProbeVerdict } from './probe.js';
import type { Cause, Finding } from '../report/model.js';

export const honoured = (observed: string): ProbeVerdict => ({ verdict: 'honoured', observed });
export const ignored = (observed: string): ProbeVerdict => ({ verdict: 'ignored', observed });
export const accepted = (observed: string): ProbeVerdict => ({ verdict: 'accepted', observed });
export const inconclusive = (observed: string): ProbeVerdict => ({ verdict: 'inconclusive', observed });

export function errored(cause: Cause, x: Exchange | undefined, observed?: string): ProbeVerdict {
  const v: ProbeVerdict = { verdict: 'error', cause, observed: observed ?? `could not run: ${cause} (${ADVICE[cause]})` };
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

/**
 * The verdict for a capability request that did not succeed. A refusal counts as `rejected` only when it is
 * a client error and the same request without the feature (the control) succeeded; causes outside the
 * request (5xx, rate limits, quota, timeouts) are errors, never rejections. A refusal is clean when it comes
 * in the OpenAI envelope and names the parameter (in `param` or the message), dirty otherwise.
 */
export function refusal(x: Exchange, control: Exchange, feature: string, param?: string): ProbeVerdict {
  if (x.cause) return errored(x.cause, x, `expected an answer with ${feature}, got ${describeFailure(x)}`);
  if (!control.ok) {
    return inconclusive(`the request with ${feature} failed (${describeFailure(x)}), but so did the same request without it (${describeFailure(control)})`);
  }
  const name = param ?? feature;
  const names = x.errorParam === name || (x.errorParam?.startsWith(`${name}[`) ?? false) || (x.errorMessage?.includes(name) ?? false);
  const clean = x.errorShape === 'openai' && names;
  const how = clean ? 'clean refusal' : x.errorShape === 'openai' ? 'refusal that does not name the parameter' : `dirty refusal: ${x.errorShape} body`;
  const v: ProbeVerdict = {
    verdict: 'rejected',
    observed: `expected ${feature} to be accepted, got ${describeFailure(x)} (${how})`,
    findings: [{ severity: clean ? 'info' : 'warn', code: clean ? 'clean_refusal' : 'dirty_refusal', message: how }],
  };
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

/** A broken MUST. */
export const fail = (code: string, message: string): Finding => ({ severity: 'fail', code, message });
/** A missed SHOULD or a tolerated deviation. */
export const warn = (code: string, message: string): Finding => ({ severity: 'warn', code, message });
/** A fact worth recording that breaks nothing. */
export const note = (code: string, message: string): Finding => ({ severity: 'info', code, message });
