import type { HttpRequest } from '../http/client.js';
import { Tier, type Cause, type Finding, type ModelEntry, type ProbeKind, type Verdict } from '../results/model.js';
import type { Exchange, StreamExchange } from './exchange.js';
import type { Meter, MeterSource } from './meter.js';
import type { HeldSlot } from './slots.js';
import type { PriceList } from './prices.js';

/** The smoke call's prompt: one word, so the call is cheap without a token limit. */
export const SMOKE_PROMPT = 'Reply with the single word OK.';

/**
 * The limit of the smoke call's second try, sent when the first (uncapped) try did not end within
 * --timeout: a model that never stops on its own is then audited with limits instead of abandoned.
 */
export const SMOKE_RETRY_LIMIT = 16;

/** The tiers, smallest first: each holds the probes of the ones before it (ProbeDefinition.tier). */
export const TIERS = Tier.options;
export type { Tier } from '../results/model.js';

/** What the quick tier costs a model at most, its smoke call included (at the default --samples): its goal. */
export const QUICK_REQUESTS = 20;

/** What the default tier costs a model at most, its smoke call included, billing calls and all: its goal. */
export const DEFAULT_REQUESTS = 80;

/**
 * The areas of the default tier that are not the interface audit: what a model's counts, bills and
 * identity say, which other goals budget (the whole default within DEFAULT_REQUESTS).
 */
export const NOT_INTERFACE: readonly string[] = ['usage', 'billing', 'identity'];

/**
 * The interface audit's goal (issue 35): the default tier's probes but NOT_INTERFACE's, the smoke call and the
 * shared exchanges they read included, within this many requests a model whose decoding repeats (at
 * temperature 0 or with a seed); the contrasts' further answers for one that does not are priced apart
 * (BaseCost.unrepeatable). docs/verdicts.md says what each probe costs and why.
 */
export const INTERFACE_REQUESTS = 50;

/** Whether a probe runs at `tier`: its own tier is that one or a smaller one. */
export const inTier = (p: Pick<ProbeDefinition, 'tier'>, tier: Tier): boolean => TIERS.indexOf(p.tier ?? 'default') <= TIERS.indexOf(tier);

/** chatprobe's own areas, or a user probe's own (a probe file's `acme`): lowercase letters and `_`, as ids begin. */
export type Area = 'models' | 'auth' | 'errors' | 'chat' | 'streaming' | 'parameters' | 'roles' | 'reasoning' | 'usage' | 'billing' | 'identity' | (string & {});

export interface BaseCost {
  /** Requests sent at most, beyond the smoke call and the shared exchanges read. */
  requests: number;
  /** Sum of the token limits sent; a request without a limit counts its prompt's expected answer. */
  maxTokens: number;
  /**
   * Requests a refusal may send again, beyond the plan (the rest of what was sent together, without the
   * part refused; the counting request without temperature): none where the server takes what is sent.
   * The dry run adds them up as what refusals may cost on top (costBeyondPlan).
   */
  resends?: number;
  /**
   * Requests sent only to a model whose decoding is shown not to repeat (suites/support/repeat.ts): a
   * contrast's further answers, which a model that repeats at temperature 0 does not need. Beyond the plan,
   * as resends are; the dry run adds them up (costBeyondPlan).
   */
  unrepeatable?: { requests: number; maxTokens: number };
  /** Sample sets sent (each of --samples requests, growing by up to SAMPLE_GROWTH[role]), and the tokens of one sample. */
  sampled?: { sets: number; maxTokens: number; role?: keyof typeof SAMPLE_GROWTH };
}

export interface ProbeCost extends BaseCost {
  /** Shared exchanges it reads: each is paid once per model, whichever probes read it. */
  shared?: readonly SharedExchange<unknown>[];
}

/**
 * An exchange (or a set of them) several probes of a model read: sent once, by the first probe that asks,
 * and its calls count as evidence for every probe that reads it.
 */
export interface SharedExchange<T> {
  key: string;
  cost: BaseCost;
  make(ctx: ProbeContext): Promise<T>;
  /**
   * What the model's row in the report keeps of it once made, beside the cells: the metered set's
   * deductions (billing/set.ts), the fingerprint (suites/support/identity.ts). Asked once the model's
   * probes are done (engine/cell.ts keepSummaries), not when making it failed; `made` gives another shared
   * exchange of the row that arrived (never sends it), so what a summary reads of another is the same
   * whichever arrived first, in a run and in its replay.
   */
  summary?(value: T, made: <U>(s: SharedExchange<U>) => U | undefined): RowSummary;
}

