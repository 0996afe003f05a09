import type { Secret } from '../boundary/secrets.js';
import type { SpendingCaps } from './budget.js';
import type { Tier } from '../results/model.js';
import type { PriceList } from './prices.js';

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
  /** Files of the user's own probes (--probe-file), as given: pipeline/user-probes.ts loads them. */
  probeFiles: string[];
  /** --tier: the probes of that tier (engine/plan.ts selectProbes); none given: the default tier, or what --probes names. */
  tier: Tier | undefined;
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
  /** --max-requests, --max-tokens and their per-model forms (engine/budget.ts): the caps given. */
  caps: SpendingCaps;
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
