import { ENDPOINT, type ModelEntry, type ProbeResult } from '../results/model.js';
import { EVERY_PROBE, rowAsResult } from '../results/view.js';
import { CAUSES } from '../results/causes.js';
import { clip } from '../text.js';
import { errorIn2xx } from '../wire/completion.js';
import { keepSummaries, runCell, type CellRow, type RunScope } from './cell.js';
import { MAX_MESSAGE, result, rowResult } from './cell-result.js';
import type { Plan } from './plan.js';
import { resolveCost, type ProbeDefinition, type ProbeVerdict } from './probe.js';
import { ReadyQueue } from './queue.js';
import { ModelCaller, RowStalled } from './requests.js';
import { describeRoom } from './room.js';
import { streamMetrics } from './stream-metrics.js';
import { answerProblem, describeFailure } from './verdicts.js';

/**
 * Which cell runs when: a lane per model opened as the work in flight allows, its smoke call first; its
 * probes into the ready queue once that answers; the endpoint probes on the first model that answered;
 * and the probes scheduled `alone` (ProbeDefinition.schedule) after everything else, one model at a time.
 */

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

/** A model's row as the schedule holds it, beside what its cells read (CellRow). */
interface ModelState extends CellRow {
  /** Position in the plan. */
  order: number;
  /** Its smoke call has answered (or it has none): whether it is probed is known. */
  settled: boolean;
  /** Why no probe runs on this model, if none does. */
  stopped: ProbeVerdict | undefined;
  /** Probes of this model still to finish; at 0 its shared exchanges and smoke answer are released. */
  pending: number;
}

/** How the schedule runs: its width, the samples its chains are counted at, the stop, and progress. */
export interface ScheduleOptions {
  /** --concurrency: requests in flight (CallLog); PROBES_PER_SLOT probes a slot run at once. */
  concurrency: number;
  samples: number;
  /** Cuts a smoke call in flight short when the run is stopped. */
  stopSignal: AbortSignal | undefined;
  /** Each cell as it is judged, and a row that is not probed as one line (engine/run.ts AuditHooks). */
  onResult?(result: ProbeResult, done: number, total: number, inFlight: number, queued: number): void;
}

/**
 * Runs every cell of the plan, each result pushed to `results` as it is judged (in the order they end), and
 * returns the models' rows (their smoke calls, stream metrics, what stopped them, what their shared
 * exchanges left in them).
 */
export async function runPlan(plan: Plan, scope: RunScope, how: ScheduleOptions, results: ProbeResult[]): Promise<ModelEntry[]> {
  const log = scope.log;
  const modelProbes = plan.probes.filter((p) => p.scope !== 'target');
  const targetProbes = plan.probes.filter((p) => p.scope === 'target');
  // Probes scheduled `alone` (the billing probes) run last, one model at a time, with nothing else in flight (phase 2).
  const aloneProbes = modelProbes.filter((p) => p.schedule === 'alone');
  const freeProbes = modelProbes.filter((p) => p.schedule !== 'alone').map((p) => ({ p, chain: chainOf(p, how.samples) }));
  // Shared exchanges the alone probes read where other probes made them (ProbeDefinition.reads).
  const keptForAlone = new Set(aloneProbes.flatMap((p) => (p.reads ?? []).map((s) => s.key)));
  const total = plan.models.length * modelProbes.length + targetProbes.length;
  let done = 0;
  const emit = (r: ProbeResult) => {
    results.push(r);
    how.onResult?.(r, ++done, total, log.inFlight, log.queued);
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

  const runProbe = async (p: ProbeDefinition, state: ModelState, resultModel: string) => {
    emit(await runCell(scope, p, state, resultModel));
    release(state);
  };

  /** Memory follows the probes in flight, not the models × probes of the run; what the alone probes read stays for them. */
  const release = (state: ModelState) => {
    if (--state.pending > 0) return;
    keepSummaries(state);
    for (const key of state.shared.keys()) if (!keptForAlone.has(key)) state.shared.delete(key);
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
    how.onResult?.(rowAsResult(state.entry, EVERY_PROBE)!, done, total, log.inFlight, log.queued);
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
      const notRun = scope.stopped();
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
    const notRunBefore = scope.stopped(state.plan.id) ?? (state.plan.call ? undefined : state.stopped);
    if (!notRunBefore) {
      smoking++;
      try {
        // No output limit on its first try: it is the plain request, and it shows whether the model
        // stops on its own (ModelCaller.smoke).
        const smoke = await state.caller.smoke(how.stopSignal);
        state.smoke = smoke;
        state.entry.smoke = { durationMs: smoke.durationMs, evidence: smoke.callId };
        if (state.caller.runaway) state.entry.smoke.runaway = true;
        if (smoke.status !== undefined) state.entry.smoke.status = smoke.status;
        if (!smoke.ok) state.entry.smoke.message = clip(describeFailure(smoke), MAX_MESSAGE);
        // An error inside a 2xx is no answer, though nothing stops the row: doctor says it (cli/doctor.ts).
        else if (errorIn2xx(smoke.json)) state.entry.smoke.message = clip(answerProblem(smoke) ?? describeFailure(smoke), MAX_MESSAGE);
        // A smoke call the stop cut short (its retry's wait included) says nothing of the model.
        const cut = scope.stopped(state.plan.id) !== undefined && smoke.attempts.some((id) => log.cutByStop(id));
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
    // A smoke call cut short by Ctrl-C or the deadline, or not sent for a spending cap, says nothing about
    // the model: its cells are "not run".
    const notRun = notRunBefore ?? scope.stopped(state.plan.id);
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
  const workers = how.concurrency * PROBES_PER_SLOT;
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
  // Phase 2: the probes scheduled `alone` (billing's quota deduction), serial, after everything else, so
  // nothing but their own calls is in flight between two of their readings (of the balance: nothing but
  // the known set is billed). A row that stalled is not called again.
  for (const state of aloneProbes.length > 0 ? probed : []) {
    state.pending = Number.POSITIVE_INFINITY; // released below, once its probes are done
    for (const p of aloneProbes) {
      if (state.caller.stalled) emit(result(state.plan.id, p, { verdict: 'error', cause: 'timeout', notRun: true, observed: `not run: ${new RowStalled(state.caller.stalled).message}` }, [], 0));
      else await runProbe(p, state, state.plan.id);
    }
    keepSummaries(state);
    state.shared.clear();
    state.smoke = undefined;
  }

  return states.map((s) => {
    const metrics = streamMetrics(s.streams);
    if (metrics) s.entry.metrics = metrics;
    if (s.caller.stalled) s.entry.stalled = s.caller.stalled;
    return s.entry;
  });
}
