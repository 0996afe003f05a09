import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { pipeline } from 'node:stream';
import { constants, createGunzip, deflateRawSync, inflateRawSync } from 'node:zlib';
import { CannotTestError } from '../errors.js';
import { waitKey, type CallClock, type CallTag, type Transport } from '../engine/calls.js';
import { TICK_MS, type LagSource } from '../engine/lag.js';
import { runAudit, type AuditHooks, type AuditOptions, type AuditRun, type RunSeams } from '../engine/run.js';
import type { ProbeDefinition } from '../engine/probe.js';
import { HttpClient, type HttpRequest, type HttpResponse } from '../http/client.js';
import { describeTransportFailure, ReaderFailed } from '../http/failure.js';
import type { BudgetDecisions } from '../engine/budget.js';
import { Cap } from '../results/budget.js';
import type { Report } from '../results/model.js';
import { decodeBody } from './body.js';
import {
  payloadOf,
  RECORD_FORMAT,
  recordedHeaders,
  requestKey,
  type RecordedCallLine,
  type RecordedEndLine,
  type RecordedStopLine,
  type RecordedWaitLine,
  type RecordHead,
  type RecordLine,
} from './format.js';

/** A recorded call as a replay holds it: its answer's body kept compressed when it is large (bodyOf). */
export type HeldCall = RecordedCallLine & { packed?: Buffer };

/** A record read whole. */
export interface RunRecording {
  head: RecordHead;
  /** Every attempt, in the order their answers came (the order the run recorded them). */
  calls: HeldCall[];
  /** The lag windows the judgements asked about: `from to` → worst ms. */
  lag: Map<string, number>;
  ticks: [number, number][];
  /** The waits' ends and the stop, in the order they came, each after so many answers. */
  events: (RecordedWaitLine | RecordedStopLine)[];
  stop: RecordedStopLine | undefined;
  /** Missing when the run was killed before it ended: the record is then partial. */
  end: RecordedEndLine | undefined;
}

/**
 * Characters of a call's line past which its body is held compressed until it is answered: a hostile
 * server's run records 2 MiB a call (the bodies chatprobe read to its cap), hundreds of megabytes in all,
 * which a replay then holds at about the size of the record's file.
 */
const HELD_PACKED = 64 * 1024;

/** A held call's answer, its body unpacked if it was packed. */
export function bodyOf(call: HeldCall): RecordedCallLine['res'] {
  if (!call.packed) return call.res;
  return (JSON.parse(inflateRawSync(call.packed).toString('utf8')) as RecordedCallLine).res;
}

/**
 * The lines of a stream of text, as they come: the stream is read only as fast as they are taken. A line's
 * pieces are joined once, when it ends: a hostile server's call is a line of 2 MiB arriving in pieces of
 * 16 KiB, and joining the unfinished line again at every piece took time in its square.
 */
async function* linesOf(input: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let pending: string[] = [];
  for await (const chunk of input) {
    const text = decoder.write(chunk);
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      pending.push(text.slice(start, nl));
      yield pending.join('');
      pending = [];
      start = nl + 1;
    }
    if (start < text.length) pending.push(text.slice(start));
  }
  const last = pending.join('') + decoder.end();
  if (last) yield last;
}

/**
 * Reads a record (record.jsonl.gz) a line at a time (a record can be larger uncompressed than one string
 * can be); a file that is not one, or of a format this chatprobe does not read, is refused.
 */
export async function readRecording(path: string): Promise<RunRecording> {
  const out: RunRecording = { head: undefined as unknown as RecordHead, calls: [], lag: new Map(), ticks: [], events: [], stop: undefined, end: undefined };
  const notRecord = (e: unknown) => {
    const code = (e as { code?: string }).code;
    return new CannotTestError(code === 'ENOENT' ? `no run record at ${path}` : `${path} is not a chatprobe run record (${(e as Error).message})`, 'a run record is written by an audit beside its reports, as record.jsonl.gz');
  };
  let n = 0;
  try {
    for await (const raw of linesOf(pipeline(createReadStream(path), createGunzip(), () => undefined) as unknown as AsyncIterable<Buffer>)) {
      if (raw === '') continue;
      n++;
      let line: RecordLine;
      try {
        line = JSON.parse(raw) as RecordLine;
      } catch {
        throw new CannotTestError(`${path}: line ${n} is not JSON: the record is damaged`);
      }
      if ('record' in line) {
        if (line.record !== 'chatprobe-run' || line.format !== RECORD_FORMAT) {
          throw new CannotTestError(`${path} is a run record of format ${String(line.format)}; this chatprobe reads format ${RECORD_FORMAT}`);
        }
        out.head = line;
      } else if ('call' in line) {
        const held: HeldCall = line;
        if (raw.length > HELD_PACKED) {
          held.packed = deflateRawSync(raw, { level: constants.Z_BEST_SPEED });
          delete held.res.text;
          delete held.res.raw;
        }
        out.calls.push(held);
      } else if ('lag' in line) out.lag.set(`${line.lag[0]} ${line.lag[1]}`, line.lag[2]);
      else if ('ticks' in line) for (const t of line.ticks) out.ticks.push(t);
      else if ('waited' in line) out.events.push(line);
      else if ('stop' in line) {
        out.stop = line;
        out.events.push(line);
      } else if ('end' in line) out.end = line;
    }
  } catch (e) {
    throw e instanceof CannotTestError ? e : notRecord(e);
  }
  if (!out.head) throw new CannotTestError(`${path} is not a chatprobe run record (no head line)`);
  return out;
}

