import { HttpClient, type HttpRequest } from '../http/client.js';
import type { ResolvedOptions } from '../config/options.js';
import { startRun } from '../results/head.js';
import { ENDPOINT, type CallRecord, type ModelEntry, type ProbeResult, type Report } from '../results/model.js';
import { EVERY_PROBE, rowAsResult } from '../results/view.js';
import { clip } from '../boundary/text.js';
import { CallLog, WALL_CLOCK, type CallClock, type CallRecorder, type Transport } from './calls.js';
import { CAUSES } from '../results/causes.js';
import { billingNote, discover } from './discover.js';
import type { Exchange, StreamExchange } from './exchange.js';
import { shardPlan, type PlannedModel } from './plan.js';
import { costOfPlan, type PlanSummary } from './cost.js';
import { resolveCost, type ChatBody, type ChatOptions, type ProbeContext, type ProbeDefinition, type ProbeVerdict, type SharedExchange } from './probe.js';
import { answerProblem, describeFailure } from './verdicts.js';
import { errorIn2xx } from '../wire/completion.js';
import { assertLimited, ModelCaller, RowStalled, type CallObserver } from './requests.js';
import { compareDeclared } from '../results/declared.js';
import type { Meter } from './meter.js';
import type { RecordedCall } from './recorded-call.js';
import { ReadyQueue } from './queue.js';
import { describeRoom, noteRoom } from './room.js';
import { LoopLag, type LagSource } from './lag.js';
import { distinct, MAX_MESSAGE, probeInfo, result, rowResult, withErrorBodies } from './cell-result.js';
import { recordTimes, streamMetrics, type StreamTimes } from './stream-metrics.js';

export type { BillingPlan } from './discover.js';
export type { PlanSummary } from './cost.js';
export { shardPlan } from './plan.js';

export interface AuditHooks {
  /** Called after each result, for progress lines; `inFlight`: calls holding a slot (at most --concurrency), `queued`: calls waiting for one. */
  onResult?(result: ProbeResult, done: number, total: number, inFlight: number, queued: number): void;
  onPlan?(models: readonly PlannedModel[], probes: readonly ProbeDefinition[]): void;
  /** Each call as it completes, with its bodies (capped): the CLI records them in exchanges.har. */
  onCall?(call: RecordedCall): void;
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
  recorder?: RunRecorder;
}

/** What keeps a run's record: its calls, its loop lag as the judgements asked for it, and where it stopped. */
export interface RunRecorder extends CallRecorder {
  /** The run's lag, answered by `lag` and recorded. */
  watch(lag: LoopLag): LagSource;
  /** The run was stopped (Ctrl-C, SIGTERM, --max-duration) now: after the calls recorded so far. */
  stopped(cause: 'interrupted' | 'deadline'): void;
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
 * The part of --max-duration kept for judging and writing the reports, so that the whole run, reports
 * included, ends within it: a second, 0.25 ms a model and 0.15 ms a cell judged so far, never more than half
 * of it. Measured on a busy 2-core machine under a 320 MB heap: 100,000 models (most not reached) took
 * 12–25 s to judge and write, 2,500 models with 64,000 cells about 8 s for report.json and the console
 * alone. A file that still does not fit is left out and said (report/write.ts).
 */
export function writeReserveMs(maxMs: number, models: number, cells: number): number {
  return Math.round(Math.min(maxMs / 2, 1000 + 0.25 * models + 0.15 * cells));
}

/** How often the run checks whether the time left is down to what writing the reports needs. */
const RESERVE_CHECK_MS = 200;


/**
 * Probes run at once per request slot: a probe waiting on a shared exchange or between two calls holds no
 * slot, and enough others are ready to fill it.
 */
const PROBES_PER_SLOT = 4;

/**
 * The longest chain of requests a probe may wait on: its own requests and those of the shared exchanges
 * it may start. Ready probes are taken longest first, so a run does not end on one model's long chain.
 */
export function chainOf(p: ProbeDefinition, samples: number): number {
  return resolveCost(p.cost, samples).requests + (p.cost.shared ?? []).reduce((n, s) => n + resolveCost(s.cost, samples).requests, 0);
}

interface ModelState {
  plan: PlannedModel;
  /** Position in the plan. */
  order: number;
  entry: ModelEntry;
  smoke: Exchange | undefined;
  /** Its smoke call has answered (or it has none): whether it is probed is known. */
  settled: boolean;
  /** Why no probe runs on this model, if none does. */
  stopped: ProbeVerdict | undefined;
  shared: Map<string, { value: Promise<unknown>; calls: string[] }>;
  /** What the stream metrics need, as numbers: the exchanges themselves are let go when their probe ends. */
  streams: StreamTimes;
  /** Probes of this model still to finish; at 0 its shared exchanges and smoke answer are released. */
  pending: number;
  caller: ModelCaller;
}

/** The connection an audit (or a dry run) talks through: the client (or `transport`) and the call log. */
function openSession(options: ResolvedOptions, signal?: AbortSignal, seams: RunSeams = {}): { client: Transport; log: CallLog } {
  const client = seams.transport ?? new HttpClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    keyVar: options.apiKeyEnv,
    headers: options.headers,
    timeoutMs: options.timeoutMs,
    connections: options.concurrency,
    ...(signal ? { signal } : {}),
  });
  const log = new CallLog(client, signal, { retries: options.retries, rpm: options.rpm, concurrency: options.concurrency }, options.shard ? `s${options.shard.index}c` : 'c');
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
    const { perArea, endpoint, perModel, total, reasoningRoom } = costOfPlan(plan, options.samples);
    return { baseUrl: options.baseUrl, models: plan.models, probes: plan.probes, perArea, endpoint, perModel, total, billing: billingNote(billing), reasoningRoom };
  } finally {
    await client.close();
  }
}

