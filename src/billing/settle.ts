import type { MeteredCall, MeteredLabel, MeteredSet } from './set.js';
import { priceCall } from './prices.js';
import { CALIBRATION_MS } from './watch.js';

/**
 * Which deductions can be given to their calls, from when each read was taken: a pure function of the set
 * (no clock, no meter), so a replayed run attributes as the run did.
 *
 * A gateway that settles quota in batches (new-api with BATCH_UPDATE_ENABLED writes its counters seconds
 * after the call; LiteLLM writes spend every few seconds) shows a charge some time after its call. What
 * the balance moved between two reads is then one call's charge only if nothing else can still land
 * between them, and all of its own has:
 * - no charge of the audit's own calls (all sent before the quiet check began): the first set of a run
 *   must have watched the balance FIT times the longest lateness seen before the call, and, on a late
 *   meter, have seen a charge land in the quiet check (a batch writer's one write of everything pending) or
 *   have watched CALIBRATION_MS. A set that follows one that settled (its control read agreed) has nothing
 *   of the run's pending;
 * - none of the call before: sent FIT times the longest lateness after it;
 * - all of its own: a moved balance watched FIT times the longest lateness, an unmoved one (on a late
 *   meter) CALIBRATION_MS, the last call's until the control read.
 */

/**
 * The margin on the longest lateness seen. A meter that writes each charge a fixed time after its call
 * needs none (a lag is measured by the first read to show it, never shorter than the real one); a batch
 * writer shows each charge anywhere up to its interval after the call, and three calls' lags may all fall
 * short of that interval: half as much again covers most of it.
 */
export const FIT = 1.5;

/** The longest this run has seen the meter take to show a charge (ms): earlier sets, the quiet check, and this set's calls. */
export function latenessOf(set: MeteredSet): number {
  return Math.max(set.knownLateMs ?? 0, set.quiet?.movedAtMs ?? 0, ...set.calls.map((c) => (c.atOnce ? 0 : (c.lagMs ?? 0))));
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** When a call's answer came on the set's clock. */
const answerOf = (c: MeteredCall) => c.answeredAt ?? c.sentAt;

/** How long the set's `i`th call was watched after its answer: to its settled read, the last call's to the control read. */
export function watchedMs(set: MeteredSet, i: number): number {
  const c = set.calls[i]!;
  const last = i === set.calls.length - 1;
  return (last && set.controlAt !== undefined ? set.controlAt : c.untilAt) - answerOf(c);
}

/**
 * The calls whose deduction cannot be given to them, each with why; a call not in the map is attributed.
 * With a price list, a deduction that is exactly what the list says the call costs is the call's own
 * whatever the timing (it fits the call it is given to), unless it is as well what the list says an
 * earlier call of the set costs (`pricedOwn`).
 */
export function attribution(set: MeteredSet): Map<MeteredLabel, string> {
  const out = new Map<MeteredLabel, string>();
  const late = latenessOf(set);
  const need = FIT * late;
  if (need === 0) return out;
  const seen = `this meter has shown charges up to ${s(late)} after their call`;
  set.calls.forEach((c, i) => {
    const why = timingFault(set, c, i, need, seen);
    if (why === undefined) return;
    if (pricedOwn(set, c, i)) return;
    out.set(c.label, why);
  });
  return out;
}

function timingFault(set: MeteredSet, c: MeteredCall, i: number, need: number, seen: string): string | undefined {
  if (!set.afterSettled && c.sentAt < need) {
    return `the ${c.label} call's deduction cannot be told from a late charge: the balance had been watched ${s(c.sentAt)} before it and ${seen}, so a charge still pending from the audit's earlier calls may have landed in its window`;
  }
  if (!set.afterSettled && set.quiet?.movedAtMs === undefined && c.sentAt < CALIBRATION_MS) {
    return `the ${c.label} call's deduction cannot be told from a late charge: ${seen}, and nothing landed in the ${s(c.sentAt)} the balance was watched before it, so charges still pending from the audit's earlier calls may have landed with its own (a gateway that writes in batches writes them together)`;
  }
  const prev = set.calls[i - 1];
  if (prev && c.sentAt - answerOf(prev) < need) {
    return `the ${c.label} call's deduction cannot be told from a late charge: it was sent ${s(c.sentAt - answerOf(prev))} after the ${prev.label} call's answer and ${seen}, so the ${prev.label} call's charge may have landed in its window`;
  }
  const watched = watchedMs(set, i);
  if (c.lagMs === undefined && watched < CALIBRATION_MS) {
    return `the ${c.label} call's zero cannot be believed: it was watched ${s(watched)} and ${seen} (a gateway that writes in batches may show a charge any time up to its interval after the call), so its charge may have landed after`;
  }
  if (watched < need) {
    return `the ${c.label} call's deduction may be incomplete: it was watched ${s(watched)} and ${seen}, so more of its charge may have landed after`;
  }
  return undefined;
}

/**
 * The call's deduction is what the list says it costs, and no earlier call of the set, whose late charge
 * may be what landed in its window, costs that too. The stream is the plain request streamed: the same
 * tokens, the same price, so the plain call's charge landing late in the stream's window (the stream's own
 * never coming) matches the stream's price as well as its own charge would.
 */
function pricedOwn(set: MeteredSet, c: MeteredCall, i: number): boolean {
  const list = set.prices;
  const model = set.model;
  if (!list || model === undefined) return false;
  const priced = priceCall(list, model, c, set.meter);
  if (!priced || !('expected' in priced) || !priced.matches) return false;
  return !set.calls.slice(0, i).some((earlier) => {
    const as = priceCall(list, model, { label: earlier.label, x: earlier.x, deducted: c.deducted }, set.meter);
    return as !== undefined && 'expected' in as && as.matches;
  });
}