/** The part of a model's row a shared exchange may fill. */
export type RowSummary = Partial<Pick<ModelEntry, 'billing' | 'fingerprint'>>;

export function defineShared<T>(s: SharedExchange<T>): SharedExchange<T> {
  return Object.freeze(s);
}

/**
 * Samples a set may grow by beyond --samples while its evidence is undecided (verdict contract, rule 6):
 * a baseline (the samples without the parameter, shared by the probes that compare with it) by two, a set
 * with the parameter not at all: the exact chance of agreement (suites/support/sampling.ts) decides three
 * agreeing samples beside four distinct ones of the baseline (1/35), and the baseline's growth, not the
 * set's, is what tells a baseline answer that happens to equal the agreed one from a peaked model.
 * Simulation in test/unit/judge-sampling.test.ts shows what these bounds buy.
 */
export const SAMPLE_GROWTH = { baseline: 2, set: 0 } as const;

/** The most samples one set holds at a given --samples. */
export const maxSamples = (samples: number, role: keyof typeof SAMPLE_GROWTH): number => samples + SAMPLE_GROWTH[role];

/** Requests and token limits of one cost at a given --samples, each sample set at its largest. */
export function resolveCost(c: BaseCost, samples: number): { requests: number; maxTokens: number } {
  const n = (c.sampled?.sets ?? 0) * maxSamples(samples, c.sampled?.role ?? 'set');
  return { requests: c.requests + n, maxTokens: c.maxTokens + n * (c.sampled?.maxTokens ?? 0) };
}

/** What a set of probes costs one model, each shared exchange counted once (the smoke call not included). */
export function costOfProbes(probes: readonly ProbeDefinition[], samples: number): { requests: number; maxTokens: number } {
  const total = { requests: 0, maxTokens: 0 };
  const shared = new Map<string, BaseCost>();
  for (const p of probes) {
    const own = resolveCost(p.cost, samples);
    total.requests += own.requests;
    total.maxTokens += own.maxTokens;
    for (const s of p.cost.shared ?? []) shared.set(s.key, s.cost);
  }
  for (const c of shared.values()) {
    const own = resolveCost(c, samples);
    total.requests += own.requests;
    total.maxTokens += own.maxTokens;
  }
  // Without the gate in the plan, the contrasts' further answers are certain: they are the plan's.
  if (!shared.has(REPEAT_GATE)) {
    const more = unrepeatableOf(probes);
    total.requests += more.requests;
    total.maxTokens += more.maxTokens;
  }
  return total;
}

/**
 * The shared exchange whose place in a plan lets the contrasts decide on one answer a side where decoding
 * repeats: parameters.temperature's decision (suites/support/sampling.ts TEMPERATURE_DECISION, read by
 * repeat.ts). A plan without it sends every contrast's further answers, and counts them.
 */
export const REPEAT_GATE = 'decoding.temperature';

/** The contrasts' further answers a set of probes may send (BaseCost.unrepeatable), each shared exchange once. */
function unrepeatableOf(probes: readonly ProbeDefinition[]): { requests: number; maxTokens: number } {
  const shared = new Map<string, BaseCost>();
  const total = { requests: 0, maxTokens: 0 };
  const add = (c: BaseCost) => {
    total.requests += c.unrepeatable?.requests ?? 0;
    total.maxTokens += c.unrepeatable?.maxTokens ?? 0;
  };
  for (const p of probes) {
    add(p.cost);
    for (const s of p.cost.shared ?? []) shared.set(s.key, s.cost);
  }
  for (const c of shared.values()) add(c);
  return total;
}

/**
 * Requests a set of probes may send beyond their plan, each shared exchange counted once: `resends`, what
 * refusals send again; `unrepeatable`, the contrasts' further answers to a model whose decoding does not
 * repeat, beyond the plan only where the plan holds the gate (REPEAT_GATE; without it costOfProbes counts
 * them). The dry run prints each beside the total.
 */
