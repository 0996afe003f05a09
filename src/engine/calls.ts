import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { stopFailure, type BodySink, type HttpRequest, type HttpResponse, type TransportFailure } from '../http/client.js';
import type { CallRecord } from '../results/model.js';
import { StreamSink, toExchange, toStreamExchange, type Exchange, type StreamExchange } from './exchange.js';
import { describeFailure } from './verdicts.js';
import { errorIn2xx } from '../wire/completion.js';
import { clip } from '../text.js';
import { isCredentialHeader, REDACTED } from '../boundary/secrets.js';
import { capBody, type RecordedCall } from './recorded-call.js';
import { Slots, type HeldSlot } from './slots.js';
import { OverBudget, type Budget } from './budget.js';
import { capText } from '../results/budget.js';

/** Headers kept in the trace: rate limits, retry hints and request ids (values redacted on output). */
const KEPT_HEADERS = new Set(['retry-after', 'cf-ray', 'x-request-id', 'x-oneapi-request-id', 'apim-request-id', 'x-ds-trace-id', 'request-id', 'openai-processing-ms', 'openai-model']);
const KEPT_HEADER_PREFIXES = ['x-ratelimit-', 'x-litellm-', 'x-openrouter-'];
/** Whether the trace keeps a header (names are lower-case). */
export const keptHeader = (name: string): boolean => KEPT_HEADERS.has(name) || KEPT_HEADER_PREFIXES.some((p) => name.startsWith(p));

/** The longest wait a Retry-After may ask for; a longer one ends the retries at once. */
export const MAX_RETRY_WAIT_MS = 30_000;

/** The answers of calls never sent (the run had stopped): made here, not by the transport. */
const UNSENT = new WeakSet<HttpResponse>();

/** Whether an answer is of a call never sent because the run had stopped. */
export const wasSent = (res: HttpResponse): boolean => !UNSENT.has(res);

/**
 * A call not sent because the run was stopped (`reason`: the stop signal's), or because it would have
 * passed a spending cap (an OverBudget: engine/budget.ts).
 */
const notSent = (reason: unknown): HttpResponse => {
  let transport: TransportFailure;
  if (reason instanceof OverBudget) {
    const { cap, limit } = reason.reached;
    transport = { code: 'budget', kind: 'stopped', message: `not sent: ${capText(reason.reached)} was reached`, cap, limit };
  } else {
    const { code, kind } = stopFailure(reason);
    const why = code === 'deadline' ? '--max-duration ran out' : 'the run was interrupted (Ctrl-C, SIGTERM or SIGHUP)';
    transport = { code, kind, message: `not sent: ${why}` } as TransportFailure;
  }
  const res: HttpResponse = { status: undefined, headers: {}, chunks: [], bytes: 0, truncated: false, cap: 0, durationMs: 0, startedAt: 0, transport };
  UNSENT.add(res);
  return res;
};

export interface CallPolicy {
  /** Retries of a 429 (rate limit), or of a 503 that says when to come back. */
  retries: number;
  /** Requests per minute at most, across the run. */
  rpm: number | undefined;
  /** Requests in flight at most (--concurrency); a call waits for a slot, a probe waiting on another holds none. */
  concurrency?: number;
}

/**
 * How long to wait before retrying, or undefined for no retry. 429 for a rate limit is retried (after
 * Retry-After, else 1 s, 2 s, 4 s …); 503 only with Retry-After; other 5xx never (an SDK would, but a
 * failing channel is what the audit must show). Quota 429s are not rate limits and are not retried.
 */
export function retryDelay(x: Exchange, attempt: number, now = Date.now()): { waitMs: number } | { stop: string } | undefined {
  const header = x.headers['retry-after'];
  const limited = x.status === 429 && x.cause === 'rate_limited';
  if (!limited && !(x.status === 503 && header !== undefined)) return undefined;
  let waitMs: number;
  if (header === undefined) waitMs = 1000 * 2 ** attempt;
  else if (/^\s*\d+(\.\d+)?\s*$/.test(header)) waitMs = Math.round(Number(header) * 1000);
  else {
    const at = Date.parse(header);
    if (Number.isNaN(at)) waitMs = 1000 * 2 ** attempt;
    else waitMs = Math.max(0, at - now);
  }
  if (waitMs > MAX_RETRY_WAIT_MS) return { stop: `Retry-After asks for ${Math.round(waitMs / 1000)} s, more than the ${MAX_RETRY_WAIT_MS / 1000} s chatprobe waits` };
  return { waitMs };
}

