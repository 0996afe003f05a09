import type { HttpRequest } from '../http/client.js';
import type { Exchange } from '../engine/exchange.js';

export type { Meter, Reading } from '../engine/meter.js';

/**
 * Where a gateway shows what the calling key has spent. Each reader turns one answer into a single
 * number that only grows as calls are billed ("used"), in the gateway's own unit. Only that number is
 * kept: these answers also carry key labels and budgets, which chatprobe neither needs nor stores.
 */
export interface MeterKind {
  kind: 'new-api' | 'openrouter' | 'litellm' | 'one-api';
  /** The route, as sent (below the base URL, or below its origin). */
  request: Pick<HttpRequest, 'path' | 'fromOrigin'>;
  /** What `used` counts. */
  unit: string;
  /**
   * The smallest step the number moves by, when the gateway rounds every deduction to one (new-api bills
   * whole quota units); 0 for amounts in exact fractions of a dollar.
   */
  step: number;
  /** Reads one answer: the amount used so far, or why the answer is not this meter. */
  read(json: unknown): number | string;
}

const obj = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Tried in this order; the first that answers 200 with its shape is the run's meter. */
export const METERS: readonly MeterKind[] = [
  {
    // new-api: {"code":true,"data":{"object":"token_usage","total_used":12345,"total_available":…,"unlimited_quota":false}}
    kind: 'new-api',
    request: { path: '/api/usage/token', fromOrigin: true },
    unit: 'quota units',
    step: 1,
    read(json) {
      const used = num(obj(obj(json)?.data)?.total_used);
      return used ?? 'no data.total_used number';
    },
  },
  {
    // OpenRouter: {"data":{"label":"sk-or-v1-…","usage":0.1015,"limit":5,…}}, in US dollars.
    kind: 'openrouter',
    request: { path: '/key' },
    unit: 'USD',
    step: 0,
    read(json) {
      const used = num(obj(obj(json)?.data)?.usage);
      return used ?? 'no data.usage number';
    },
  },
  {
    // LiteLLM: {"key":"…","info":{"spend":0.0123,"max_budget":null,…}}, in US dollars.
    kind: 'litellm',
    request: { path: '/key/info', fromOrigin: true },
    unit: 'USD',
    step: 0,
    read(json) {
      const used = num(obj(obj(json)?.info)?.spend);
      return used ?? 'no info.spend number';
    },
  },
  {
    // one-api (and new-api): {"object":"list","total_usage":123.4}, in US cents; one-api bills whole quota
    // units of 1/500,000 USD by default, so it moves by 0.0002 cents at least.
    kind: 'one-api',
    request: { path: '/dashboard/billing/usage' },
    unit: 'US cents',
    step: 0.0002,
    read(json) {
      const used = num(obj(json)?.total_usage);
      return used ?? 'no total_usage number';
    },
  },
];

/** What one meter's answer says: the amount used, or why it is not an answer of this meter. */
export function readMeter(kind: MeterKind, x: Exchange): number | string {
  if (x.status !== 200) return x.status === undefined ? `no answer (${x.transport?.message ?? x.cause ?? 'no response'})` : `HTTP ${x.status}`;
  if (x.json === undefined) return 'not JSON';
  return kind.read(x.json);
}

/** The route as a person would type it after the host. */
export function routeOf(kind: MeterKind, basePath: string): string {
  const under = kind.request.fromOrigin ? basePath.replace(/\/v1$/, '') : basePath;
  return `GET ${under}${kind.request.path}`;
}