export async function runAudit(
  options: AuditOptions,
  probes: readonly ProbeDefinition[],
  hooks: AuditHooks = {},
  signal?: AbortSignal,
  seams: RunSeams = {},
): Promise<AuditRun> {
  const finish = startRun();
  const began = performance.now();
  // --max-duration ends the run like Ctrl-C does, calls in flight included; the cells it leaves say which.
  // It covers writing the reports too: probing stops once the time left is what writing them needs
  // (writeReserveMs, which grows with the plan's models and the cells judged so far).
  const maxMs = options.maxDurationMs;
  // A replay's deadline fires where the record says (seams.deadline), not by this run's clock.
  const deadlineController = maxMs && !seams.deadline ? new AbortController() : undefined;
  let size = { models: 0, cells: () => 0 };
  let reserveMs = 0;
  const check = () => {
    reserveMs = writeReserveMs(maxMs!, size.models, size.cells());
    if (performance.now() >= began + maxMs! - reserveMs) {
      clearInterval(checker);
      // A TimeoutError: the calls it cuts short say "--max-duration ran out" (http/client.ts stopFailure).
      deadlineController!.abort(new DOMException('--max-duration', 'TimeoutError'));
    }
  };
  const checker = deadlineController ? setInterval(check, RESERVE_CHECK_MS) : undefined;
  const timer = deadlineController ? { signal: deadlineController.signal, clear: () => clearInterval(checker) } : undefined;
  const deadline = seams.deadline ?? timer?.signal;
  const stopSignal = deadline && signal ? AbortSignal.any([signal, deadline]) : (deadline ?? signal);
  const { client, log } = openSession(options, stopSignal, seams);
  log.onCall = hooks.onCall;
  const recorder = seams.recorder;
  // After the client's own listener: the calls the stop cuts short are recorded after it.
  if (recorder) stopSignal?.addEventListener('abort', () => recorder.stopped(signal?.aborted ? 'interrupted' : 'deadline'), { once: true });
  // Our own event loop's lateness over the run: the control for verdicts on arrival timing.
  const lag = seams.lag ?? (recorder ? recorder.watch(new LoopLag()) : new LoopLag());
  lag.start();
  /** Why no more cells run, once the run is being stopped: a cell finished after this is "not run". */
  const stopped = (): ProbeVerdict | undefined => {
    if (signal?.aborted) return { verdict: 'error', cause: 'interrupted', notRun: true, observed: 'not run: the run was interrupted (Ctrl-C, SIGTERM or SIGHUP) before this cell finished' };
    if (deadline?.aborted) return { verdict: 'error', cause: 'deadline', notRun: true, observed: `not run: --max-duration (${options.maxDurationMs! / 1000} s) ran out before this cell finished` };
    return undefined;
  };
  try {
    const { listing, plan: fullPlan, billing } = await discover(log, options, probes);
    const plan = options.shard ? shardPlan(fullPlan, options.shard) : fullPlan;
    hooks.onPlan?.(plan.models, plan.probes);
    const modelProbes = plan.probes.filter((p) => p.scope !== 'target');
    const targetProbes = plan.probes.filter((p) => p.scope === 'target');
    // Probes scheduled `alone` (the billing probes) run last, one model at a time, with nothing else in flight (phase 2).
    const meter = 'meter' in billing ? billing.meter : undefined;
    const aloneProbes = modelProbes.filter((p) => p.schedule === 'alone');
    const freeProbes = modelProbes.filter((p) => p.schedule !== 'alone').map((p) => ({ p, chain: chainOf(p, options.samples) }));
    const total = plan.models.length * modelProbes.length + targetProbes.length;
    const results: ProbeResult[] = [];
    size = { models: plan.models.length, cells: () => results.length };
    if (deadlineController && !deadline!.aborted) check();
    let done = 0;
    const emit = (r: ProbeResult) => {
      results.push(r);
      hooks.onResult?.(r, ++done, total, log.inFlight, log.queued);
    };
    const states = plan.models.map((m, order): ModelState => {
      const state: ModelState = {
        plan: m,
        order,
        entry: { id: m.id, listed: m.listed },
        smoke: undefined,
        settled: false,
        stopped: undefined,
        shared: new Map(),
        streams: { count: 0, ttft: [], gaps: [], cps: [] },
        pending: 0,
        caller: new ModelCaller(log, m.id),
      };
      if (m.entry?.ownedBy) state.entry.ownedBy = m.entry.ownedBy;
      if (m.entry?.declared) state.entry.declared = m.entry.declared;
      if (!m.call) {
        state.entry.cause = 'model_not_listed';
        state.entry.advice = m.closest && m.closest.length > 0 ? `${CAUSES.model_not_listed.advice}; closest listed: ${m.closest.join(', ')}` : CAUSES.model_not_listed.advice;
        state.stopped = { verdict: 'error', cause: 'model_not_listed', observed: 'not run: the model is not listed by GET /models' };
      }
      return state;
    });

    const probeOptions: ProbeContext['options'] = { strict: options.strict, requireAuth: options.requireAuth, samples: options.samples, hasKey: options.hasKey ?? Boolean(options.apiKey) };
    const scope: RunScope = { log, lag, listing, meter, options: probeOptions };

    const runProbe = async (p: ProbeDefinition, state: ModelState, resultModel: string) => {
      const evidence: string[] = [];
      // Begun once the run was stopped, a cell sends nothing: judged from what is in hand (its model's
      // smoke call, the model list), else not run.
      const ctx = new CellContext(scope, p, state, evidence, stopped() !== undefined);
      const t = performance.now();
      let verdict: ProbeVerdict;
      let threw = false;
      try {
        verdict = await p.run(ctx);
      } catch (err) {
        threw = true;
        if (err instanceof RowStalled) {
          for (const id of err.calls) evidence.push(id);
          verdict = { verdict: 'error', cause: 'timeout', notRun: true, observed: `not run: ${err.message}` };
        } else {
          // The message only: a stack trace carries local install paths into reports that CI publishes.
          const e = err as Error;
          verdict = { verdict: 'error', cause: 'harness', observed: clip(`chatprobe failed inside this probe (a bug: please report it): ${e?.name ?? 'Error'}: ${e?.message ?? String(err)}`, 1000) };
        }
      }
      // A cell whose calls were cut short by Ctrl-C or the deadline says nothing about the endpoint: it was
      // not run (a baseline "refused" by an aborted call is no refusal). One that ended after the stop from
      // calls that had all answered (the smoke call alone, say) keeps its verdict: nothing of it was cut.
      const stop = stopped();
      if (stop && (threw || evidence.some((id) => log.cutByStop(id)))) verdict = stop;
      else if (verdict.verdict === 'inconclusive') {
        // An answer cut by our limit on a model that reasons (or may) says what room for reasoning it had.
        verdict = noteRoom(withErrorBodies(verdict, evidence, log), state.caller.cutShort(evidence), state.caller.room);
      }
      emit(result(resultModel, p, verdict, distinct(evidence), performance.now() - t));
      release(state);
    };

    /** Memory follows the probes in flight, not the models × probes of the run. */
    const release = (state: ModelState) => {
      if (--state.pending > 0) return;
      state.shared.clear();
      state.smoke = undefined;
    };

    /** A row that is not probed becomes one line: its smoke call failed, or the run stopped before it. */
    const stopRow = (state: ModelState, v: ProbeVerdict, evidence: string[]) => {
      state.entry.notRun = rowResult(v, evidence);
      if (!state.entry.cause && v.cause) {
        state.entry.cause = v.cause;
        state.entry.advice = CAUSES[v.cause].advice;
      }
      state.shared.clear();
      done += modelProbes.length;
      hooks.onResult?.(rowAsResult(state.entry, EVERY_PROBE)!, done, total, log.inFlight, log.queued);
    };

    // Phase 1: a lane per model. Its smoke call decides whether the row is probed, and it is the control
    // every "rejected" verdict is compared with; once it answers, that model's probes join the queue,
    // whatever the other models' smoke calls are doing. --concurrency bounds the requests in flight
    // (CallLog): more probes than that run at once, so a probe waiting for a shared exchange another
    // probe is sending leaves its slot to a request.
    //
    // The endpoint probes run once, on the first model in the plan's order whose smoke call succeeded
    // (else on the first stopped row that has a smoke answer), and go to the front of the queue as soon
    // as that model is known. Until then each callable model holds its smoke answer (`hostHolds`), and
    // the earliest stopped row keeps its own (`fallback`).
    const ready = new ReadyQueue<() => Promise<void>>();
    const probed: ModelState[] = [];
    const hostHolds: ModelState[] = [];
    let host: ModelState | undefined;
    let hostKnown = targetProbes.length === 0;
    let fallback: ModelState | undefined;
    let nextLane = 0;
    let smoking = 0;
    let notify = () => {};
    let changed = new Promise<void>((r) => (notify = r));
    const wakeAll = () => {
      notify();
      changed = new Promise<void>((r) => (notify = r));
    };

    const chooseHost = () => {
      if (hostKnown) return;
      for (const s of states) {
        if (!s.settled) return;
        if (s.smoke && !s.entry.notRun) {
          host = s;
          break;
        }
      }
      host ??= fallback;
      hostKnown = true;
      if (fallback && fallback !== host) fallback.smoke = undefined;
      if (host) {
        const h = host;
        h.pending += targetProbes.length;
        for (const p of targetProbes) ready.push(() => runProbe(p, h, ENDPOINT), Number.POSITIVE_INFINITY);
      } else {
        // No model answered anything: the endpoint probes have no host. Cut short by a stop, they say so.
        const notRun = stopped();
        if (notRun) for (const p of targetProbes) emit(result(ENDPOINT, p, notRun, [], 0));
      }
      for (const s of hostHolds.splice(0)) release(s);
    };

    /** A row with no probes to run: its smoke answer is kept only as the endpoint probes' fallback host. */
    const settleStopped = (state: ModelState, v: ProbeVerdict, evidence: string[]) => {
      stopRow(state, v, evidence);
      if (!state.smoke) return;
      if (!hostKnown && (!fallback || state.order < fallback.order)) {
        if (fallback) fallback.smoke = undefined;
        fallback = state;
      } else state.smoke = undefined;
    };

    const lane = async (state: ModelState) => {
      const notRunBefore = stopped() ?? (state.plan.call ? undefined : state.stopped);
      if (!notRunBefore) {
        smoking++;
        try {
          // No output limit on its first try: it is the plain request, and it shows whether the model
          // stops on its own (ModelCaller.smoke).
          const smoke = await state.caller.smoke(stopSignal);
          state.smoke = smoke;
          state.entry.smoke = { durationMs: smoke.durationMs, evidence: smoke.callId };
          if (state.caller.runaway) state.entry.smoke.runaway = true;
          if (smoke.status !== undefined) state.entry.smoke.status = smoke.status;
          if (!smoke.ok) state.entry.smoke.message = clip(describeFailure(smoke), MAX_MESSAGE);
          // An error inside a 2xx is no answer, though nothing stops the row: doctor says it (cli/doctor.ts).
          else if (errorIn2xx(smoke.json)) state.entry.smoke.message = clip(answerProblem(smoke) ?? describeFailure(smoke), MAX_MESSAGE);
          // A smoke call the stop cut short (its retry's wait included) says nothing of the model.
          const cut = stopped() !== undefined && smoke.attempts.some((id) => log.cutByStop(id));
          // A cause that stops the row: nothing further is spent on that model (results/causes.ts).
          if (!cut && smoke.cause && CAUSES[smoke.cause].stopsRow) {
            state.entry.cause = smoke.cause;
            state.entry.advice = CAUSES[smoke.cause].advice;
            state.stopped = { verdict: 'error', cause: smoke.cause, observed: `not run: the smoke call failed with ${describeFailure(smoke)}` };
            if (smoke.status !== undefined) state.stopped.status = smoke.status;
          } else {
            // The room its limits get for its reasoning, for a row that is probed (engine/room.ts).
            const room = describeRoom(state.caller.room);
            if (room) state.entry.smoke.reasoningRoom = { tokens: state.caller.room.kind === 'learned' ? state.caller.room.tokens : 0, why: room };
          }
        } finally {
          smoking--;
        }
      }
      // A smoke call cut short by Ctrl-C or the deadline says nothing about the model: its cells are "not run".
      const notRun = notRunBefore ?? stopped();
      if (notRun) settleStopped(state, notRun, []);
      else if (state.stopped) settleStopped(state, state.stopped, [state.smoke!.callId]);
      else {
        probed.push(state);
        state.pending = freeProbes.length;
        if (!hostKnown) {
          state.pending++;
          hostHolds.push(state);
        }
        for (const { p, chain } of freeProbes) ready.push(() => runProbe(p, state, state.plan.id), chain);
        if (state.pending === 0) state.smoke = undefined;
      }
      state.settled = true;
      chooseHost();
      wakeAll();
    };

    // A worker opens the next model's lane when fewer probes are ready than there are workers (its smoke
    // call then overlaps the others' probes), else takes the ready probe with the longest chain (the
    // endpoint probes before all), else waits for a smoke call in flight. Models are opened as the work
    // of those before runs low, so what is held follows the work in flight, not models × probes (a run
    // of 10,000 models queues nothing ahead).
    const workers = options.concurrency * PROBES_PER_SLOT;
    const worker = async () => {
      for (;;) {
        if (nextLane < states.length && ready.size < workers) {
          await lane(states[nextLane++]!);
          continue;
        }
        const task = ready.shift();
        if (task) await task();
        else if (smoking > 0) await changed;
        else return;
      }
    };
    await Promise.all(Array.from({ length: workers }, worker));
    probed.sort((a, b) => a.order - b.order);
    // Phase 2: the probes scheduled alone (quota deduction). Serial, after everything else, so nothing but
    // the known set is billed between two reads of the balance. A row that stalled is not called again.
    for (const state of aloneProbes.length > 0 ? probed : []) {
      state.pending = Number.POSITIVE_INFINITY; // released below, once its probes are done
      for (const p of aloneProbes) {
        if (state.caller.stalled) emit(result(state.plan.id, p, { verdict: 'error', cause: 'timeout', notRun: true, observed: `not run: ${new RowStalled(state.caller.stalled).message}` }, [], 0));
        else await runProbe(p, state, state.plan.id);
      }
      state.shared.clear();
      state.smoke = undefined;
    }

    const models = states.map((s) => {
      const metrics = streamMetrics(s.streams);
      if (metrics) s.entry.metrics = metrics;
      if (s.caller.stalled) s.entry.stalled = s.caller.stalled;
      return s.entry;
    });
    const modelOrder = new Map<string, number>([[ENDPOINT, -1], ...plan.models.map((m, i) => [m.id, i] as const)]);
    const probeOrder = new Map(plan.probes.map((p, i) => [p.id, i]));
    const rank = new Map(results.map((r) => [r, modelOrder.get(r.model)! * probeOrder.size + probeOrder.get(r.probe)!]));
    results.sort((a, b) => rank.get(a)! - rank.get(b)!);

    const report: Report = {
      ...finish(options, signal?.aborted ?? false),
      ...(deadline?.aborted ? { maxDurationReached: true } : {}),
      ...(options.shard ? { shard: { ...options.shard, allModels: fullPlan.models.map((m) => m.id) } } : {}),
      options: {
        concurrency: options.concurrency,
        timeoutMs: options.timeoutMs,
        modelFilter: options.models,
        probeFilter: options.probes,
        strict: options.strict,
        requireAuth: options.requireAuth,
        samples: options.samples,
      },
      billing: billingNote(billing),
      models,
      probes: plan.probes.map(probeInfo),
      // Declared against observed: a /models entry's claims beside the verdicts (results/declared.ts).
      results: compareDeclared(models, results),
      calls: log.trace.length,
    };
    return { report, trace: log.trace, ...(maxMs ? { endBy: began + maxMs, reserveMs } : {}) };
  } finally {
    lag.stop();
    timer?.clear();
    await client.close();
  }
}