/**
 * --rpm as evenly spaced turns: a call's turn comes when the interval has passed since the previous turn
 * was actually taken (not since it was planned: a timer that fires late would leave the next gap short),
 * at once when it has already passed. Turns are taken one after another, so bursts are spread out too.
 */
export function turnWait(now: number, lastTaken: number, rpm: number): number {
  return Math.max(0, lastTaken + 60_000 / rpm - now);
}

/** Who asked for a call: the probe (the trace's `probe`), its model, and the shared exchange it was sent for. */
export interface CallAsk {
  probe: string;
  model: string | undefined;
  /**
   * The key of the shared exchange the call was made for (engine/probe.ts SharedExchange): whichever probe
   * of the model asked first sends it, so a replay knows the call by the exchange, not by that probe.
   */
  shared?: string;
  /**
   * A balance read (billing/): a GET a gateway does not bill, made around each billed call. The spending
   * caps do not count it, as the plan does not (engine/cost.ts): one refused would leave a billed call unmeasured.
   */
  uncounted?: true;
}

/** One attempt as its transport is given it: its id and who asked; a retry names the call it retries. */
export interface CallTag extends CallAsk {
  id: string;
  /** The first attempt's id, and this attempt's number (1 for the first retry). */
  retryOf?: string;
  attempt?: number;
}

/**
 * What a CallLog sends through: the HTTP client (http/client.ts), or the replay of a recorded run
 * (record/replay.ts), which answers each request from the record.
 */
export interface Transport {
  send(req: HttpRequest, call: CallTag): Promise<HttpResponse>;
  /** The request's headers and body as the record shows them (the key named by its variable, never held). */
  prepare(req: HttpRequest, withKey: boolean): { headers: Record<string, string>; payload: string | undefined };
  url(path: string, fromOrigin?: boolean): string;
  close(): Promise<void>;
  /**
   * The id of an attempt, for a transport that names calls itself: a replay names each request by the
   * recorded call it answers it with, so ids and evidence are the recorded run's, whatever order the
   * replay sends in. Without it, calls are numbered as they are sent.
   */
  name?(call: Omit<CallTag, 'id'>, req: HttpRequest): string;
}

/**
 * The times a CallLog reads and waits on: the wall clock and timers, or a replay's recorded times and no
 * waits (record/replay.ts).
 */
export interface CallClock {
  /** When the attempt is sent, as the trace writes it. */
  sentAt(callId: string): string;
  /** Wall-clock milliseconds when the attempt's answer came: a Retry-After date is read against it. */
  answeredAt(callId: string): number;
  /**
   * Waits `ms`; rejects once `signal` aborts. `what`: which wait, as the record knows it: `retry <id>` before
   * retrying the call <id>, `rpm` for an --rpm slot, `settle` for a balance to settle (waitKey).
   */
  wait(ms: number, signal: AbortSignal | undefined, what: string): Promise<void>;
}

export const WALL_CLOCK: CallClock = {
  sentAt: () => new Date().toISOString(),
  answeredAt: () => Date.now(),
  async wait(ms, signal) {
    if (ms > 0) await sleep(ms, undefined, { signal });
    else signal?.throwIfAborted();
  },
};

/** A wait as the record knows it: a retry's by the call it retries; the others numbered in the order they begin. */
export function waitKey(what: string, begun: Map<string, number>): string {
  if (what.includes(' ')) return what;
  const n = (begun.get(what) ?? 0) + 1;
  begun.set(what, n);
  return `${what} ${n}`;
}

/**
 * What keeps the run's record (record/recorder.ts): each attempt with its request and its answer as the
 * client read it, a stream's chunks with their times included, so the judgements can be run again offline.
 */