/** The options a replay runs with: the recorded ones, no key (whether there was one is recorded), nothing written. */
export function replayOptions(recording: RunRecording): AuditOptions {
  const o = recording.head.options;
  return {
    baseUrl: o.baseUrl,
    apiKey: undefined,
    apiKeyEnv: o.apiKeyEnv,
    headers: o.headers,
    models: o.models,
    probes: o.probes,
    // A run's own probe files are not in its record: `chatprobe judge --probe-file` names them again.
    probeFiles: [],
    out: 'reports',
    concurrency: o.concurrency,
    timeoutMs: o.timeoutMs,
    allowUnlisted: o.allowUnlisted,
    strict: o.strict,
    requireAuth: o.requireAuth,
    samples: o.samples,
    retries: o.retries,
    rpm: o.rpm,
    maxDurationMs: o.maxDurationMs,
    tier: o.tier,
    caps: o.caps ?? {},
    baseline: undefined,
    updateBaseline: false,
    shard: o.shard,
    billing: o.billing,
    prices: o.prices,
    dryRun: false,
    json: false,
    quiet: false,
    // The secrets' stand-ins, redacted from the reports where the run redacted the secrets (record/conceal.ts).
    secrets: recording.head.standIns.map((value) => ({ value, label: 'the stand-in of a secret of the recorded run' })),
    hasKey: o.hasKey,
    expectedModels: o.expectedModels ? new Set(o.expectedModels) : undefined,
  };
}

/** What a replay could not take from the record, for `chatprobe judge` to say. */
export interface ReplayGaps {
  /** Requests the record does not hold (a rule that asks for more than the run sent): answered as a failure. */
  unrecorded: CallTag[];
  /** Recorded calls no request asked for (a rule that asks for less). */
  notAsked: number;
  /** Answers (and waits' ends) given out of the order the run got them, because the one due was never asked for. */
  outOfOrder: number;
  /** Lag windows no recorded judgement asked about, answered from the late ticks alone. */
  lagFromTicks: number;
  /** Calls whose answer the record holds only in part (a stream past RECORDED_STREAM_BYTES) or altered (`lossy`). */
  partial: string[];
}

/**
 * Turns of the event loop with nothing to deliver in the recorded order before the replay gives up waiting
 * for the answer due and delivers the next it has: what the run would do next is done within a turn of
 * the answer it followed (every wait of a replay is a turn, see wait()).
 */
const IDLE_TURNS = 3;

const UNRECORDED = 'not in the run record: the recorded run sent no such request, so chatprobe judge has no answer for it';

interface Waiter {
  resolve(): void;
  reject(reason: unknown): void;
  signal: AbortSignal | undefined;
}

/** Ends a wait as the record says it ended: let go, or cut by the run's stop. */
function endWait(w: Waiter, stopped: boolean | undefined): void {
  if (stopped) w.reject(w.signal?.reason ?? new DOMException('stopped', 'AbortError'));
  else w.resolve();
}

/**
 * A recorded run, as a transport: each request is named by the recorded call it matches (its model, the
 * probe or shared exchange that asked, its request key, and which occurrence of these it is; a retry by
 * the call it retries and its number), so concurrency cannot give one probe's answer to another; and each
 * answer is given in the order the run got them, one a turn of the event loop, so the engine's choices
 * that follow the order of answers (the limit key a model refused, a row that stalled, the host of the
 * endpoint probes) are made as they were. A stream's recorded chunks are fed to its reader as the client
 * would feed them, with their times. Nothing waits for time: a wait (a retry's, an --rpm slot's, a balance
 * settling's) ends after the answer the record says it ended after, and timeouts and cuts are the recorded
 * ones. The run's stop (Ctrl-C, --max-duration) comes where the record has it, and the calls it cut are
 * answered at once, as it cut them.
 */
