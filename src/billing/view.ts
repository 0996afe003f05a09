import type { ModelBilling } from '../results/model.js';
import type { MeteredLabel, MeteredSet } from './set.js';
import { attribution, latenessOf } from './settle.js';
import { priceCall } from './prices.js';
import { pricedAsOther } from './priced-as.js';

/** The set as the report keeps it: numbers and call ids, no bodies. */
export function billingView(set: MeteredSet | undefined): ModelBilling | undefined {
  if (!set) return undefined;
  const unattributed = set.unmeasurable || set.unbilled ? new Map<MeteredLabel, string>() : attribution(set);
  const other = set.unmeasurable || set.unbilled ? undefined : pricedAsOther(set);
  const view: ModelBilling = {
    unit: set.meter.unit,
    calls: set.calls.map((c) => {
      const call: ModelBilling['calls'][number] = { call: c.label, evidence: c.x.attempts, limit: c.limit, deducted: c.deducted };
      if (c.x.status !== undefined) call.status = c.x.status;
      if (c.x.usage) {
        call.promptTokens = c.x.usage.promptTokens;
        call.completionTokens = c.x.usage.completionTokens;
      }
      // Whole milliseconds (the times are performance.now()'s); a charge shown at the first read, at once.
      if (c.lagMs !== undefined) call.lagMs = c.atOnce ? 0 : Math.round(c.lagMs);
      const why = unattributed.get(c.label);
      if (why) call.unattributed = why;
      const priced = set.prices && set.model !== undefined ? priceCall(set.prices, set.model, c, set.meter) : undefined;
      if (priced && 'expected' in priced) {
        call.listed = priced.expected;
        if (other !== undefined && !priced.matches) call.pricedAs = [other];
      }
      return call;
    }),
  };
  if (set.quiet) view.settlement = { quietMs: Math.round(set.quiet.ms), lateMs: Math.round(latenessOf(set)) };
  if (set.prices) view.prices = set.prices.from;
  if (set.unmeasurable) view.unmeasurable = set.unmeasurable;
  if (set.unbilled) view.unbilled = set.unbilled;
  return view;
}
