import { z } from 'zod';
import { TRANSPORT_KINDS } from '../http/failure.js';
import { Cap } from './budget.js';
import { Fingerprint, IdentityCheck } from './identity.js';

/** The Report is the one model every writer renders from; a merged report renders like a live one. */

export const SCHEMA_VERSION = 1;

export const ProbeKind = z.enum(['capability', 'conformance']);
export type ProbeKind = z.infer<typeof ProbeKind>;

export const CapabilityVerdict = z.enum(['honoured', 'ignored', 'rejected', 'accepted']);
export const ConformanceVerdict = z.enum(['pass', 'warn', 'fail']);
export const Verdict = z.enum([...CapabilityVerdict.options, ...ConformanceVerdict.options, 'inconclusive', 'error']);
export type Verdict = z.infer<typeof Verdict>;

/**
 * Failure causes, in the order an operator checks them: the key, the model's listing, the token's group,
 * quota, then rate limits, the upstream, timeouts and the network; `harness` is our own bug.
 */
export const Cause = z.enum([
  'auth',
  'model_not_listed',
  'model_not_in_group',
  'quota',
  'rate_limited',
  'upstream',
  'timeout',
  'network',
  'harness',
  /** Not run: Ctrl-C or SIGTERM came first. */
  'interrupted',
  /** Not run: --max-duration ran out first. */
  'deadline',
  /** Not run: a spending cap (--max-requests, --max-tokens, or a per-model one) was reached first. */
  'budget',
]);
export type Cause = z.infer<typeof Cause>;

/** The probe tiers, smallest first: each holds the probes of the ones before it (engine/probe.ts). */
export const Tier = z.enum(['quick', 'default', 'extended']);
export type Tier = z.infer<typeof Tier>;

/** What a result means for a CI gate: a pure function of verdict and expectation (results/outcome.ts). */
export const Outcome = z.enum(['passed', 'failed', 'skipped', 'errored']);
export type Outcome = z.infer<typeof Outcome>;

/**
 * A result against its baseline entry: as expected, worse, better, or a cell the baseline lacks (`new`);
 * `missing`: a model the baseline expects that GET /models no longer lists.
 */
export const Comparison = z.enum(['expected', 'regression', 'improvement', 'new', 'missing']);
export type Comparison = z.infer<typeof Comparison>;

export const Finding = z.object({
  severity: z.enum(['fail', 'warn', 'info']),
  code: z.string(),
  message: z.string(),
});
export type Finding = z.infer<typeof Finding>;

export const ProbeResult = z.object({
  model: z.string(),
  probe: z.string(),
  kind: ProbeKind,
  verdict: Verdict,
  outcome: Outcome,
  /** Set when the run had a baseline. */
  comparison: Comparison.optional(),
  /** The baseline's verdict(s) for this cell. */
  expected: z.array(Verdict).optional(),
  /** "expected X, got Y", in words. */
  observed: z.string(),
  /** Call ids in trace.jsonl. */
  evidence: z.array(z.string()),
  findings: z.array(Finding).default([]),
  cause: Cause.optional(),
  /** For rejected and error: the status and message as received (redacted). */
  status: z.number().int().optional(),
  message: z.string().optional(),
  durationMs: z.number(),
  /** The probe did not run to its end: its row stalled, or the run stopped first. The cause is the row's or the run's, not this probe's. */
  notRun: z.boolean().optional(),
});
export type ProbeResult = z.infer<typeof ProbeResult>;

/**
 * A model row that was not probed (its smoke call failed, it is not listed, or the run stopped before it):
 * one result standing for every model-scope probe, so a stopped row is one line, not one per probe.
 */
export const RowResult = z.object({
  verdict: Verdict,
  outcome: Outcome,
  comparison: Comparison.optional(),
  cause: Cause.optional(),
  observed: z.string(),
  evidence: z.array(z.string()),
  status: z.number().int().optional(),
});
export type RowResult = z.infer<typeof RowResult>;

export const StreamMetrics = z.object({
  streams: z.number().int(),
  ttftMsMedian: z.number().optional(),
  gapMsMedian: z.number().optional(),
  chunksPerSecondMedian: z.number().optional(),
});

