import type { HttpRequest } from '../http/client.js';
import { ENDPOINT, type ModelEntry, type ProbeResult } from '../results/model.js';
import { clip } from '../text.js';
import type { CallLog } from './calls.js';
import type { Exchange, StreamExchange } from './exchange.js';
import type { LagSource } from './lag.js';
import type { Meter } from './meter.js';
import type { PlannedModel } from './plan.js';
import type { ChatBody, ChatOptions, ProbeContext, ProbeDefinition, ProbeOptions, ProbeVerdict, SharedExchange } from './probe.js';
import { assertLimited, RowStalled, type CallObserver, type ModelCaller } from './requests.js';
import { noteRoom } from './room.js';
import { distinct, result, withErrorBodies } from './cell-result.js';
import { recordTimes, type StreamTimes } from './stream-metrics.js';

/**
 * One cell: a probe run on one model (or, for an endpoint probe, on the model chosen to host it), with the
 * context it calls through, and its verdict made into the report's cell. Which cell runs when is
 * engine/schedule.ts's.
 */

/** What every cell of a run shares: the call log, the loop's lateness, the model list, the meter, whether the run stops. */
export interface RunScope {
  log: CallLog;
  lag: LagSource;
  listing: Exchange;
  meter: Meter | undefined;
  options: ProbeOptions;
  /** The keys of the shared exchanges the plan's probes declare (ctx.planned). */
  planned: ReadonlySet<string>;
  /**
   * Why no more cells run, once the run is being stopped (Ctrl-C, --max-duration, a whole-run spending
   * cap), or, given `model`, once that model's row was stopped by its spending cap: a cell finished after
   * this is "not run".
   */
  stopped(model?: string): ProbeVerdict | undefined;
}

/** What a cell reads and fills of its model's row. */
export interface CellRow {
  readonly plan: PlannedModel;
  entry: ModelEntry;
  /** The model's smoke call, the control of every probe (ctx.control()); let go once its probes are done. */
  smoke: Exchange | undefined;
  /** Its shared exchanges, by key: made by the first probe that asks, let go once its probes are done. */
  shared: Map<string, SharedEntry>;
  /** What the stream metrics need, as numbers: the exchanges themselves are let go when their probe ends. */
  streams: StreamTimes;
  caller: ModelCaller;
}

/** A shared exchange of a row: its value, the calls that made it, and the value once it arrived. */
export interface SharedEntry {
  def: SharedExchange<unknown>;
  value: Promise<unknown>;
  calls: string[];
  arrived?: { value: unknown };
}

/**
 * What the row keeps of its shared exchanges (SharedExchange.summary), taken once its probes are done
 * (before the exchanges are let go), each summary able to read the others that arrived: the fingerprint
 * reads the usage series so, and the order in which the two arrived changes nothing.
 */
export function keepSummaries(row: CellRow): void {
  const made = <U>(s: SharedExchange<U>): U | undefined => row.shared.get(s.key)?.arrived?.value as U | undefined;
  for (const e of row.shared.values()) if (e.arrived && e.def.summary) Object.assign(row.entry, e.def.summary(e.arrived.value, made));
}

/**
 * Runs probe `p` on `row` and makes its verdict the cell of `resultModel` (the row's model, or the endpoint
 * row for an endpoint probe): a probe that throws is the harness's fault, a stalled row's cell is not run,
 * and a cell the run's stop cut short is "not run".
 */
export async function runCell(scope: RunScope, p: ProbeDefinition, row: CellRow, resultModel: string): Promise<ProbeResult> {
  const evidence: string[] = [];
  // The row whose spending cap this cell answers to: none for an endpoint probe (engine/budget.ts).
  const own = resultModel === ENDPOINT ? undefined : row.plan.id;
  // Begun once the run (or its row) was stopped, a cell sends nothing: judged from what is in hand (its
  // model's smoke call, the model list), else not run.
  const ctx = new CellContext(scope, p, row, evidence, scope.stopped(own) !== undefined);
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
  const stop = scope.stopped(own);
  if (stop && (threw || evidence.some((id) => scope.log.cutByStop(id)))) verdict = stop;
  else if (verdict.verdict === 'inconclusive') {
    // An answer cut by our limit on a model that reasons (or may) says what room for reasoning it had.
    verdict = noteRoom(withErrorBodies(verdict, evidence, scope.log), row.caller.cutShort(evidence), row.caller.room);
  }
  return result(resultModel, p, verdict, distinct(evidence), performance.now() - t);
}