export class Replay implements Transport {
  readonly interrupt = new AbortController();
  private readonly deadline = new AbortController();
  private readonly client: HttpClient;
  /** First attempts by match key, in the order they were sent. */
  private readonly byKey = new Map<string, RecordedCallLine[]>();
  /** Retries by `retried-id#attempt`. */
  private readonly retries = new Map<string, RecordedCallLine>();
  private readonly taken = new Map<string, number>();
  private readonly byId = new Map<string, { line: RecordedCallLine; rank: number }>();
  private readonly claimed = new Set<string>();
  /** Ranks (answer order) of the calls that were sent, ascending; `next`: the first not yet delivered. */
  private readonly sentRanks: number[];
  private next = 0;
  private readonly delivered = new Set<number>();
  private readonly pending = new Map<number, () => void>();
  private readonly loose: (() => void)[] = [];
  /** Waits begun whose recorded end is still to come, by key. */
  private readonly waiters = new Map<string, Waiter>();
  /** Waits to end at the next turn: the record has no end for them, or had it before they began. */
  private soon: { w: Waiter; stopped: boolean | undefined }[] = [];
  private readonly waitsBegun = new Map<string, number>();
  private readonly recordedWaits: Map<string, RecordedWaitLine>;
  /** Recorded ends of waits that had not begun when their turn came. */
  private readonly ended = new Map<string, RecordedWaitLine>();
  private nextEvent = 0;
  private scheduled = false;
  private idle = 0;
  private readonly gaps: ReplayGaps = { unrecorded: [], notAsked: 0, outOfOrder: 0, lagFromTicks: 0, partial: [] };

  constructor(
    private readonly recording: RunRecording,
    options: AuditOptions,
  ) {
    // For the record's view of a request (prepare, url) only: it sends nothing.
    this.client = new HttpClient({ baseUrl: options.baseUrl, apiKey: options.hasKey ? 'recorded' : undefined, keyVar: options.apiKeyEnv, headers: options.headers, timeoutMs: options.timeoutMs });
    const seq = (id: string) => Number(/(\d+)$/.exec(id)?.[1] ?? 0);
    const firsts = recording.calls.filter((c) => c.retryOf === undefined).sort((a, b) => seq(a.call) - seq(b.call));
    for (const c of firsts) {
      const key = matchKey(c.model, c.shared ?? c.probe, c.req.key);
      const list = this.byKey.get(key);
      if (list) list.push(c);
      else this.byKey.set(key, [c]);
    }
    recording.calls.forEach((line, rank) => {
      this.byId.set(line.call, { line, rank });
      if (line.retryOf !== undefined) this.retries.set(`${line.retryOf}#${line.attempt}`, line);
      if (line.res.recordCut || line.res.lossy) this.gaps.partial.push(line.call);
    });
    this.sentRanks = recording.calls.flatMap((line, rank) => (line.res.unsent ? [] : [rank]));
    this.recordedWaits = new Map(recording.events.flatMap((e) => ('waited' in e ? [[e.waited, e] as const] : [])));
  }

  /** What runAudit runs through: this transport, the recorded clock and lag, the recorded stop and spending caps' refusals. */
  seams(): RunSeams {
    return { transport: this, clock: this.clock, lag: this.lag, deadline: this.deadline.signal, budget: this.budget };
  }

  /**
   * The spending caps as the recorded run applied them: a request it did not send for a cap is refused
   * for the same cap, one it sent is sent, whatever order the replay asks them in, so the same cells run.
   * Nothing is counted. (What follows a refusal, the run or the row stopped, engine/budget.ts decides as
   * the run did.)
   */
  readonly budget: BudgetDecisions = {
    decide: (ask) => {
      const t = this.byId.get(ask.id)?.line.res.transport;
      if (t?.code !== 'budget') return undefined;
      const cap = Cap.safeParse(t.cap);
      return cap.success ? { cap: cap.data, limit: t.limit } : undefined;
    },
  };

