/**
 * A price list as the billing probes weigh deductions with it (billing/prices.ts reads the file): US
 * dollars per prompt token, per completion token and per call, for each model named.
 */
export interface PriceList {
  /** Where it was read from (the path as given). */
  from: string;
  /** The form it was written in: chatprobe's own, new-api's ratio settings, or new-api's GET /api/pricing answer. */
  form: 'chatprobe' | 'new-api ratios' | 'new-api pricing';
  /** The gateway's quota units to the US dollar (new-api and one-api: 500,000). */
  quotaPerUsd: number;
  /** What every price is multiplied by: new-api's group ratio of the key's group (1 elsewhere). */
  groupRatio: number;
  models: Record<string, ModelPrice>;
}

/** One model's prices, in US dollars. */
export interface ModelPrice {
  input: number;
  output: number;
  perCall: number;
  /**
   * The output price is a guess: a new-api ratio list that names no completion ratio for the model (taken
   * as 1; new-api's own built-in ratio may be higher). Billed above it is then no failure.
   */
  outputGuessed?: true;
}