export interface CallRecorder {
  /** The sink a stream is read through: it keeps the chunks it is fed for the record, and feeds `sink`. */
  tee(sink: BodySink): BodySink;
  /** One attempt, answered or not sent (`teed`: the sink tee() gave it, for a stream); `wall`: answeredAt. */
  add(call: CallTag, req: HttpRequest, res: HttpResponse, teed: BodySink | undefined, at: string, wall: number): void;
}

const askOf = (probe: string, model: string | undefined, shared: string | undefined): CallAsk => (shared === undefined ? { probe, model } : { probe, model, shared });

/** An attempt's exchange, its trace record, and when its answer came (wall clock). */
interface Settled {
  x: Exchange;
  record: CallRecord;
  wall: number;
}

/** Sends calls, numbers them, retries rate limits, paces the run and keeps one trace record per attempt. */
export class CallLog {
  readonly trace: CallRecord[] = [];
  /** Calls sent: the trace less those a stop or a spending cap kept from being sent (report.calls). */
  sent = 0;
  private seq = 0;
  /** When the last --rpm turn was taken, and the turn being waited for (turns are taken one after another). */
  private lastTurn = -Infinity;
  private turns: Promise<void> = Promise.resolve();
  /** Receives every call as it completes, for exchanges.har (the CLI writes it through the boundary). */
  onCall: ((call: RecordedCall) => void) | undefined;
  private readonly slots: Slots | undefined;
  /** The calls that failed once the run was stopped: cut short by the stop, or never sent because of it. */
  private readonly cut = new Set<string>();
  /** Calls answered with a 2xx that carried an error body. */
  private readonly errorBodies = new Set<string>();
  /** Keeps the run's record (record/recorder.ts), when one is kept. */
  recorder: CallRecorder | undefined;
  /** The clock calls are timed and wait by: a replay's recorded times and no waits instead of the wall clock's. */
  clock: CallClock = WALL_CLOCK;
  /** The spending caps (engine/budget.ts), asked before each attempt is sent, when the run has any. */
  budget: Budget | undefined;

  constructor(
    private readonly client: Transport,
    private readonly signal: AbortSignal | undefined,
    private readonly policy: CallPolicy = { retries: 0, rpm: undefined },
    /** Prefix of call ids ("s2c" in shard 2), so merged traces keep unique ids. */
    private readonly idPrefix = 'c',
  ) {
    this.slots = policy.concurrency ? new Slots(policy.concurrency) : undefined;
    // Every rate-limit wait and --rpm pause listens to the run's stop while it lasts: as many at once as
    // calls are waiting, which is no leak (node warned past ten).
    if (signal) setMaxListeners(0, signal);
  }

  /**
   * Runs `fn` holding one request slot: the calls it makes with that slot go back to back in it, so at
   * --concurrency 1 nothing else of the run comes between them. `fn` must make its calls itself, with the
   * slot, and wait for nothing else that needs one (a shared exchange another probe is sending), or it
   * waits forever.
   */
  async sequence<T>(fn: (slot: HeldSlot) => Promise<T>): Promise<T> {
    const slot: HeldSlot = { held: true };
    return this.slots ? this.slots.run(() => fn(slot)) : fn(slot);
  }

  /**
   * Whether the run's stop (Ctrl-C, --max-duration) may have cut this call short: it failed after the stop,
   * so its failure may be ours; or it was never sent, for a stop or a spending cap. A call that answered in
   * full, before the stop or after it, was not cut.
   */
  cutByStop(callId: string): boolean {
    return this.cut.has(callId);
  }

  /** Whether the call got a 2xx carrying an error body (`{"error": …}`, `"success": false`). */
  errorBodyIn2xx(callId: string): boolean {
    return this.errorBodies.has(callId);
  }

  /** Calls in flight (holding a slot). */
  get inFlight(): number {
    return this.slots?.activeCount ?? 0;
  }

  /** Calls waiting for a slot. */
  get queued(): number {
    return this.slots?.pendingCount ?? 0;
  }

  /**
   * One call, and its retries; `slot`: a slot held by sequence(), used instead of waiting for one;
   * `shared`: the shared exchange it is sent for.
   */
  send(req: HttpRequest, probe: string, model: string | undefined, slot?: HeldSlot, shared?: string): Promise<Exchange> {
    return this.call(req, askOf(probe, model, shared), false, slot);
  }

