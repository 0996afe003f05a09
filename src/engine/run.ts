import { HttpClient } from '../http/client.js';
import type { ResolvedOptions } from './options.js';
import { startRun } from '../results/head.js';
import { ENDPOINT, type CallRecord, type ProbeResult, type Report } from '../results/model.js';
import { compareDeclared } from '../results/declared.js';
import { CallLog, WALL_CLOCK, type CallClock, type CallRecorder, type Transport } from './calls.js';
import type { RunScope } from './cell.js';
import { probeInfo } from './cell-result.js';
import { capFits, costOfInterface, costOfPlan, costOfTiers, type PlanSummary } from './cost.js';
import { billingNote, discover } from './discover.js';
import { LoopLag, type LagSource } from './lag.js';
import { shardPlan, type Plan, type PlannedModel } from './plan.js';
import type { ProbeDefinition, ProbeOptions } from './probe.js';
import type { RecordedCall } from './recorded-call.js';
import { runPlan } from './schedule.js';
import { RunStop } from './stop.js';
import { Budget, CapCounter, type BudgetDecisions, type CapReached, type CapWarning } from './budget.js';

/** What stopped a run before its end, as its record keeps it. */
export type RunStopCause = 'interrupted' | 'deadline' | 'budget';

/**
 * An audit from the top: open the session, discover (GET /models, the plan, the balance route), run the
 * plan's cells (engine/schedule.ts), and shape the report; or, for --dry-run, price the plan (planAudit).
 */

export type { PlanSummary } from './cost.js';

export interface AuditHooks {
  /** Called after each result, for progress lines; `inFlight`: calls holding a slot (at most --concurrency), `queued`: calls waiting for one. */
  onResult?(result: ProbeResult, done: number, total: number, inFlight: number, queued: number): void;
  onPlan?(models: readonly PlannedModel[], probes: readonly ProbeDefinition[]): void;
  /** Each call as it completes, with its bodies (capped): the CLI records them in exchanges.har. */
  onCall?(call: RecordedCall): void;
  /** A spending cap at WARN_SHARE of its limit (engine/budget.ts): once a cap, as the request that brings it there is sent. */
  onNearCap?(warning: CapWarning): void;
}

/**
 * The options of a run, and the models a baseline expects: a name among them that GET /models no longer
 * lists is left to the judgement (a missing model, a regression), never refused as a typo. `hasKey`: whether
 * the run had a key, where the options cannot say (a replay holds no key: record/replay.ts).
 */
export type AuditOptions = ResolvedOptions & { expectedModels?: ReadonlySet<string> | undefined; hasKey?: boolean };

/**
 * Where a run meets the world, when that is not the network, the clock and its own timer: the replay of a
 * recorded run (record/replay.ts) answers each call from the record, with the recorded times and lag and
 * no waits, and stops where the record says the run stopped; a recorder (record/recorder.ts) keeps what
 * the judgements read.
 */
export interface RunSeams {
  transport?: Transport;
  clock?: CallClock;
  lag?: LagSource;
  /** Fires where --max-duration ran out, instead of the run's own timer. */
  deadline?: AbortSignal;
  /** Which requests a spending cap refuses, instead of counting them: a replay's are the recorded run's. */
  budget?: BudgetDecisions;
  recorder?: RunRecorder;
}

/** What keeps a run's record: its calls, its loop lag as the judgements asked for it, and where it stopped. */
export interface RunRecorder extends CallRecorder {
  /** The run's lag, answered by `lag` and recorded. */
  watch(lag: LoopLag): LagSource;
  /** The run was stopped (Ctrl-C, SIGTERM, --max-duration, a whole-run spending cap) now: after the calls recorded so far. */
  stopped(cause: RunStopCause): void;
  /** The run's clock, each wait's end recorded (where it came among the answers). */
  clock(base: CallClock): CallClock;
}

export interface AuditRun {
  report: Report;
  trace: CallRecord[];
  /** With --max-duration: when (performance.now()) the run must be over, reports written. */
  endBy?: number;
  /** With --max-duration: the part of it kept for judging and writing the reports (writeReserveMs). */
  reserveMs?: number;
}

/**
 * The connection an audit (or a dry run) talks through: the client (or `transport`) and the call log.
 * `signal` cuts the calls in flight (Ctrl-C, --max-duration); `sending` stops sending more (those, and a
 * whole-run spending cap).
 */
function openSession(options: ResolvedOptions, signal?: AbortSignal, seams: RunSeams = {}, sending = signal): { client: Transport; log: CallLog } {
  const client = seams.transport ?? new HttpClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    keyVar: options.apiKeyEnv,
    headers: options.headers,
    timeoutMs: options.timeoutMs,
    connections: options.concurrency,
    ...(signal ? { signal } : {}),
  });
  const log = new CallLog(client, sending, { retries: options.retries, rpm: options.rpm, concurrency: options.concurrency }, options.shard ? `s${options.shard.index}c` : 'c');
  log.clock = seams.clock ?? seams.recorder?.clock(WALL_CLOCK) ?? WALL_CLOCK;
  log.recorder = seams.recorder;
  return { client, log };
}