/** The known set of billing calls of one model, with what each moved the balance by (billing.* probes). */
export const ModelBilling = z.object({
  /** The unit of `deducted` (the gateway's own: quota units, USD, US cents). */
  unit: z.string(),
  calls: z.array(
    z.object({
      call: z.enum(['plain', 'stream', 'short', 'failed']),
      evidence: z.array(z.string()),
      status: z.number().int().optional(),
      limit: z.number().int(),
      promptTokens: z.number().optional(),
      completionTokens: z.number().optional(),
      /** How much the amount used grew from the read before the call to the settled read after it. */
      deducted: z.number(),
      /** Milliseconds after the answer until the balance showed it; absent: it did not move. */
      lagMs: z.number().optional(),
      /**
       * Why `deducted` is not given to this call (a charge of an earlier call may have landed in its window,
       * or more of its own after it): its probes are inconclusive. Absent: the deduction is the call's.
       */
      unattributed: z.string().optional(),
      /** What the price list (--prices) says this call costs, in `unit`, for the model asked and the tokens reported. */
      listed: z.number().optional(),
      /** The models of the price list whose price the deduction is, when it is not the model asked's. */
      pricedAs: z.array(z.string()).optional(),
    }),
  ),
  /**
   * How the balance was watched: `quietMs` with nothing sent before the calls (long enough for charges
   * still pending from the audit's calls to land), and `lateMs`, the longest the meter took to show a
   * charge after its call in this run (0: at once).
   */
  settlement: z.object({ quietMs: z.number(), lateMs: z.number() }).optional(),
  /** The price list the deductions were set beside (--prices), as given. */
  prices: z.string().optional(),
  /** Why no deduction could be given to a call (the balance moved on its own, charges arrived late). */
  unmeasurable: z.string().optional(),
  /** The first call moved nothing (a free model, or billing later than chatprobe watches): the rest was not sent. */
  unbilled: z.string().optional(),
});
export type ModelBilling = z.infer<typeof ModelBilling>;

export const ModelEntry = z.object({
  id: z.string(),
  listed: z.boolean(),
  /** Keys of the /models entry beyond id/object/created/owned_by, as listed (e.g. supported_parameters). */
  declared: z.record(z.string(), z.unknown()).optional(),
  ownedBy: z.string().optional(),
  /** Set when the model row was not probed: the smoke call failed, or the model is not listed. */
  cause: Cause.optional(),
  advice: z.string().optional(),
  smoke: z
    .object({
      status: z.number().int().optional(),
      durationMs: z.number(),
      evidence: z.string(),
      message: z.string().optional(),
      /** The uncapped first try ran past --timeout and a capped retry answered: the model does not stop on its own. */
      runaway: z.boolean().optional(),
      /**
       * The answer shows reasoning (or could not be read): the room for it added to the model's later output
       * limits (0: none, `why` says why), learnt from this call (engine/room.ts).
       */
      reasoningRoom: z.object({ tokens: z.number().int(), why: z.string() }).optional(),
    })
    .optional(),
  metrics: StreamMetrics.optional(),
  /** The calls after which nothing more was sent to the model: that many requests in a row ran past --timeout. */
  stalled: z.array(z.string()).optional(),
  /** Set when no probe ran on this model: `results` then carry no cell of it (results/view.ts expands it). */
  notRun: RowResult.optional(),
  billing: ModelBilling.optional(),
  /** What the model answered to the fingerprint's fixed prompts at temperature 0 (identity.*, results/identity.ts): compare and the baseline weigh two runs' by compareFingerprints. */
  fingerprint: Fingerprint.optional(),
});
export type ModelEntry = z.infer<typeof ModelEntry>;

export { ENDPOINT } from './endpoint.js';

export const ProbeInfo = z.object({
  id: z.string(),
  area: z.string(),
  kind: ProbeKind,
  scope: z.enum(['model', 'target']).default('model'),
  requirement: z.string(),
  cost: z.object({
    requests: z.number().int(),
    maxTokens: z.number().int(),
    sampled: z.object({ sets: z.number().int(), maxTokens: z.number().int() }).optional(),
    shared: z.array(z.string()).optional(),
  }),
});
export type ProbeInfo = z.infer<typeof ProbeInfo>;

/** What a CI script reads first: counts, regressions and the exit code the run earned (report/gate.ts). */
export const ReportSummary = z.object({
  outcomes: z.record(Outcome, z.number().int()),
  verdicts: z.record(z.string(), z.number().int()),
  comparisons: z.record(Comparison, z.number().int()),
  regressions: z.number().int(),
  /** Results the stop (Ctrl-C, --max-duration) left unrun, counted as `outcomes` counts them (a row once). */
  notRun: z.number().int().optional(),
  exitCode: z.number().int(),
});

