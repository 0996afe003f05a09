import { CAUSES } from '../results/causes.js';
import { MODEL_LIST_MAX_BYTES, type HttpRequest, type TransportFailure } from '../http/client.js';
import type { ResolvedOptions } from './options.js';
import type { Report } from '../results/model.js';
import { CannotTestError } from '../errors.js';
import type { CallLog } from './calls.js';
import type { Exchange } from './exchange.js';
import type { MeterSearch, MeterSource } from './meter.js';
import { makePlan, selectProbes, type ListedModel, type Plan } from './plan.js';
import type { ProbeDefinition } from './probe.js';
import { isObject } from '../wire/json.js';
import { MAX_JSON_DEPTH, valueDepthOver } from '../wire/json-depth.js';
import { setOwn } from '../own.js';
import { describeFailure, ourCut } from './verdicts.js';

export type { ListedModel } from './plan.js';

/** Whether the billing probes run: through which meter, or why not. */
export type BillingPlan = MeterSearch;

/** The billing plan as the report says it: the balance route read (never its answer), or why none is. */
export const billingNote = (b: BillingPlan): Report['billing'] => ('meter' in b ? { kind: b.meter.kind, route: b.meter.route, unit: b.meter.unit } : { off: b.off });

/** What discovery reads of a run's options; `expectedModels`: the models a baseline expects (engine/run.ts AuditOptions). */
export type DiscoverOptions = Pick<ResolvedOptions, 'baseUrl' | 'probes' | 'tier' | 'models' | 'allowUnlisted' | 'billing' | 'shard'> & {
  expectedModels?: ReadonlySet<string> | undefined;
};

/**
 * GET /models and the plan it allows: the first thing every run does. When probes that read the balance
 * are selected (the billing probes: `ProbeDefinition.meter`), the balance routes they declare are tried
 * too (GETs, nothing billed), once GET /models has answered with a list: a key it refused, or a base URL
 * that serves no API, is sent nowhere else. Without a route that answers, or with --no-billing or --shard,
 * those probes leave the plan and the report says why. An unknown probe in --probes, or billing probes
 * alone with billing turned off, is an error before anything is sent.
 */
export async function discover(
  log: CallLog,
  options: DiscoverOptions,
  probes: readonly ProbeDefinition[],
): Promise<{ listing: Exchange; plan: Plan; billing: BillingPlan }> {
  const selected = selectProbes(probes, options.probes, options.tier);
  // The balance is looked for where the first probe that reads it says (they all read the same: billing/find.ts).
  const source = selected.find((p) => p.meter)?.meter;
  let off: string | undefined;
  if (!source) off = 'no billing probe selected';
  else if (!options.billing) off = 'turned off (--no-billing, or "billing": false in the config file)';
  else if (options.shard) off = 'not run with --shard: shards run side by side on one key, and each would bill into the readings of the others';
  if (source && off && selected.every((p) => p.meter)) throw billingCannotRun(off, source);
  const listing = await log.send({ method: 'GET', path: '/models', maxBodyBytes: MODEL_LIST_MAX_BYTES, deepJson: true }, 'discovery', undefined);
  const plan = makePlan(readModelList(listing, options.baseUrl), selected, { models: options.models, allowUnlisted: options.allowUnlisted, expected: options.expectedModels });
  // Balance reads go uncounted by the spending caps, as the plan does not count them (engine/budget.ts).
  const meterLine = { send: (req: HttpRequest, probe: string) => log.sendUncounted(req, probe), wait: (ms: number) => log.wait(ms) };
  const billing: BillingPlan = off === undefined && source ? await source.find(meterLine, options.baseUrl) : { off: off ?? 'no billing probe selected' };
  if ('off' in billing && source) {
    plan.probes = plan.probes.filter((p) => !p.meter);
    if (plan.probes.length === 0) throw billingCannotRun(billing.off, source);
  }
  return { listing, plan, billing };
}

export const billingCannotRun = (why: string, source: MeterSource) =>
  new CannotTestError(`the billing probes cannot run: ${why}`, `quota deduction is audited only through ${source.where}`);

const STANDARD_KEYS = new Set(['id', 'object', 'created', 'owned_by']);

/**
 * Reads GET /models. Anything that is not a model list stops the run with exit 2 and advice an operator
 * can act on: a 401 means the token is at fault; an HTML page means the base URL is wrong.
 */
export function readModelList(x: Exchange, baseUrl: string): ListedModel[] {
  try {
    return parseModelList(x, baseUrl);
  } catch (e) {
    // Most wrong base URLs miss the version segment: say so beside whatever went wrong.
    if (e instanceof CannotTestError && !/\/v\d+[a-z]*$/.test(baseUrl)) {
      throw new CannotTestError(e.message, `${e.advice ? `${e.advice}; ` : ''}note that the base URL does not end in /v1`);
    }
    throw e;
  }
}

/** What nginx, Caddy and others answer a plain-HTTP request sent to their TLS port. */
const PLAIN_TO_TLS = /plain HTTP request was sent to HTTPS port|client sent an HTTP request to an HTTPS server|speak(s)? HTTPS/i;

/**
 * The advice for a GET /models that got no answer, pointed where the failure's kind says: the scheme, the
 * certificate, or the generic network and timeout advice.
 */
