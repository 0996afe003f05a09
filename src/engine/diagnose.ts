import type { Cause } from '../results/model.js';
import type { TransportFailure } from '../http/client.js';

/**
 * One module turns statuses, bodies and transport failures into causes (what each cause then means is
 * results/causes.ts). Probes and reporters never match error text themselves. The wordings are the ones real servers send: OpenAI codes, new-api / one-api
 * (Chinese messages included), OpenRouter-style 402.
 */

/** What a failed call is diagnosed from. */
export interface Diagnosable {
  status: number | undefined;
  /** The error message as extracted from the body (any shape), or the raw text. */
  message: string | undefined;
  /** `error.code` / `error.type` from the body, when there is one. */
  code: string | undefined;
  transport?: { code: TransportFailure['code'] } | undefined;
}

const KEY_WORDING = /api[ _-]?key|token|令牌|unauthori[sz]ed|authenticat/i;
const QUOTA_WORDING = /insufficient_(user_)?quota|quota|额度|余额|billing|credit/i;
const GROUP_WORDING = /model_not_found|无可用渠道|该令牌无权|no available channel|channel|group|分组|not (found|exist)|does not exist|not available|no access|access to model/i;

/** The cause of a failed call, or undefined when the failure is a client error attributable to the request. */
export function diagnose(x: Diagnosable): Cause | undefined {
  if (x.transport) return x.transport.code;
  const status = x.status;
  if (status === undefined || (status >= 200 && status < 300)) return undefined;
  // Redirects are never followed (the key would go wherever the Location says): the base URL is not the API.
  if (status >= 300 && status < 400) return 'network';
  const words = `${x.code ?? ''} ${x.message ?? ''}`;
  if (status === 401) return 'auth';
  if (status === 402) return 'quota';
  if ((status === 403 || status === 429) && QUOTA_WORDING.test(words)) return 'quota';
  if (status === 403 && KEY_WORDING.test(words) && !GROUP_WORDING.test(words)) return 'auth';
  // A 404 is the model's only when it says so: a bare "404 page not found" is a wrong path, not a group.
  if ((status === 403 || status === 503 || (status === 404 && /model/i.test(words))) && GROUP_WORDING.test(words)) return 'model_not_in_group';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'upstream';
  if (status === 403) return 'auth';
  return undefined;
}