export const Report = z.object({
  /** The JSON Schema of this file (schema/report.schema.json in the package). */
  $schema: z.string().optional(),
  schemaVersion: z.literal(SCHEMA_VERSION),
  tool: z.object({ name: z.literal('chatprobe'), version: z.string() }),
  target: z.object({
    baseUrl: z.string(),
    /** Names only: header values may carry secrets. */
    headerNames: z.array(z.string()),
  }),
  startedAt: z.string(),
  finishedAt: z.string(),
  durationMs: z.number(),
  interrupted: z.boolean().default(false),
  /** --max-duration ran out: cells not reached are errors with cause "deadline". */
  maxDurationReached: z.boolean().optional(),
  /**
   * The spending caps that refused a request (engine/budget.ts), in the order they did: a whole-run cap
   * stopped the run there, a per-model cap stopped the rows it counts (`models`). Cells not reached are
   * errors with cause "budget".
   */
  budgetReached: z.array(z.object({ cap: Cap, limit: z.number(), models: z.number().int().optional() })).optional(),
  /** The baseline compared with, and whether this run rewrote it. */
  baseline: z.object({ path: z.string(), updated: z.boolean() }).optional(),
  /** Set for one shard of a sharded run; `allModels` is the whole plan, in order, so merges keep it. */
  shard: z.object({ index: z.number().int(), count: z.number().int(), allModels: z.array(z.string()) }).optional(),
  /** Quota deduction: the balance route read (never its answer, which names the key), or why billing was not audited. */
  billing: z.union([z.object({ kind: z.string(), route: z.string(), unit: z.string() }), z.object({ off: z.string() })]).optional(),
  options: z.object({
    concurrency: z.number().int(),
    timeoutMs: z.number(),
    modelFilter: z.array(z.string()),
    probeFilter: z.array(z.string()),
    strict: z.boolean().default(false),
    requireAuth: z.boolean().default(false),
    samples: z.number().int().default(4),
    /** --tier, when given (without it: the default tier, or what --probes names). */
    tier: Tier.optional(),
  }),
  models: z.array(ModelEntry),
  probes: z.array(ProbeInfo),
  results: z.array(ProbeResult),
  /** HTTP calls sent; trace.jsonl also lists those a stop or a spending cap kept from being sent. */
  calls: z.number().int(),
  /**
   * Set by gate() when the baseline keeps fingerprints: each model's fingerprint weighed against the
   * baseline's (results/identity.ts), failed where the baseline requires `same` and did not get it.
   */
  identity: z.array(IdentityCheck).optional(),
  /** Set by gate(): a not-probed row counts once. */
  summary: ReportSummary.optional(),
});
export type Report = z.infer<typeof Report>;

/** One line of trace.jsonl: one HTTP call. */
export const CallRecord = z.object({
  id: z.string(),
  at: z.string(),
  probe: z.string(),
  model: z.string().optional(),
  method: z.string(),
  path: z.string(),
  status: z.number().int().optional(),
  durationMs: z.number(),
  ttftMs: z.number().optional(),
  requestId: z.string().optional(),
  usage: z.object({ promptTokens: z.number(), completionTokens: z.number(), totalTokens: z.number() }).optional(),
  bytes: z.number().int(),
  truncated: z.boolean().optional(),
  cause: Cause.optional(),
  error: z.string().optional(),
  /** What failed on the wire when the call got no complete answer (http/failure.ts): `error` says it in words. */
  transport: z.enum(TRANSPORT_KINDS).optional(),
  /** For a retry: the id of the first attempt, and this attempt's number (1 = first retry). */
  retryOf: z.string().optional(),
  attempt: z.number().int().optional(),
  /** How long chatprobe waited after this call before retrying it. */
  waitMs: z.number().optional(),
  /** A kept-alive connection closed under the request before any answer, which was sent again once on a
   *  new connection: the closing error. */
  resent: z.string().optional(),
  /** Rate-limit and identity headers worth keeping (x-ratelimit-*, retry-after, cf-ray, request ids). */
  headers: z.record(z.string(), z.string()).optional(),
});
export type CallRecord = z.infer<typeof CallRecord>;
