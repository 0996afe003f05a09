import type { Exchange } from '../../src/engine/exchange.js';
import type { ProbeVerdict } from '../../src/engine/probe.js';
import { conformance, describeFailure, errored, fail, inconclusive, note, ourCut, warn } from '../../src/engine/verdicts.js';
import { outsideTheRequest, type RefusedRequest } from '../../src/results/causes.js';
import type { Finding } from '../../src/results/model.js';
import { errorIn2xx } from '../../src/wire/completion.js';

/**
 * Judges the answer to a request that must be refused (invalid input, unknown model): a 4xx with the OpenAI
 * `{error:{message,…}}` envelope passes; another JSON shape warns; HTML, plain text, a 5xx (SDKs retry it)
 * or a 2xx fail; a 4xx whose body chatprobe did not read whole is inconclusive. The error shape found is
 * recorded either way. An answer whose cause says nothing about the request (a rate limit, quota, the token
 * or its group refusing the model its smoke call reached, no answer: results/causes.ts) is an error with
 * that cause.
 */
export function judgeRefusal(x: Exchange, what: string, on2xx?: (x: Exchange) => string, request: RefusedRequest = {}): ProbeVerdict {
  if (outsideTheRequest(x.cause, request)) return errored(x.cause, x, `expected a 4xx for ${what}, got ${describeFailure(x)}`);
  const status = x.status ?? 0;
  const shape = x.errorShape ?? 'none';
  const findings: Finding[] = [note('shape', `error shape: ${shape}`)];
  let v: ProbeVerdict;
  const inBody = status >= 200 && status < 300 ? errorIn2xx(x.json) : undefined;
  if (inBody) {
    // Refused, but inside a success: neither accepted nor answered by another model, and clients read it as an answer.
    v = conformance([fail('error_in_2xx', `expected a 4xx for ${what}, got it refused inside an HTTP ${status} (${inBody}): clients read it as a success`)], '');
  } else if (status >= 200 && status < 300) {
    v = conformance([fail('accepted', on2xx ? on2xx(x) : `expected a 4xx for ${what}, got HTTP ${status}: the invalid request was accepted`)], '');
  } else if (status >= 500) {
    v = conformance([...findings, fail('server_error', `expected a 4xx for ${what}, got ${describeFailure(x)}: clients and SDKs retry 5xx`)], '');
  } else if (x.truncated) {
    // Our cap (or a body nested too deep to parse): its shape is unread, so it is never blamed on the server.
    v = inconclusive(`${what} got ${ourCut(x)}; its error shape cannot be told`);
    v.findings = findings;
  } else if (shape === 'html' || shape === 'text' || shape === 'empty') {
    const hint = shape === 'html' ? ' (an HTML page: a proxy or the wrong base URL answered)' : '';
    v = conformance([...findings, fail('not_json', `expected a JSON error envelope for ${what}, got HTTP ${status} with ${shape === 'empty' ? 'an empty body' : `${shape}${hint}`}`)], '');
  } else if (shape !== 'openai') {
    v = conformance([...findings, warn('shape', `expected the {"error":{"message":…}} envelope for ${what}, got HTTP ${status} in the ${shape} shape`)], '');
  } else {
    v = conformance(findings, `HTTP ${status} with the OpenAI error envelope: ${x.errorMessage ?? ''}`.trim());
  }
  if (x.status !== undefined) v.status = x.status;
  if (x.errorMessage) v.message = x.errorMessage;
  return v;
}