  stream(req: HttpRequest, probe: string, model: string | undefined, slot?: HeldSlot, shared?: string): Promise<StreamExchange> {
    return this.call(req, askOf(probe, model, shared), true, slot) as Promise<StreamExchange>;
  }

  /** A balance read: sent as send() sends, not counted by the spending caps (CallAsk.uncounted). */
  sendUncounted(req: HttpRequest, probe: string): Promise<Exchange> {
    return this.call(req, { probe, model: undefined, uncounted: true }, false, undefined);
  }

  /** Waits `ms` by the log's clock, ending early (resolved) when the run stops: a balance read's settling. */
  async wait(ms: number): Promise<void> {
    try {
      await this.clock.wait(ms, this.signal, 'settle');
    } catch {
      // The run stopped: the wait is over.
    }
  }

  /**
   * One call: an attempt in a request slot (the one `slot` holds, or one waited for), and after a rate
   * limit (or a 503 naming a time) a wait without a slot and the next attempt. `attempts`: the ids so far.
   */
  private async call(req: HttpRequest, ask: CallAsk, stream: boolean, slot: HeldSlot | undefined, attempts: string[] = []): Promise<Exchange> {
    const slots = slot?.held ? undefined : this.slots;
    // The slot is freed once the answer is recorded (the next call waiting for it is sent then).
    const { x, record, wall } = slots ? await slots.run(() => this.attempt(req, ask, stream, attempts)) : await this.attempt(req, ask, stream, attempts);
    const delay = this.placeAttempt(attempts, x, record, wall);
    if (!delay) return x;
    record.waitMs = delay.waitMs;
    try {
      await this.clock.wait(delay.waitMs, this.signal, `retry ${x.callId}`);
    } catch {
      // Stopped while waiting: the retries were cut short, so this answer is not the last attempt's.
      this.cut.add(x.callId);
      return x;
    }
    return this.call(req, ask, stream, slot, attempts);
  }

  /**
   * One attempt, its slot held: its turn under --rpm, then numbered and sent. A stream is read as it
   * arrives (StreamSink): parsed and judged without being held.
   */
  private async attempt(req: HttpRequest, ask: CallAsk, stream: boolean, attempts: readonly string[]): Promise<Settled> {
    await this.pace();
    const tag = this.tag(req, ask, attempts);
    const at = this.clock.sentAt(tag.id);
    const sink = stream ? new StreamSink(undefined, this.onCall !== undefined) : undefined;
    const teed = sink && this.recorder ? this.recorder.tee(sink) : sink;
    // Checked last before sending: a request waiting for its --rpm turn or a slot is not counted yet.
    const stop = this.signal?.aborted ? this.signal.reason : this.overBudget(tag, req);
    const res = stop !== undefined ? notSent(stop) : await this.client.send(teed ? { ...req, sink: teed } : req, tag);
    if (res.transport && this.mayBeCut(res)) this.cut.add(tag.id);
    const settled = this.settle(req, tag, stream, at, res, sink);
    this.recorder?.add(tag, req, res, teed, at, settled.wall);
    return settled;
  }

  /** The cap the attempt would pass (it is not sent), unless it is a balance read or the run has no caps. */
  private overBudget(tag: CallTag, req: HttpRequest): OverBudget | undefined {
    if (!this.budget || tag.uncounted) return undefined;
    const hit = this.budget.admit(tag, req);
    return hit ? new OverBudget(hit) : undefined;
  }

  /**
   * Whether a failed attempt may be the stop's doing: never sent; cut short by Ctrl-C or --max-duration;
   * or failing once either had come (its failure may be ours). A spending cap stops sending and cuts
   * nothing in flight: a call it let through fails or answers on its own.
   */
  private mayBeCut(res: HttpResponse): boolean {
    if (!wasSent(res) || res.transport?.kind === 'stopped') return true;
    return this.signal?.aborted === true && !(this.signal.reason instanceof OverBudget);
  }

