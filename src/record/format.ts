// The run's record (record.jsonl.gz): every input a judgement reads, so that `chatprobe judge` runs the
// judgements again offline and gets the report the run wrote. One JSON value a line:
// - the head: the options that shape the plan and the judgements (never the key), the tool's version;
// - one line per attempt: who asked (model, probe or shared exchange, the call it retries), the request as
//   its match key and its body, and the answer as the client read it: status, headers, the body chunk by
//   chunk with each chunk's arrival time, our cap's cut, the transport failure, when it was sent;
// - the event loop's lag: each window a judgement asked about with the answer it got, and the ticks that
//   ran late by LATE_TICK_MS or more (for a window no judgement asked about yet);
// - where each wait ended (a retry's, an --rpm slot's, a balance settling's) and where the run stopped
//   (Ctrl-C, --max-duration, a whole-run spending cap): after how many answers; a request a spending cap
//   refused is a call line never sent, naming the cap;
// - the end: the calls recorded and the run's times.
// The run's secrets are not in it: a key a server echoed is recorded as the key's stand-in, a random string
// of its shape (record/conceal.ts), which `chatprobe judge` redacts from its reports as the run did the key.
import { createHash } from 'node:crypto';
import type { HttpRequest, TransportFailure } from '../http/client.js';
import { isCredentialHeader, REDACTED } from '../boundary/secrets.js';
import type { SpendingCaps } from '../engine/budget.js';
import type { Tier } from '../engine/probe.js';
import type { RunStopCause } from '../engine/run.js';
import type { PriceList } from '../engine/prices.js';

export const RECORD_FILE = 'record.jsonl.gz';
/** Raised when a line's meaning changes: a reader refuses a format it does not know. */
export const RECORD_FORMAT = 1;

/** The options a replay runs with: every one that shapes the plan, the calls or a verdict. */
export interface RecordedOptions {
  baseUrl: string;
  apiKeyEnv: string;
  /** --header values through the redaction (a secret one is [REDACTED]). */
  headers: Record<string, string>;
  models: string[];
  probes: string[];
  concurrency: number;
  timeoutMs: number;
  allowUnlisted: boolean;
  strict: boolean;
  requireAuth: boolean;
  samples: number;
  retries: number;
  rpm?: number;
  maxDurationMs?: number;
  tier?: Tier;
  /** The spending caps given: a replay refuses the requests the run refused (each call line says which cap). */
  caps?: SpendingCaps;
  shard?: { index: number; count: number };
  billing: boolean;
  /** The price list the billing probes compared deductions with (--prices), as read: a replay judges with it. */
  prices?: PriceList;
  /** Whether the run had a key (the auth probes and the smoke call read it; the key itself is never here). */
  hasKey: boolean;
  /** The models the run's baseline expected: a name GET /models no longer lists stays a row. */
  expectedModels?: string[];
}

export interface RecordHead {
  record: 'chatprobe-run';
  format: number;
  /** The version of chatprobe that made the record. */
  tool: string;
  options: RecordedOptions;
  /** Each secret's stand-in (record/conceal.ts): what the record holds where a server sent a secret back. */
  standIns: string[];
}

/** How a request was authorised: the key by its kind, an auth probe's own header as `custom` (not its value). */
export type RecordedAuth = 'default' | 'none' | 'raw-key' | 'custom';

export interface RecordedRequest {
  method: HttpRequest['method'];
  path: string;
  fromOrigin?: true;
  auth: RecordedAuth;
  /** The request's own headers (beside the client's), credentials' values [REDACTED]. */
  headers?: Record<string, string>;
  /** What the request is matched by: a hash of all of the above and its whole body (requestKey). */
  key: string;
  /** The body as sent, up to RECORDED_REQUEST_CHARS characters (`bodyChars`: its length, when cut). */
  body?: string;
  bodyChars?: number;
  /** The body carried a secret (an answer with the key echoed in it, sent back): the record holds its stand-in. */
  concealed?: true;
}

/** One chunk of a body as read: when it came (ms after the request was sent) and what it held. */
export type RecordedChunk = [at: number, data: string];

export interface RecordedResponse {
  /** Not sent: the run had stopped (its `transport` says which stop). */
  unsent?: true;
  status?: number;
  headers: Record<string, string>;
  bytes: number;
  truncated: boolean;
  cap: number;
  durationMs: number;
  /** performance.now() when the request was sent: the lag windows are in these times. */
  startedAt: number;
  transport?: TransportFailure;
  resent?: string;
  encoding?: string;
  undecodable?: string;
  leftOpen?: true;
  /** The body went to a reader as it came (a stream). */
  sunk?: true;
  /** The body's chunks as UTF-8 text; `raw` instead for a body that is not UTF-8 (base64 per chunk). */
  text?: RecordedChunk[];
  raw?: RecordedChunk[];
  /**
   * What the record holds of the answer is not all the run read: a body that is not UTF-8 and held a secret
   * (kept as decoded text, U+FFFD for what was not), or a secret in a form no stand-in fits (escaped,
   * re-encoded: filled with `*`; a short one: [REDACTED]). A judgement that reads it may differ.
   */
  lossy?: true;
  /** A stream longer than the record keeps: the record holds its first RECORDED_STREAM_BYTES of `bytes`. */
  recordCut?: true;
}