export function transportAdvice(t: TransportFailure, baseUrl: string): string {
  // TLS spoken to a plain-HTTP port: the handshake reads an HTTP answer as a record.
  if (baseUrl.startsWith('https:') && t.kind === 'tls') return `the server speaks plain HTTP on this port: use http:// in the base URL (${baseUrl.replace(/^https:/, 'http:')})`;
  if (baseUrl.startsWith('https:') && t.kind === 'certificate') {
    return "the server's certificate is not trusted by Node: if it is signed by your own CA, point NODE_EXTRA_CA_CERTS at that CA's PEM file (chatprobe never turns certificate checks off)";
  }
  // Plain HTTP spoken to a TLS port: the server closes the connection on it.
  if (baseUrl.startsWith('http:') && t.kind === 'reset') {
    return `${CAUSES.network.advice}; if the server expects HTTPS on this port, use https:// (${baseUrl.replace(/^http:/, 'https:')})`;
  }
  return CAUSES[t.code].advice;
}

const SERVER_FAILED = 'the server, or a proxy in front of it, failed while listing its models: check the service behind the base URL, then run again';

/**
 * The advice for a GET /models answered with a failure status, pointed where the status says: a
 * redirect (never followed: the key would go with it), a route that is not there, a failing server, or
 * the cause's own advice (the key, quota, rate limits).
 */
function failedListAdvice(x: Exchange, baseUrl: string): string | undefined {
  const status = x.status ?? 0;
  if (status >= 300 && status < 400) {
    let to: URL | undefined;
    try {
      to = new URL(x.headers.location ?? '', baseUrl);
    } catch {
      to = undefined;
    }
    const from = new URL(baseUrl);
    if (to && from.protocol === 'http:' && to.protocol === 'https:' && to.hostname === from.hostname) {
      // Where it sends GET /models, less /models: its port too (HTTPS is seldom on the plain port).
      const api = to.pathname.endsWith('/models') ? `${to.origin}${to.pathname.slice(0, -'/models'.length)}` : `${to.origin}${from.pathname}`;
      return `the server sends plain HTTP to HTTPS: use https:// in the base URL (${api})`;
    }
    return 'a login page there means the base URL is a web app, not the API root (e.g. https://host/v1)';
  }
  if (status === 404 || status === 405) return 'nothing answers GET /models there: check that the base URL is the API root ending in /v1 (e.g. https://host/v1)';
  if (x.cause === 'upstream') return SERVER_FAILED;
  return x.cause ? CAUSES[x.cause].advice : undefined;
}

function parseModelList(x: Exchange, baseUrl: string): ListedModel[] {
  if (x.transport) {
    throw new CannotTestError(`GET ${baseUrl}/models failed: ${describeFailure(x)}`, transportAdvice(x.transport, baseUrl));
  }
  if (x.cause === 'auth') {
    throw new CannotTestError(`GET ${baseUrl}/models answered ${describeFailure(x)}`, CAUSES.auth.advice);
  }
  if (x.status === 400 && baseUrl.startsWith('http:') && PLAIN_TO_TLS.test(x.text)) {
    throw new CannotTestError(`GET ${baseUrl}/models answered HTTP 400: the server expects HTTPS on this port`, `use https:// in the base URL (${baseUrl.replace(/^http:/, 'https:')})`);
  }
  const looksHtml = x.contentType.includes('html') || /^\s*<(!doctype|html)/i.test(x.text);
  if (looksHtml && !(x.status !== undefined && x.status >= 300 && x.status < 400)) {
    throw new CannotTestError(
      `GET ${baseUrl}/models answered HTTP ${x.status} with an HTML page, not a model list`,
      x.status !== undefined && x.status >= 500 ? SERVER_FAILED : 'the base URL looks wrong: it should be the API root ending in /v1 (e.g. https://host/v1), not a web page',
    );
  }
  if (!x.ok) {
    throw new CannotTestError(`GET ${baseUrl}/models answered ${describeFailure(x)}`, failedListAdvice(x, baseUrl));
  }
  if (x.truncated) {
    throw new CannotTestError(`GET ${baseUrl}/models: ${ourCut(x)}`, 'a model list this large is not one chatprobe can read; check the base URL, or the gateway behind it');
  }
  const data = isObject(x.json) ? x.json.data : undefined;
  if (!Array.isArray(data)) {
    const got = x.json === undefined ? `non-JSON text (${JSON.stringify(x.text.slice(0, 60))})` : 'JSON without a "data" array';
    throw new CannotTestError(
      `GET ${baseUrl}/models did not answer a model list: got ${got}`,
      'check that the base URL is the API root ending in /v1',
    );
  }
  const seen = new Set<string>();
  const models: ListedModel[] = [];
  for (const entry of data) {
    if (!isObject(entry) || typeof entry.id !== 'string' || entry.id === '' || seen.has(entry.id)) continue;
    seen.add(entry.id);
    const extra = declaredOf(entry);
    models.push({
      id: entry.id,
      ownedBy: typeof entry.owned_by === 'string' ? entry.owned_by : undefined,
      declared: extra,
    });
  }
  return models;
}

/** Extra keys kept per /models entry: gateways declare a dozen (the output boundary shows fifty). */
export const MAX_DECLARED_KEYS = 64;

/**
 * A /models entry's keys beyond the standard four, bounded: the first MAX_DECLARED_KEYS of them, and a
 * value nested deeper than MAX_JSON_DEPTH replaced by a note of our cut (the list is parsed at any depth,
 * and nothing deeper is held anywhere else in a run).
 */
function declaredOf(entry: Record<string, unknown>): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  let n = 0;
  for (const key in entry) {
    if (!Object.hasOwn(entry, key) || STANDARD_KEYS.has(key)) continue;
    out ??= {};
    if (++n > MAX_DECLARED_KEYS) {
      setOwn(out, '…', 'more keys cut by chatprobe');
      break;
    }
    const v = entry[key];
    setOwn(out, key, valueDepthOver(v, MAX_JSON_DEPTH) ? `[nested deeper than ${MAX_JSON_DEPTH} levels: cut by chatprobe]` : v);
  }
  return out;
}