/** What every cell of a run shares: the call log, the loop's lateness, the model list and the meter. */
interface RunScope {
  log: CallLog;
  lag: LagSource;
  listing: Exchange;
  meter: Meter | undefined;
  options: ProbeContext['options'];
}

/**
 * The context a probe runs with; every call it makes goes into `evidence`. A class, its methods shared:
 * a cell's context is a few fields, not a dozen closures made for every cell of the run.
 */
/** What a call of a cell begun once the run was stopped meets: the cell is "not run", nothing sent. */
class NothingSent extends Error {
  constructor() {
    super('the run was stopped before this cell began');
  }
}

class CellContext implements ProbeContext, CallObserver {
  readonly model: string;
  readonly options: ProbeContext['options'];
  /** Only the context of a probe that declares a meter has one (declared, so other contexts have no such field at all). */
  declare readonly meter?: Meter;

  constructor(
    private readonly run: RunScope,
    private readonly p: ProbeDefinition,
    private readonly state: ModelState,
    private readonly evidence: string[],
    /** Begun once the run was stopped: every call it would send fails at once, unsent and unrecorded. */
    private readonly sendsNothing = false,
    /** The shared exchange this context makes (its key): its calls are that exchange's, not the probe's. */
    private readonly sharedKey?: string,
  ) {
    this.model = state.plan.id;
    this.options = run.options;
    const meter = run.meter;
    if (meter && p.meter) {
      this.meter = {
        ...meter,
        read: async () => {
          if (sendsNothing) throw new NothingSent();
          const r = await meter.read();
          evidence.push(r.callId);
          return r;
        },
      };
    }
  }