export interface RecordedCallLine {
  /** The call id, as the trace and the cells' evidence name it. */
  call: string;
  probe: string;
  model?: string;
  shared?: string;
  retryOf?: string;
  attempt?: number;
  /** When it was sent (ISO), and the wall-clock ms its answer came at (a Retry-After date is read against it). */
  at: string;
  wall: number;
  req: RecordedRequest;
  res: RecordedResponse;
}

/** A lag window a judgement asked about, and the answer: [from, to, worst ms]. */
export interface RecordedLagLine {
  lag: [from: number, to: number, worst: number];
}

/** Loop ticks that ran LATE_TICK_MS late or more: [performance.now() of the tick, ms late]. */
export interface RecordedTicksLine {
  ticks: [at: number, late: number][];
}

/**
 * A wait ended (a retry's, an --rpm slot's, a balance settling's: engine/calls.ts waitKey) after `after`
 * recorded answers (calls sent and answered, not those never sent); `stopped`: ended by the run's stop. Waits end between answers, and what they let go
 * (a retry, a paced call) takes its place among the answers: a replay ends each where the run did.
 */
export interface RecordedWaitLine {
  waited: string;
  after: number;
  stopped?: true;
}

/**
 * The run was stopped after `after` recorded answers (calls sent and answered). `budget`: a whole-run
 * spending cap refused a request there; which requests it refused, the call lines say (not sent, with the
 * cap), and a replay refuses those (record/replay.ts).
 */
export interface RecordedStopLine {
  stop: RunStopCause;
  after: number;
}

export interface RecordedEndLine {
  end: true;
  calls: number;
  /** The run's own times, which a replay's report keeps (matrix.md shows the run's duration). */
  startedAt: string;
  finishedAt: string;
  durationMs: number;
}

export type RecordLine = RecordHead | RecordedCallLine | RecordedLagLine | RecordedTicksLine | RecordedWaitLine | RecordedStopLine | RecordedEndLine;

/** Characters of a request body the record keeps to be read (the match key covers all of it). */
export const RECORDED_REQUEST_CHARS = 64 * 1024;

/**
 * Bytes of a stream the record keeps: a stream is read whole, past the byte cap of a body (http/client.ts
 * BodySink), so an endless one would make an endless record. An answer under chatprobe's output limits
 * streams a few kilobytes; what a stream's own record keeps (engine/exchange.ts STREAM_RECORD_CHARS) is as
 * much. A stream cut here replays in part, and `chatprobe judge` names the cells that read it.
 */
export const RECORDED_STREAM_BYTES = 256 * 1024;

/** Ticks later than this are recorded (a window no judgement asked about reads the others as on time). */
export const LATE_TICK_MS = 1;

/** The body a request is sent with, as the client writes it. */
export function payloadOf(req: HttpRequest): string | undefined {
  if (req.rawBody !== undefined) return req.rawBody;
  return req.body === undefined ? undefined : JSON.stringify(req.body);
}

export function authOf(req: HttpRequest): RecordedAuth {
  const auth = req.auth ?? 'default';
  return typeof auth === 'object' ? 'custom' : auth;
}

/**
 * What a request is known by in the record: its method, route, authorisation kind, own headers and whole
 * body, hashed. `headers` and `payload` as the record shows them (redacted): a replay builds its requests
 * from redacted inputs, and finds them by the same key.
 */
export function requestKey(req: HttpRequest, headers: Record<string, string> | undefined, payload: string | undefined): string {
  const hash = createHash('sha256');
  // Each part ended by a NUL (none holds one: a header cannot, and the body goes last, whole).
  hash.update(`${req.method}\0${req.fromOrigin ? 'origin' : 'base'}\0${req.path}\0${authOf(req)}\0`);
  if (headers) hash.update(JSON.stringify(Object.entries(headers).sort(([a], [b]) => (a < b ? -1 : 1))));
  hash.update(payload === undefined ? '\0-' : `\0+${payload}`);
  return hash.digest('base64url').slice(0, 24);
}

/** A request's own headers as the record shows them: a credential's value [REDACTED], the others redacted. */
export function recordedHeaders(headers: Record<string, string> | undefined, redact: (text: string) => string): Record<string, string> | undefined {
  if (!headers) return undefined;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = isCredentialHeader(name) ? REDACTED : redact(value);
  return out;
}