  readonly clock: CallClock = {
    sentAt: (id) => this.byId.get(id)?.line.at ?? new Date().toISOString(),
    answeredAt: (id) => this.byId.get(id)?.line.wall ?? Date.now(),
    wait: (_ms, signal, what) =>
      new Promise<void>((resolve, reject) => {
        const key = waitKey(what, this.waitsBegun);
        const w: Waiter = { resolve, reject, signal };
        const ended = this.ended.get(key);
        if (this.recordedWaits.has(key) && !ended) this.waiters.set(key, w);
        else this.soon.push({ w, stopped: ended?.stopped ?? signal?.aborted });
        this.schedule();
      }),
  };

  readonly lag: LagSource = {
    start: () => {},
    stop: () => {},
    worst: (from, to) => {
      const asked = this.recording.lag.get(`${from} ${to}`);
      if (asked !== undefined) return asked;
      this.gaps.lagFromTicks++;
      let worst = 0;
      // As LoopLag.worst reads its ticks: a tick `late` ms late covers the stretch since the one before it.
      for (const [at, late] of this.recording.ticks) if (at >= from && at - TICK_MS - late <= to) worst = Math.max(worst, late);
      return worst;
    },
  };

  name(call: Omit<CallTag, 'id'>, req: HttpRequest): string {
    let line: RecordedCallLine | undefined;
    if (call.retryOf !== undefined) line = this.retries.get(`${call.retryOf}#${call.attempt}`);
    else {
      // As the record made it: from the requests' redacted view (the inputs of a replay are redacted already).
      const key = matchKey(call.model, call.shared ?? call.probe, requestKey(req, recordedHeaders(req.headers, (t) => t), payloadOf(req)));
      const n = this.taken.get(key) ?? 0;
      this.taken.set(key, n + 1);
      line = this.byKey.get(key)?.[n];
    }
    if (line && !this.claimed.has(line.call)) {
      this.claimed.add(line.call);
      return line.call;
    }
    const id = `unrecorded-${this.gaps.unrecorded.length + 1}`;
    this.gaps.unrecorded.push({ ...call, id });
    return id;
  }

  send(req: HttpRequest, call: CallTag): Promise<HttpResponse> {
    const entry = this.byId.get(call.id);
    return new Promise<HttpResponse>((resolve) => {
      if (!entry) this.loose.push(() => resolve(unrecorded(req)));
      else this.pending.set(entry.rank, () => resolve(answer(entry.line, req)));
      this.schedule();
    });
  }

  /** The request as the record shows it: a replay holds no key, and names it by its variable whatever is asked. */
  prepare(req: HttpRequest): { headers: Record<string, string>; payload: string | undefined } {
    return this.client.prepare(req, false);
  }

  url(path: string, fromOrigin?: boolean): string {
    return this.client.url(path, fromOrigin);
  }

  close(): Promise<void> {
    return this.client.close();
  }

  /** What the replay could not take from the record, once the run is over. */
  summary(): ReplayGaps {
    return { ...this.gaps, notAsked: this.recording.calls.length - this.claimed.size };
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.pump());
  }

  /**
   * One turn, one thing done, as the run did one thing per turn of its loop: the next recorded event (a
   * wait's end, the stop) once the answers before it are given; else the waits the record has no end for;
   * else the answer due in the recorded order. After IDLE_TURNS turns with none of these, the first of: an
   * answer the record does not hold, the earliest answer asked for, the next event.
   */
  private pump(): void {
    this.scheduled = false;
    const event = this.recording.events[this.nextEvent];
    if (event && this.delivered.size >= event.after) {
      this.nextEvent++;
      this.happen(event);
      this.idle = 0;
      this.schedule();
      return;
    }
    if (this.soon.length > 0) {
      const soon = this.soon;
      this.soon = [];
      for (const { w, stopped } of soon) endWait(w, stopped);
      this.schedule();
      return;
    }
    while (this.next < this.sentRanks.length && this.delivered.has(this.sentRanks[this.next]!)) this.next++;
    const due = this.sentRanks[this.next];
    const deliver = due === undefined ? undefined : this.pending.get(due);
    if (deliver) {
      this.take(due!);
      deliver();
      this.idle = 0;
      this.schedule();
      return;
    }
    const waiting = this.pending.size > 0 || this.loose.length > 0 || this.waiters.size > 0;
    if (!waiting) {
      this.idle = 0;
      return;
    }
    if (++this.idle < IDLE_TURNS) {
      this.schedule();
      return;
    }
    this.idle = 0;
    const first = this.loose.shift();
    if (first) first();
    else if (this.pending.size > 0) {
      const earliest = Math.min(...this.pending.keys());
      this.gaps.outOfOrder++;
      const late = this.pending.get(earliest)!;
      this.take(earliest);
      late();
    } else if (event) {
      this.gaps.outOfOrder++;
      this.nextEvent++;
      this.happen(event);
    } else {
      // Waits whose ends the record has, their turn never come: ended now.
      for (const [key, w] of this.waiters) {
        this.waiters.delete(key);
        endWait(w, this.recordedWaits.get(key)?.stopped);
      }
    }
    this.schedule();
  }

  /**
   * A recorded event, in its turn: the stop, or a wait's end. A spending cap's stop is not fired by the
   * count of answers: it comes with the request it refused (`budget`).
   */
  private happen(event: RecordedWaitLine | RecordedStopLine): void {
    if ('stop' in event) return event.stop === 'budget' ? undefined : this.fireStop(event);
    const w = this.waiters.get(event.waited);
    if (!w) {
      this.ended.set(event.waited, event);
      return;
    }
    this.waiters.delete(event.waited);
    endWait(w, event.stopped);
  }

  private take(rank: number): void {
    this.pending.delete(rank);
    this.delivered.add(rank);
  }

  /** The stop, as it came: the calls it cut short (recorded as cut by it) answered at once, in their order. */
  private fireStop(stop: RecordedStopLine): void {
    if (stop.stop === 'deadline') this.deadline.abort(new DOMException('--max-duration', 'TimeoutError'));
    else this.interrupt.abort();
    const cut = [...this.pending.keys()].filter((rank) => this.recording.calls[rank]!.res.transport?.kind === 'stopped').sort((a, b) => a - b);
    for (const rank of cut) {
      const deliver = this.pending.get(rank)!;
      this.take(rank);
      deliver();
    }
  }
}

