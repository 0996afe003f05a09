import type { Exchange } from '../engine/exchange.js';
import type { PriceList } from '../engine/prices.js';
import type { Meter } from './meter.js';

/** The shared exchange of the billing probes: the known set of calls of one model, with the balance read around each. */
export const METERED_KEY = 'billing.set';

/**
 * The known calls, in the order sent: the counting request (`plain`), the same request streamed
 * (`stream`), a request that stops far below its larger limit (`short`), and one that must be refused
 * (`failed`).
 */
export type MeteredLabel = 'plain' | 'stream' | 'short' | 'failed';

/**
 * Times are on the set's clock (billing/watch.ts): milliseconds since the quiet check's first read was
 * answered, by the recorded answer times of the reads and the calls (a replay of the run is given the same
 * readings at the same times, so it judges the same); by the waits asked, for a meter whose reads carry no
 * times.
 */
export interface MeteredCall {
  label: MeteredLabel;
  x: Exchange;
  /** The output limit it carried. */
  limit: number;
  /** How much the amount used grew between the read before it and the settled read after it. */
  deducted: number;
  /** Milliseconds after the answer until the read that showed the amount it settled at (undefined: it did not move). */
  lagMs?: number;
  /**
   * The balance showed the charge at the first read after the answer: the meter showed it at once, and
   * `lagMs` is that read's own time, no lateness of the meter's.
   */
  atOnce?: boolean;
  /** When the read its deduction is counted from was answered, just before the call was sent. */
  sentAt: number;
  /** When the call's answer came (a stream's: its end); undefined: at `sentAt` (a meter whose reads carry no times). */
  answeredAt?: number;
  /** When the read the deduction is counted to was taken: the balance had held still since `sentAt + lagMs`. */
  untilAt: number;
  /**
   * The call's tokens as the tokenizer the usage series named counts them (the prompt sent under the
   * template the smoke call showed, the answer's text), where it named one and the answer is a known text.
   */
  counted?: { prompt: number; completion: number };
}

export interface MeteredSet {
  meter: Pick<Meter, 'kind' | 'route' | 'unit' | 'step'>;
  calls: MeteredCall[];
  /** Why the calls cannot be judged (the balance moved on its own, or could not be read), or undefined. */
  unmeasurable?: string;
  /** The plain call moved nothing within the calibration window: the rest was not sent. */
  unbilled?: string;
  /** The shortest span each call was watched once the first had shown how late this meter is. */
  windowMs: number;
  /**
   * The quiet check before the first call: how long the balance was watched (`ms`), and when in that span
   * it last moved (`movedAtMs`: a charge still pending from the audit's earlier calls landed then).
   */
  quiet?: { ms: number; movedAtMs?: number };
  /** How late this run had seen the meter show charges before this set (earlier models' sets), ms. */
  knownLateMs?: number;
  /** The set before this one ended with its control read: no charge of the run's calls was still pending when this one began. */
  afterSettled?: boolean;
  /** When the control read after the last call was taken: the last call's window ends there. */
  controlAt?: number;
  /** Who counted the calls' `counted` tokens, in words: the family, and the template its prompt count takes. */
  countedBy?: string;
  /** The price list of the run (--prices), and the model the calls asked for. */
  prices?: PriceList;
  model?: string;
}