export function costBeyondPlan(probes: readonly ProbeDefinition[], reason: 'resends' | 'unrepeatable'): number {
  if (reason === 'unrepeatable') {
    const gate = probes.some((p) => (p.cost.shared ?? []).some((s) => s.key === REPEAT_GATE));
    return gate ? unrepeatableOf(probes).requests : 0;
  }
  const shared = new Map<string, number>();
  let own = 0;
  for (const p of probes) {
    own += p.cost.resends ?? 0;
    for (const s of p.cost.shared ?? []) shared.set(s.key, s.cost.resends ?? 0);
  }
  return own + [...shared.values()].reduce((a, b) => a + b, 0);
}

/** A chat request body without `model`: the context adds the model under test. */
export type ChatBody = Record<string, unknown> & { messages: unknown[] };

/** Options a probe may read. */
export interface ProbeOptions {
  /** Strict-tier schema deviations fail instead of warn. */
  strict: boolean;
  /** An endpoint that answers without a valid key fails instead of warns. */
  requireAuth: boolean;
  /** Samples per setting for sampling probes (temperature, top_p, seed). */
  samples: number;
  /** Whether a key is configured (the key itself is never given to probes). */
  hasKey: boolean;
  /** The price list deductions are compared with (--prices), when one was given. */
  prices?: PriceList;
}

/** How a probe request is sent. */
export interface ChatOptions {
  /**
   * Send the output limit under the key the body names, even where the model refuses it: for the probes
   * of the limit keys themselves. Otherwise a `max_tokens` the model refuses (reasoning models) is sent
   * as `max_completion_tokens` from then on. The limit goes as written, with no room for reasoning.
   */
  raw?: boolean;
  /**
   * Send the output limit as written, with no room for a reasoning model's reasoning added (engine/room.ts):
   * for limits a bill is compared with, or already sized for reasoning. `raw` implies it.
   */
  exact?: boolean;
  /** Send once: no second try of a 5xx (a billed call's deduction must belong to one attempt). */
  once?: boolean;
  /** The request slot a ctx.sequence() holds, for the calls made inside it. */
  slot?: HeldSlot;
}

export interface ProbeContext {
  /** The model under test; for target-scope probes, a model the smoke calls found callable. */
  readonly model: string;
  readonly options: ProbeOptions;
  /**
   * POST /chat/completions with `model` set, not streamed (the body's own `stream` is kept if given).
   * The body must carry an output limit (`max_tokens` or `max_completion_tokens`): a model that never
   * stops on its own must not stall the audit (verdict contract, rule 7). On a model whose smoke call
   * showed reasoning, the limit gets room for it (engine/room.ts) unless sent `raw` or `exact`. A 5xx is sent once more, so a
   * refusal can be told from a flaky channel (rule 8); the exchange keeps what the first try got.
   */
  chat(body: ChatBody, options?: ChatOptions): Promise<Exchange>;
  /** POST /chat/completions with `stream: true`, read as server-sent events; limited and retried like chat(). */
  stream(body: ChatBody, options?: ChatOptions): Promise<StreamExchange>;
  /** Any request, sent as it is (auth and malformed-input probes). */
  send(req: HttpRequest): Promise<Exchange>;
  /**
   * The model's smoke call: the plain request with no optional parameter, already made once per model.
   * A parameter is "rejected" only when this succeeded and the same request with the parameter did not.
   */
  control(): Exchange;
  /**
   * The smoke call's first, uncapped try when it did not end within --timeout and a capped second try
   * answered (then control() is that second try): the model does not stop on its own.
   */
  runaway(): Exchange | undefined;
  /** The GET /models exchange of discovery. */
  listing(): Exchange;
  /**
   * The calling key's balance, for a probe that declares where to find it (`ProbeDefinition.meter`), and
   * only when a balance route answered (billing/find.ts).
   */
  readonly meter?: Meter;
  /**
   * Runs `fn` with its calls sent back to back in one request slot: nothing else of the run comes between
   * them at --concurrency 1 (a server's caches then see them as a series, as seeded samples need). Only
   * for calls made directly inside: a shared exchange awaited there could wait for the slot it holds.
   */
  sequence<T>(fn: (inSlot: ChatOptions) => Promise<T>): Promise<T>;
  /**
   * The worst lateness (ms) of chatprobe's own event loop between two performance.now() times (an
   * exchange's `startedAt` plus its chunk times): the control for any judgement of arrival timing.
   */
  loopLagMs(from: number, to: number): number;
  /** A shared exchange of this model: sent by the first probe that asks; concurrent askers share the call. */
  shared<T>(s: SharedExchange<T>): Promise<T>;
  /**
   * A shared exchange of this model as another probe of the run made it, or undefined when none did: never
   * sent from here. A probe scheduled alone reads only those it declares (`reads`): the others are let go
   * before it runs.
   */
  made?<T>(s: SharedExchange<T>): Promise<T> | undefined;
  /**
   * Whether a probe of this run's plan reads the shared exchange (declares it in its cost): decided by the
   * plan, not by timing, so a replay asks the same. A probe may then read it without adding to the plan.
   */
  planned?(s: SharedExchange<unknown>): boolean;
}