const matchKey = (model: string | undefined, asker: string, key: string) => `${model ?? ''}\u0000${asker}\u0000${key}`;

/** The answer a recorded call got, as the client gave it: a stream fed to the request's reader, with its times. */
function answer(line: HeldCall, req: HttpRequest): HttpResponse {
  const r = bodyOf(line);
  const res: HttpResponse = { status: r.status, headers: r.headers, chunks: [], bytes: r.bytes, truncated: r.truncated, cap: r.cap, durationMs: r.durationMs, startedAt: r.startedAt };
  const sent = payloadOf(req);
  if (sent !== undefined) res.sentBody = sent;
  if (r.transport) res.transport = r.transport;
  if (r.resent) res.resent = r.resent;
  if (r.encoding) res.encoding = r.encoding;
  if (r.undecodable) res.undecodable = r.undecodable;
  if (r.leftOpen) res.leftOpen = true;
  const chunks = decodeBody(r);
  const sink = req.sink;
  if (sink && r.status !== undefined && sink.start(r.status, r.headers)) {
    for (const c of chunks) sink.push(c.bytes, c.at);
    try {
      sink.end(r.durationMs);
    } catch (failed) {
      res.transport ??= describeTransportFailure(new ReaderFailed((failed as Error)?.message ?? String(failed)));
    }
    res.sunk = true;
  } else res.chunks = chunks;
  return res;
}

function unrecorded(req: HttpRequest): HttpResponse {
  const res: HttpResponse = { status: undefined, headers: {}, chunks: [], bytes: 0, truncated: false, cap: 0, durationMs: 0, startedAt: 0, transport: { code: 'network', kind: 'other', message: UNRECORDED } };
  const sent = payloadOf(req);
  if (sent !== undefined) res.sentBody = sent;
  return res;
}

/**
 * Runs the recorded run's judgements again: the same engine, plan and probes, every call answered from the
 * record (Replay). The report keeps the run's own times (it describes that run), judged by this chatprobe.
 * `signal` is the judge's own stop (Ctrl-C while judging): it ends the judgement as the recorded run's
 * interruption would, the cells not yet judged "not run", the reports written.
 */
export async function replayRun(
  recording: RunRecording,
  options: AuditOptions,
  probes: readonly ProbeDefinition[],
  hooks: AuditHooks = {},
  signal?: AbortSignal,
): Promise<{ run: AuditRun; gaps: ReplayGaps }> {
  const replay = new Replay(recording, options);
  const stop = signal ? AbortSignal.any([replay.interrupt.signal, signal]) : replay.interrupt.signal;
  const run = await runAudit(options, probes, hooks, stop, replay.seams());
  const end = recording.end;
  if (end) Object.assign(run.report, { startedAt: end.startedAt, finishedAt: end.finishedAt, durationMs: end.durationMs } satisfies Partial<Report>);
  return { run, gaps: replay.summary() };
}