/** --dry-run: GET /models, the plan and its cost; nothing is sent but those GETs and the balance routes'. */
export async function planAudit(options: AuditOptions, probes: readonly ProbeDefinition[]): Promise<PlanSummary> {
  const { client, log } = openSession(options);
  try {
    const { plan: fullPlan, billing } = await discover(log, options, probes);
    // The plan of this shard, as the run would audit it.
    const plan = options.shard ? shardPlan(fullPlan, options.shard) : fullPlan;
    const cost = costOfPlan(plan, options.samples);
    const tiers = costOfTiers(probes, options.samples, 'meter' in billing);
    return { baseUrl: options.baseUrl, models: plan.models, probes: plan.probes, ...cost, billing: billingNote(billing), tiers, interface: costOfInterface(probes, options.samples), caps: capFits(options.caps, cost) };
  } finally {
    await client.close();
  }
}

/**
 * One audit: the session opened, discovery (GET /models, the plan, the balance route), the plan's cells run
 * (engine/schedule.ts), and the report made of them, not yet judged against a baseline.
 */
export async function runAudit(
  options: AuditOptions,
  probes: readonly ProbeDefinition[],
  hooks: AuditHooks = {},
  signal?: AbortSignal,
  seams: RunSeams = {},
): Promise<AuditRun> {
  const finish = startRun();
  const stop = new RunStop(options.maxDurationMs, signal, seams.deadline);
  const { client, log } = openSession(options, stop.signal, seams, stop.sending);
  log.onCall = hooks.onCall;
  // The spending caps, checked before each request (engine/budget.ts): counted here, or as the recorded run decided.
  // A whole-run cap reached stops the sending, and the record says where (a Ctrl-C after it still cuts
  // the calls in flight, and is recorded as its own stop).
  const recorder = seams.recorder;
  const caps = options.caps;
  const endpointProbes = new Set(probes.filter((p) => p.scope === 'target').map((p) => p.id));
  const overBudget = (r: CapReached) => {
    if (!stop.sending.aborted) recorder?.stopped('budget');
    stop.overBudget(r);
  };
  const budget = Object.values(caps).some((v) => v !== undefined) ? new Budget(seams.budget ?? new CapCounter(caps, hooks.onNearCap?.bind(hooks)), endpointProbes, overBudget) : undefined;
  log.budget = budget;
  // After the client's own listener: the calls the stop cuts short are recorded after it.
  if (recorder) stop.signal?.addEventListener('abort', () => recorder.stopped(stop.interrupted ? 'interrupted' : 'deadline'), { once: true });
  // Our own event loop's lateness over the run: the control for verdicts on arrival timing.
  const lag = seams.lag ?? (recorder ? recorder.watch(new LoopLag()) : new LoopLag());
  lag.start();
  try {
    const { listing, plan: fullPlan, billing } = await discover(log, options, probes);
    const plan = options.shard ? shardPlan(fullPlan, options.shard) : fullPlan;
    hooks.onPlan?.(plan.models, plan.probes);

    const results: ProbeResult[] = [];
    stop.watch(plan.models.length, () => results.length);
    const probeOptions: ProbeOptions = { strict: options.strict, requireAuth: options.requireAuth, samples: options.samples, hasKey: options.hasKey ?? Boolean(options.apiKey) };
    if (options.prices) probeOptions.prices = options.prices;
    const stopped = (model?: string) => stop.stopped() ?? budget?.stopped(model);
    const planned = new Set(plan.probes.flatMap((p) => (p.cost.shared ?? []).map((s) => s.key)));
    const scope: RunScope = { log, lag, listing, meter: 'meter' in billing ? billing.meter : undefined, options: probeOptions, planned, stopped };
    const models = await runPlan(plan, scope, { concurrency: options.concurrency, samples: options.samples, stopSignal: stop.sending, onResult: hooks.onResult?.bind(hooks) }, results);
    const reached = budget?.summary() ?? [];

    const report: Report = {
      ...finish(options, stop.interrupted),
      ...(stop.ranOut ? { maxDurationReached: true } : {}),
      ...(reached.length > 0 ? { budgetReached: reached } : {}),
      ...(options.shard ? { shard: { ...options.shard, allModels: fullPlan.models.map((m) => m.id) } } : {}),
      options: {
        concurrency: options.concurrency,
        timeoutMs: options.timeoutMs,
        modelFilter: options.models,
        probeFilter: options.probes,
        strict: options.strict,
        requireAuth: options.requireAuth,
        samples: options.samples,
        ...(options.tier ? { tier: options.tier } : {}),
      },
      billing: billingNote(billing),
      models,
      probes: plan.probes.map(probeInfo),
      // Declared against observed: a /models entry's claims beside the verdicts (results/declared.ts).
      results: compareDeclared(models, inPlanOrder(results, plan)),
      calls: log.sent,
    };
    return { report, trace: log.trace, ...stop.budget() };
  } finally {
    lag.stop();
    stop.clear();
    await client.close();
  }
}

/** The cells in the plan's order: the endpoint row first, then each model's, each in the probes' order. */
function inPlanOrder(results: ProbeResult[], plan: Plan): ProbeResult[] {
  const modelOrder = new Map<string, number>([[ENDPOINT, -1], ...plan.models.map((m, i) => [m.id, i] as const)]);
  const probeOrder = new Map(plan.probes.map((p, i) => [p.id, i]));
  const rank = new Map(results.map((r) => [r, modelOrder.get(r.model)! * probeOrder.size + probeOrder.get(r.probe)!]));
  return results.sort((a, b) => rank.get(a)! - rank.get(b)!);
}
