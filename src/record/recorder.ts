import { closeSync, openSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { constants, gzipSync } from 'node:zlib';
import type { Boundary } from '../boundary/boundary.js';
import type { Secret } from '../boundary/secrets.js';
import type { AuditOptions, RunRecorder, RunStopCause } from '../engine/run.js';
import { waitKey, wasSent, type CallClock, type CallTag } from '../engine/calls.js';
import type { LagSource, LoopLag } from '../engine/lag.js';
import type { BodyChunk, BodySink, HttpRequest, HttpResponse } from '../http/client.js';
import { decodeResponse } from '../http/encoding.js';
import type { ReportHead } from '../results/head.js';
import { VERSION } from '../version.js';
import { encodeBody } from './body.js';
import { Concealer } from './conceal.js';
import {
  authOf,
  LATE_TICK_MS,
  payloadOf,
  RECORD_FORMAT,
  RECORDED_REQUEST_CHARS,
  RECORDED_STREAM_BYTES,
  recordedHeaders,
  requestKey,
  type RecordedCallLine,
  type RecordedOptions,
  type RecordedRequest,
  type RecordedResponse,
  type RecordHead,
  type RecordLine,
} from './format.js';

/** Records whose file is not in place yet: completed at the process's exit if it quits first (a second Ctrl-C). */
const OPEN = new Set<RunRecord>();
let exitHooked = false;

/** Where a record goes when the process quits before its run ends: beside the complete one, never in its place. */
export const interruptedRecordPath = (path: string) => path.replace(/(\.jsonl\.gz)?$/, '.interrupted.jsonl.gz');

/** Characters of lines held before they are compressed and written (memory stays flat however long the run). */
const WRITE_CHARS = 512 * 1024;
/** Ticks held before they are written as one line. */
const TICKS_PER_LINE = 1000;

/** The options a record keeps (record/format.ts RecordedOptions), secrets concealed: never the key. */
export function recordedOptions(options: AuditOptions, conceal: (text: string) => string): RecordedOptions {
  const headers = recordedHeaders(options.headers, conceal)!;
  const o: RecordedOptions = {
    baseUrl: conceal(options.baseUrl),
    apiKeyEnv: options.apiKeyEnv,
    headers,
    models: options.models.map(conceal),
    probes: options.probes,
    concurrency: options.concurrency,
    timeoutMs: options.timeoutMs,
    allowUnlisted: options.allowUnlisted,
    strict: options.strict,
    requireAuth: options.requireAuth,
    samples: options.samples,
    retries: options.retries,
    billing: options.billing,
    hasKey: options.hasKey ?? Boolean(options.apiKey),
  };
  if (options.prices) o.prices = options.prices;
  if (options.rpm !== undefined) o.rpm = options.rpm;
  if (options.maxDurationMs !== undefined) o.maxDurationMs = options.maxDurationMs;
  if (options.tier !== undefined) o.tier = options.tier;
  if (Object.values(options.caps).some((v) => v !== undefined)) o.caps = { ...options.caps };
  if (options.shard) o.shard = { ...options.shard };
  if (options.expectedModels) o.expectedModels = [...options.expectedModels].map(conceal);
  return o;
}

/**
 * A stream's reader, fed through: it keeps the chunks it is fed (up to RECORDED_STREAM_BYTES) for the
 * record, and hands each on to the run's own reader as it comes.
 */
class TeeSink implements BodySink {
  readonly chunks: BodyChunk[] = [];
  kept = 0;
  fed = 0;

  constructor(private readonly sink: BodySink) {}

  start(status: number, headers: Record<string, string>): boolean {
    return this.sink.start(status, headers);
  }

  push(bytes: Uint8Array, at: number): void {
    this.fed += bytes.length;
    if (this.kept < RECORDED_STREAM_BYTES) {
      const room = RECORDED_STREAM_BYTES - this.kept;
      const piece = bytes.length > room ? bytes.subarray(0, room) : bytes;
      this.chunks.push({ at, bytes: piece });
      this.kept += piece.length;
    }
    this.sink.push(bytes, at);
  }

  end(at: number): void {
    this.sink.end(at);
  }

  get finished(): boolean | undefined {
    return this.sink.finished;
  }
}

/**
 * Keeps a run's record (record.jsonl.gz, record/format.ts) as the run goes: every text in it with the run's
 * secrets replaced by their stand-ins (record/conceal.ts), gathered, compressed and written in batches (each
 * batch a gzip member: the file is one gzip stream to any reader), into a temporary file put in place by
 * commit(). Nothing here holds the key: the request is recorded by its route, its kind of authorisation,
 * its own headers and its body; the key's stand-in is in the head, for `chatprobe judge` to redact.
 */
export class RunRecord implements RunRecorder {
  private fd: number | undefined;
  private readonly tmp: string;
  private pending: string[] = [];
  private pendingChars = 0;
  private calls = 0;
  /** Calls sent and answered (not those the stop kept from being sent): what a wait's end or the stop came after. */
  private answered = 0;
  private ticks: [number, number][] = [];
  private readonly concealer: Concealer;
  private readonly conceal: (text: string) => string;
  /** Waits begun, by kind (an --rpm slot, a balance settling): the n-th of each is known by its number. */
  private readonly waits = new Map<string, number>();
  /** Bytes written, compressed. */
  written = 0;

  /** `secrets`: the run's (secretsOf), which `boundary` removes from every output. */
  constructor(
    private readonly path: string,
    boundary: Boundary,
    options: AuditOptions,
    secrets: readonly Secret[],
  ) {
    this.concealer = new Concealer(secrets, boundary);
    this.conceal = (text) => this.concealer.text(text);
    this.tmp = `${path}.${process.pid}.tmp`;
    this.fd = openSync(this.tmp, 'w');
    const head: RecordHead = { record: 'chatprobe-run', format: RECORD_FORMAT, tool: VERSION, options: recordedOptions(options, this.conceal), standIns: this.concealer.standIns };
    this.line(head);
    OPEN.add(this);
    if (!exitHooked) {
      exitHooked = true;
      // As exchanges.har's (report/har.ts): the calls recorded so far, as record.interrupted.jsonl.gz, with no end line.
      process.on('exit', () => {
        for (const r of OPEN) {
          try {
            r.flush();
            if (r.fd !== undefined) closeSync(r.fd);
            r.fd = undefined;
            renameSync(r.tmp, interruptedRecordPath(r.path));
          } catch {
            // kept as it is
          }
        }
        OPEN.clear();
      });
    }
  }

  tee(sink: BodySink): BodySink {
    return new TeeSink(sink);
  }

  add(call: CallTag, req: HttpRequest, res: HttpResponse, teed: BodySink | undefined, at: string, wall: number): void {
    const line: RecordedCallLine = { call: call.id, probe: call.probe, at, wall, req: this.request(req, res), res: this.response(res, teed as TeeSink | undefined) };
    if (call.model !== undefined) line.model = this.conceal(call.model);
    if (call.shared !== undefined) line.shared = call.shared;
    if (call.retryOf !== undefined) {
      line.retryOf = call.retryOf;
      line.attempt = call.attempt!;
    }
    this.calls++;
    if (!line.res.unsent) this.answered++;
    this.line(line);
  }

  watch(lag: LoopLag): LagSource {
    lag.onLate = (at, late) => {
      if (late < LATE_TICK_MS) return;
      this.ticks.push([Math.round(at * 1000) / 1000, Math.round(late * 1000) / 1000]);
      if (this.ticks.length >= TICKS_PER_LINE) this.flushTicks();
    };
    return {
      start: () => lag.start(),
      stop: () => {
        lag.stop();
        lag.onLate = undefined;
        this.flushTicks();
      },
      worst: (from, to) => {
        const worst = lag.worst(from, to);
        this.line({ lag: [from, to, worst] });
        return worst;
      },
    };
  }

  stopped(cause: RunStopCause): void {
    this.line({ stop: cause, after: this.answered });
  }

  clock(base: CallClock): CallClock {
    return {
      sentAt: (id) => base.sentAt(id),
      answeredAt: (id) => base.answeredAt(id),
      wait: async (ms, signal, what) => {
        const key = waitKey(what, this.waits);
        try {
          await base.wait(ms, signal, what);
        } catch (err) {
          this.line({ waited: key, after: this.answered, stopped: true });
          throw err;
        }
        this.line({ waited: key, after: this.answered });
      },
    };
  }

  /** Writes the last line (the run's times, from its report) and closes the file under its temporary name. */
  finish(head: Pick<ReportHead, 'startedAt' | 'finishedAt' | 'durationMs'>): void {
    if (this.fd === undefined) return;
    this.flushTicks();
    this.line({ end: true, calls: this.calls, startedAt: head.startedAt, finishedAt: head.finishedAt, durationMs: head.durationMs });
    this.flush();
    closeSync(this.fd);
    this.fd = undefined;
  }

  /** Puts the finished file in place; returns its path. A record an interrupted run left beside it goes. */
  commit(): string {
    if (!OPEN.has(this)) return this.path;
    renameSync(this.tmp, this.path);
    OPEN.delete(this);
    rmSync(interruptedRecordPath(this.path), { force: true });
    return this.path;
  }

  /** Drops the unfinished file (a run that never started, or failed before its reports). */
  abandon(): void {
    OPEN.delete(this);
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.pending = [];
    try {
      unlinkSync(this.tmp);
    } catch {
      // already gone
    }
  }

  private request(req: HttpRequest, res: HttpResponse): RecordedRequest {
    const redact = this.conceal;
    const headers = recordedHeaders(req.headers, redact);
    const sent = res.sentBody ?? payloadOf(req);
    const payload = sent === undefined ? undefined : redact(sent);
    const out: RecordedRequest = { method: req.method, path: req.path, auth: authOf(req), key: requestKey(req, headers, payload) };
    if (req.fromOrigin) out.fromOrigin = true;
    if (headers) out.headers = headers;
    if (payload !== sent) out.concealed = true;
    if (payload !== undefined) {
      out.body = payload.length > RECORDED_REQUEST_CHARS ? payload.slice(0, RECORDED_REQUEST_CHARS) : payload;
      if (payload.length > RECORDED_REQUEST_CHARS) out.bodyChars = payload.length;
    }
    return out;
  }

  private response(raw: HttpResponse, teed: TeeSink | undefined): RecordedResponse {
    this.concealer.altered = false;
    const out = this.answer(raw, teed);
    // A secret kept in another form than its stand-in's: the body is no longer the one read, said as lossy.
    if (this.concealer.altered) out.lossy = true;
    return out;
  }

  private answer(raw: HttpResponse, teed: TeeSink | undefined): RecordedResponse {
    const redact = this.conceal;
    // Decoded as the exchange decodes it (http/encoding.ts): the record holds what the judgements read.
    const res = decodeResponse(raw);
    const out: RecordedResponse = { headers: recordedHeaders(res.headers, redact)!, bytes: res.bytes, truncated: res.truncated, cap: res.cap, durationMs: res.durationMs, startedAt: res.startedAt };
    if (res.status !== undefined) out.status = res.status;
    else if (!wasSent(raw)) out.unsent = true;
    if (res.transport) out.transport = { ...res.transport, message: redact(res.transport.message) };
    if (res.resent) out.resent = redact(res.resent);
    if (res.encoding) out.encoding = res.encoding;
    if (res.undecodable) out.undecodable = redact(res.undecodable);
    if (res.leftOpen) out.leftOpen = true;
    const stream = Boolean(res.sunk && teed);
    if (stream) {
      out.sunk = true;
      if (teed!.fed > teed!.kept) out.recordCut = true;
    }
    const body = encodeBody(stream ? teed!.chunks : res.chunks, stream, (pieces) => this.concealer.pieces(pieces, stream));
    return Object.assign(out, body);
  }

  private flushTicks(): void {
    if (this.ticks.length === 0) return;
    const ticks = this.ticks;
    this.ticks = [];
    this.line({ ticks });
  }

  private line(value: RecordLine): void {
    if (this.fd === undefined) return;
    const json = JSON.stringify(value);
    this.pending.push(json, '\n');
    this.pendingChars += json.length + 1;
    if (this.pendingChars >= WRITE_CHARS) this.flush();
  }

  private flush(): void {
    if (this.fd === undefined || this.pending.length === 0) return;
    // A fast level: the record is written while the run goes, and bodies of JSON compress well at any level.
    const bytes = gzipSync(this.pending.join(''), { level: constants.Z_BEST_SPEED });
    writeSync(this.fd, bytes);
    this.written += bytes.length;
    this.pending = [];
    this.pendingChars = 0;
  }
}
