import type { MeteredSet } from './set.js';
import { priceCall, tolerance } from './prices.js';
import { attribution } from './settle.js';

/**
 * The model of the price list the set was billed as, when its price, and nothing else, explains every
 * billed call; else undefined (the deductions are then said beside the model's own price only).
 *
 * One deduction matches some model of a long list by chance (new-api's ratio page lists hundreds, and many
 * share a price), so a model is named only when:
 * - every billed call whose deduction is its own (billing/settle.ts) costs, at that model's price, what it
 *   was billed, within the meter's step (prices.ts `exactly`), and no other model of the list comes within
 *   the looser `tolerance` of any of them: one model alone, and no rounding makes another fit;
 * - there are two calls at least, with token mixes that tell a model's prompt price from its completion
 *   price (the plain call, 21 + 16 tokens; the short one, 14 + 1);
 * - the model's own listed price times one factor does not explain the calls as well: a group ratio or a
 *   markup the list does not show is the other explanation, and a stream billed twice (its plain twin at
 *   the own price) is no call billed as another model.
 */
export function pricedAsOther(set: MeteredSet): string | undefined {
  const list = set.prices;
  if (!list || set.model === undefined) return undefined;
  const unattributed = attribution(set);
  const priced = set.calls.flatMap((c) => {
    if (unattributed.has(c.label)) return [];
    const p = priceCall(list, set.model!, c, set.meter);
    return p && 'expected' in p ? [{ c, p }] : [];
  });
  if (priced.length < 2) return undefined;
  const named = priced[0]!.p.pricedAs?.[0];
  if (named === undefined) return undefined;
  for (const { p } of priced) {
    if (p.matches || p.pricedAs?.length !== 1 || p.pricedAs[0] !== named || p.near !== 1) return undefined;
  }
  // Two token mixes at least: the same request twice (plain and stream) tells no prices apart.
  const mixes = new Set(priced.map(({ c }) => `${c.x.usage!.promptTokens}+${c.x.usage!.completionTokens}`));
  if (mixes.size < 2) return undefined;
  const first = priced[0]!;
  if (first.p.expected > 0) {
    const k = first.c.deducted / first.p.expected;
    if (priced.every(({ c, p }) => Math.abs(k * p.expected - c.deducted) <= tolerance(set.meter.step, k * p.expected, c.deducted))) return undefined;
  }
  return named;
}