  /** A final exchange of this cell's: its calls are evidence, a stream's times go into the model's metrics. */
  seen(x: Exchange): void {
    if ((x as Partial<StreamExchange>).assembled) recordTimes(this.state.streams, x as StreamExchange);
    this.track(x);
  }

  private track<T extends Exchange>(x: T): T {
    for (const id of x.attempts) this.evidence.push(id);
    return x;
  }

  chat(body: ChatBody, opts?: ChatOptions): Promise<Exchange> {
    if (this.sendsNothing) return Promise.reject(new NothingSent());
    return this.state.caller.chat(body, this.p.id, this.sharedKey === undefined ? opts : { ...opts, shared: this.sharedKey }, this);
  }

  stream(body: ChatBody, opts?: ChatOptions): Promise<StreamExchange> {
    if (this.sendsNothing) return Promise.reject(new NothingSent());
    return this.state.caller.stream(body, this.p.id, this.sharedKey === undefined ? opts : { ...opts, shared: this.sharedKey }, this);
  }

  send(req: HttpRequest): Promise<Exchange> {
    if (this.sendsNothing) return Promise.reject(new NothingSent());
    try {
      assertLimited(req, this.p.id);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.run.log.send(req, this.p.id, this.model, undefined, this.sharedKey).then((x) => this.track(x));
  }

  control(): Exchange {
    return this.track(this.state.smoke!);
  }

  runaway(): Exchange | undefined {
    return this.state.caller.runaway ? this.track(this.state.caller.runaway) : undefined;
  }

  listing(): Exchange {
    return this.track(this.run.listing);
  }

  sequence<T>(fn: (inSlot: ChatOptions) => Promise<T>): Promise<T> {
    return this.run.log.sequence((slot) => fn({ slot }));
  }

  loopLagMs(from: number, to: number): number {
    return this.run.lag.worst(from, to);
  }

  shared<T>(s: SharedExchange<T>): Promise<T> {
    let entry = this.state.shared.get(s.key);
    if (!entry) {
      const calls: string[] = [];
      let value: Promise<T>;
      try {
        value = s.make(new CellContext(this.run, this.p, this.state, calls, this.sendsNothing, s.key));
      } catch (err) {
        // A make() that throws at once fails its callers as a rejected exchange would, not by a throw.
        value = Promise.reject(err);
      }
      entry = { value, calls };
      this.state.shared.set(s.key, entry);
      // What the row keeps of it once made (the metered set's deductions), read before the report is.
      const summary = s.summary;
      if (summary) value.then((v) => Object.assign(this.state.entry, summary.call(s, v)), () => undefined);
    }
    const { calls } = entry;
    return (entry.value as Promise<T>).then((value) => {
      for (const id of calls) this.evidence.push(id);
      return value;
    });
  }
}

