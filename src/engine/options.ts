import type { Secret } from '../boundary/secrets.js';

/**
 * The options of a run, resolved: what the engine, the pipeline and the reports read. config/options.ts
 * makes them from the flags, the config file and the environment; a program may make them itself.
 */
export interface ResolvedOptions {
  baseUrl: string;
  apiKey: string | undefined;
  apiKeyEnv: string;
  headers: Record<string, string>;
  models: string[];
  probes: string[];
  out: string;
  concurrency: number;
  timeoutMs: number;
  allowUnlisted: boolean;
  strict: boolean;
  requireAuth: boolean;
  samples: number;
  retries: number;
  rpm: number | undefined;
  maxDurationMs: number | undefined;
  baseline: string | undefined;
  updateBaseline: boolean;
  shard: { index: number; count: number } | undefined;
  /** Audit quota deduction when a balance route answers (the billing probes). */
  billing: boolean;
  /** The price list each billed call's deduction is compared with (--prices), read and checked. */
  prices?: PriceList | undefined;
  dryRun: boolean;
  json: boolean;
  quiet: boolean;
  /** Secrets to redact besides the key: credentials in the URL, values of secret-looking headers, credentials inside other header values. */
  secrets: Secret[];
}

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
}