  /** The attempt's id and who asked for it: numbered as it is sent, unless the transport names it. */
  private tag(req: HttpRequest, ask: CallAsk, attempts: readonly string[]): CallTag {
    const named: Omit<CallTag, 'id'> = attempts.length > 0 ? { ...ask, retryOf: attempts[0]!, attempt: attempts.length } : ask;
    const id = this.client.name ? this.client.name(named, req) : `${this.idPrefix}${++this.seq}`;
    return { ...named, id };
  }

  /**
   * The attempt's place among the call's attempts (its record and exchange name the first), and the wait
   * before the next attempt if it was rate limited and may be retried.
   */
  private placeAttempt(attempts: string[], x: Exchange, record: CallRecord, wall: number): { waitMs: number } | undefined {
    const attempt = attempts.length;
    attempts.push(x.callId);
    if (attempt > 0) {
      record.retryOf = attempts[0]!;
      record.attempt = attempt;
      x.attempts = [...attempts];
    }
    const delay = attempt < this.policy.retries ? retryDelay(x, attempt, wall) : undefined;
    if (delay && 'stop' in delay) {
      record.error = `${record.error ?? ''}; not retried: ${delay.stop}`;
      return undefined;
    }
    return delay;
  }

  /** Waits for the call's turn under --rpm, after the turns asked for before it; a stop ends the wait (the call is then not sent). */
  private pace(): Promise<void> {
    const rpm = this.policy.rpm;
    if (!rpm) return Promise.resolve();
    const turn = this.turns.then(async () => {
      // Every call waits its turn by the clock, at once or not: a replay takes each turn where the run did.
      try {
        await this.clock.wait(turnWait(Date.now(), this.lastTurn, rpm), this.signal, 'rpm');
      } catch {
        // The run stopped.
      }
      this.lastTurn = Date.now();
    });
    this.turns = turn;
    return turn;
  }

  /** The exchange a call's answer makes, and its trace record. */
  private settle(req: HttpRequest, tag: CallTag, stream: boolean, at: string, res: HttpResponse, sink: StreamSink | undefined): Settled {
    const { id, probe, model } = tag;
    const x = stream ? toStreamExchange(id, req, res, sink) : toExchange(id, req, res);
    const record: CallRecord = { id, at, probe, method: req.method, path: req.path, durationMs: x.durationMs, bytes: x.bytes };
    if (model !== undefined) record.model = model;
    if (x.status !== undefined) record.status = x.status;
    const ttft = (x as Partial<StreamExchange>).ttftMs;
    if (ttft !== undefined) record.ttftMs = ttft;
    if (x.requestId) record.requestId = x.requestId;
    if (x.usage) record.usage = x.usage;
    if (x.truncated) record.truncated = true;
    if (res.resent) record.resent = clip(res.resent, 300);
    if (x.cause) record.cause = x.cause;
    if (x.transport) record.transport = x.transport.kind;
    if (!x.ok) record.error = clip(describeFailure(x), 500);
    else if (errorIn2xx(x.json)) this.errorBodies.add(id);
    for (const name in x.headers) if (keptHeader(name)) (record.headers ??= {})[name] = isCredentialHeader(name) ? REDACTED : x.headers[name]!;
    this.trace.push(record);
    if (wasSent(res)) this.sent++;
    if (this.onCall) this.onCall(this.recorded(req, res, x, record, sink));
    return { x, record, wall: this.clock.answeredAt(id) };
  }

  /** The exchange as exchanges.har records it: bodies capped, the key named, never held. */
  private recorded(req: HttpRequest, res: HttpResponse, x: Exchange, record: CallRecord, sink: StreamSink | undefined): RecordedCall {
    const { headers } = this.client.prepare(req, false);
    const payload = res.sentBody;
    const cuts = [...x.cuts];
    return {
      callId: x.callId,
      at: record.at,
      probe: record.probe,
      model: record.model,
      method: req.method,
      url: this.client.url(req.path, req.fromOrigin),
      requestHeaders: headers,
      requestBody: payload === undefined ? undefined : capBody(payload, 'request body', cuts),
      status: x.status,
      responseHeaders: x.headers,
      responseText: capBody(x.text, 'response body', cuts),
      bytes: x.bytes,
      durationMs: x.durationMs,
      ttftMs: record.ttftMs,
      events: sink?.events.length ? sink.events : undefined,
      cuts,
      error: x.transport?.message,
    };
  }
}
