import type { Exchange } from '../engine/exchange.js';
import type { Meter } from './meter.js';
import type { ModelBilling } from '../results/model.js';

/** The shared exchange of the billing probes: the known set of calls of one model, with the balance read around each. */
export const METERED_KEY = 'billing.set';

/**
 * The known calls, in the order sent: the counting request (`plain`), the same request streamed
 * (`stream`), a request that stops far below its larger limit (`short`), and one that must be refused
 * (`failed`).
 */
export type MeteredLabel = 'plain' | 'stream' | 'short' | 'failed';

export interface MeteredCall {
  label: MeteredLabel;
  x: Exchange;
  /** The output limit it carried. */
  limit: number;
  /** How much the amount used grew between the read before it and the settled read after it. */
  deducted: number;
  /** Milliseconds after the answer until the meter showed the change (undefined: it did not move). */
  lagMs?: number;
}

export interface MeteredSet {
  meter: Pick<Meter, 'kind' | 'route' | 'unit' | 'step'>;
  calls: MeteredCall[];
  /** Why the calls cannot be judged (the balance moved on its own, or could not be read), or undefined. */
  unmeasurable?: string;
  /** The plain call moved nothing within the calibration window: the rest was not sent. */
  unbilled?: string;
  /** The longest the meter was watched after a call before a zero was believed. */
  windowMs: number;
}

/** The set as the report keeps it: numbers and call ids, no bodies. */
export function billingView(set: MeteredSet | undefined): ModelBilling | undefined {
  if (!set) return undefined;
  const view: ModelBilling = {
    unit: set.meter.unit,
    calls: set.calls.map((c) => {
      const call: ModelBilling['calls'][number] = { call: c.label, evidence: c.x.attempts, limit: c.limit, deducted: c.deducted };
      if (c.x.status !== undefined) call.status = c.x.status;
      if (c.x.usage) {
        call.promptTokens = c.x.usage.promptTokens;
        call.completionTokens = c.x.usage.completionTokens;
      }
      if (c.lagMs !== undefined) call.lagMs = c.lagMs;
      return call;
    }),
  };
  if (set.unmeasurable) view.unmeasurable = set.unmeasurable;
  if (set.unbilled) view.unbilled = set.unbilled;
  return view;
}