/** What a probe's run decides; the engine adds ids, evidence, outcome and timing. */
export interface ProbeVerdict {
  verdict: Verdict;
  observed: string;
  findings?: Finding[];
  cause?: Cause;
  status?: number;
  message?: string;
  /** Not run to its end (the row stalled, or the run stopped): see ProbeResult.notRun. */
  notRun?: boolean;
}

export interface ProbeDefinition {
  /** Stable `area.feature[.aspect]`: JUnit name, baseline key and CLI filter. Never renumbered. */
  id: string;
  area: Area;
  kind: ProbeKind;
  /**
   * The smallest tier that runs it (tiers nest: quick, then default, then extended; --tier selects, see
   * engine/plan.ts selectProbes). `quick`: reachability, the wire and the parameters most clients send,
   * within QUICK_REQUESTS a model, each such probe deciding on its own (its shared exchanges counted);
   * `default` (when not given): the interface audit, within the per-model budget of 80 requests;
   * `extended`: run only with --tier extended, or when --probes names it (by id or glob).
   */
  tier?: Tier;
  /** `model`: once per model (default). `target`: once per endpoint (auth, malformed input, /models). */
  scope?: 'model' | 'target';
  /**
   * `alone`: after every other probe of the run, one model at a time, with nothing else in flight: for a
   * measurement any other call would disturb (the balance read around each billed call: billing/).
   * Model scope only. The model's smoke answer is let go by then: such a probe does not read ctx.control().
   */
  schedule?: 'alone';
  /**
   * Shared exchanges of other probes this one reads where they were made (ctx.made), never sending them:
   * kept for it once its model's other probes are done (a probe scheduled alone runs after that). Costs
   * nothing of its own: a run without the probes that make them reads nothing.
   */
  reads?: readonly SharedExchange<unknown>[];
  /**
   * Reads the calling key's balance (`ctx.meter`), found through this source (billing/find.ts) once a run,
   * before the plan. With no balance route that answers, or billing turned off, or --shard, the probe
   * leaves the plan and report.billing says why.
   */
  meter?: MeterSource;
  /** The normative sentence the probe checks. */
  requirement: string;
  /** The verdicts this probe can give besides `error`; the oracle test finds each in some profile. */
  verdicts: readonly Verdict[];
  cost: ProbeCost;
  run(ctx: ProbeContext): Promise<ProbeVerdict>;
}

const CAPABILITY: readonly Verdict[] = ['honoured', 'ignored', 'rejected', 'accepted', 'inconclusive'];
const CONFORMANCE: readonly Verdict[] = ['pass', 'warn', 'fail', 'inconclusive'];

const ID = /^[a-z_]+(\.[a-z0-9_]+)+$/;

export function defineProbe(def: ProbeDefinition): ProbeDefinition {
  if (!ID.test(def.id)) throw new Error(`probe id "${def.id}" is not of the form area.feature[.aspect]`);
  if (!def.id.startsWith(`${def.area}.`)) throw new Error(`probe id "${def.id}" does not start with its area "${def.area}"`);
  const allowed = def.kind === 'capability' ? CAPABILITY : CONFORMANCE;
  const stray = def.verdicts.filter((v) => !allowed.includes(v));
  if (stray.length > 0) throw new Error(`probe "${def.id}" (${def.kind}) cannot give ${stray.join(', ')}`);
  if (def.schedule === 'alone' && def.scope === 'target') throw new Error(`probe "${def.id}" runs once per endpoint: it cannot be scheduled alone per model`);
  return Object.freeze({ scope: 'model', ...def, cost: Object.freeze({ ...def.cost }) });
}