/** What a call of a cell begun once the run was stopped meets: the cell is "not run", nothing sent. */
class NothingSent extends Error {
  constructor() {
    super('the run was stopped before this cell began');
  }
}

/**
 * The context a probe runs with; every call it makes goes into `evidence`. A class, its methods shared:
 * a cell's context is a few fields, not a dozen closures made for every cell of the run.
 */
class CellContext implements ProbeContext, CallObserver {
  readonly model: string;
  readonly options: ProbeOptions;
  /** Only the context of a probe that declares a meter has one (declared, so other contexts have no such field at all). */
  declare readonly meter?: Meter;

  constructor(
    private readonly run: RunScope,
    private readonly p: ProbeDefinition,
    private readonly row: CellRow,
    private readonly evidence: string[],
    /** Begun once the run was stopped: every call it would send fails at once, unsent and unrecorded. */
    private readonly sendsNothing = false,
    /** The shared exchange this context makes (its key): its calls are that exchange's, not the probe's. */
    private readonly sharedKey?: string,
  ) {
    this.model = row.plan.id;
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
    if ((x as Partial<StreamExchange>).assembled) recordTimes(this.row.streams, x as StreamExchange);
    this.track(x);
  }

  private track<T extends Exchange>(x: T): T {
    for (const id of x.attempts) this.evidence.push(id);
    return x;
  }

  chat(body: ChatBody, opts?: ChatOptions): Promise<Exchange> {
    if (this.sendsNothing) return Promise.reject(new NothingSent());
    return this.row.caller.chat(body, this.p.id, this.sharedKey === undefined ? opts : { ...opts, shared: this.sharedKey }, this);
  }

  stream(body: ChatBody, opts?: ChatOptions): Promise<StreamExchange> {
    if (this.sendsNothing) return Promise.reject(new NothingSent());
    return this.row.caller.stream(body, this.p.id, this.sharedKey === undefined ? opts : { ...opts, shared: this.sharedKey }, this);
  }

  async send(req: HttpRequest): Promise<Exchange> {
    if (this.sendsNothing) throw new NothingSent();
    assertLimited(req, this.p.id);
    return this.track(await this.run.log.send(req, this.p.id, this.model, undefined, this.sharedKey));
  }

  control(): Exchange {
    return this.track(this.row.smoke!);
  }

  runaway(): Exchange | undefined {
    return this.row.caller.runaway ? this.track(this.row.caller.runaway) : undefined;
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
    let entry = this.row.shared.get(s.key);
    if (!entry) {
      const calls: string[] = [];
      let value: Promise<T>;
      try {
        value = s.make(new CellContext(this.run, this.p, this.row, calls, this.sendsNothing, s.key));
      } catch (err) {
        // A make() that throws at once fails its callers as a rejected exchange would, not by a throw.
        value = Promise.reject(err);
      }
      const made: SharedEntry = { def: s as SharedExchange<unknown>, value, calls };
      // Registered before any probe awaits it: arrived before the probes that read it go on, so before
      // their model's probes are done (keepSummaries).
      value.then((v) => (made.arrived = { value: v }), () => undefined);
      entry = made;
      this.row.shared.set(s.key, entry);
    }
    return this.evidenceOf(entry as { value: Promise<T>; calls: string[] });
  }

  planned(s: SharedExchange<unknown>): boolean {
    return this.run.planned.has(s.key);
  }

  made<T>(s: SharedExchange<T>): Promise<T> | undefined {
    const entry = this.row.shared.get(s.key);
    return entry ? this.evidenceOf(entry as { value: Promise<T>; calls: string[] }) : undefined;
  }

  /** A shared exchange's value, its calls made this cell's evidence once it is there. */
  private async evidenceOf<T>(entry: { value: Promise<T>; calls: string[] }): Promise<T> {
    const value = await entry.value;
    for (const id of entry.calls) this.evidence.push(id);
    return value;
  }
}
