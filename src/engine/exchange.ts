import { MAX_JSON_DEPTH, tooDeep } from '../wire/json-depth.js';
import { AFTER_END_MS, bodyText, type BodySink, type HttpRequest, type HttpResponse } from '../http/client.js';
import { decodeResponse } from '../http/encoding.js';
import { SseReader, type SseFacts } from '../wire/sse.js';
import { MAX_TEXT, StreamAssembler, type AssembledStream } from '../wire/stream.js';
import { isObject } from '../wire/json.js';
import { readUsage, type Usage } from '../wire/usage.js';
import { readError, type ErrorShape } from '../wire/error.js';
import { choicesCut, MAX_CHOICES, MAX_TOOL_CALLS } from '../wire/completion.js';
import type { Cause } from '../results/model.js';
import { diagnose } from './diagnose.js';

// The one error reader lives with the other readers of server data (wire/error.ts); named here too for
// the modules that took it from the exchange.
export { readError, type ErrorShape } from '../wire/error.js';
/** Choices read from one body (wire/completion.ts). */
export { MAX_CHOICES } from '../wire/completion.js';

/** One call as a probe sees it, raw: secrets are removed at the output boundary, not here. */
export interface Exchange {
  callId: string;
  /** Ids of every attempt that led to this answer (retries of 429/503), this one last. */
  attempts: string[];
  method: string;
  path: string;
  status: number | undefined;
  ok: boolean;
  headers: Record<string, string>;
  contentType: string;
  text: string;
  json: unknown;
  /** Set when the body was expected to be JSON and was not. */
  parseError: string | undefined;
  /** The body began with a UTF-8 byte-order mark (skipped for parsing, as clients do). */
  bom: boolean;
  /** What chatprobe did not read of a hostile body (our cuts, said as ours). */
  cuts: string[];
  /** We stopped reading at our cap of `cap` bytes: the rest of the body was never seen (or, with
   *  `unparsed`, we read it and chose not to parse it). */
  truncated: boolean;
  /** Why a body read whole was not parsed (our limit): then `truncated` is set too. */
  unparsed?: string;
  cap: number;
  bytes: number;
  durationMs: number;
  /** performance.now() when the request was sent: a stream's times are relative to it. */
  startedAt: number;
  requestId: string | undefined;
  usage: Usage | undefined;
  transport: HttpResponse['transport'];
  /** For non-2xx answers: the message as received (any shape), its code, and the shape. */
  errorMessage: string | undefined;
  errorCode: string | undefined;
  /** `error.param`, when the envelope names the offending parameter. */
  errorParam: string | undefined;
  errorShape: ErrorShape | undefined;
  /** Why the call failed, when the failure is not attributable to the request (auth, quota, 5xx, …). */
  cause: Cause | undefined;
  /** The Content-Encoding the body came in, decoded by chatprobe as clients decode it (http/encoding.ts). */
  encoding?: string;
  /** For a probe request answered with a 5xx and sent once more: what the first try got. */
  firstTry?: { status: number | undefined; message: string | undefined };
}

export interface StreamExchange extends Exchange {
  isEventStream: boolean;
  sse: { eventCount: number; facts: SseFacts } | undefined;
  assembled: AssembledStream | undefined;
  /** Time to the first chunk with content, ms since the request. */
  ttftMs: number | undefined;
  /** Gaps between consecutive content chunks, ms. */
  gapsMs: number[];
  /** The server kept the stream open after `[DONE]`, and chatprobe stopped reading (http/client.ts AFTER_END_MS). */
  leftOpen?: boolean;
}

/** Characters of a (non-stream) body's text an exchange keeps once it is parsed. */
export const KEPT_TEXT_CHARS = 64 * 1024;

/** A string of its own: a slice of a large string would keep the large one alive. */
const flatCopy = (s: string): string => Buffer.from(s, 'utf8').toString('utf8');


const REQUEST_ID_HEADERS = [
  'x-request-id',
  'x-oneapi-request-id',
  'apim-request-id',
  'x-ds-trace-id',
  'request-id',
  'x-amzn-requestid',
  'x-trace-id',
  'cf-ray',
];

/** Characters of a stream's text kept for the record: a stream under our limits has far fewer. */
export const STREAM_RECORD_CHARS = 256 * 1024;
/** Events, and characters of their data, a stream's recorded exchange keeps (exchanges.har). */
export const RECORDED_EVENTS = 512;
export const RECORDED_EVENT_CHARS = 64 * 1024;

/**
 * A 2xx answer to a stream request, read as it arrives: events are parsed and assembled one by one and
 * let go, and the text is kept up to `keep` characters for the record (the evidence says where it was cut).
 * Memory stays flat however long the stream runs; the deadline still ends an endless one.
 */
export class StreamSink implements BodySink {
  private readonly assembler = new StreamAssembler();
  private readonly reader = new SseReader({
    onEvent: (ev) => {
      this.eventCount++;
      this.assembler.push(ev);
      if (this.recordEvents && this.events.length < RECORDED_EVENTS && this.eventChars < RECORDED_EVENT_CHARS) {
        const data = ev.data.slice(0, RECORDED_EVENT_CHARS - this.eventChars);
        this.events.push({ at: ev.at, data });
        this.eventChars += data.length;
      }
    },
    onText: (t) => this.keepText(t),
  });
  private kept = '';
  /** Characters of text read in all, kept or not. */
  private seen = 0;
  eventCount = 0;
  /** The first events with their arrival times, for the recorded exchange (RECORDED_EVENTS at most). */
  readonly events: { at: number; data: string }[] = [];
  private eventChars = 0;

  /** `recordEvents`: keep the first events for the recorded exchange (exchanges.har); without a record, none. */
  constructor(
    private readonly keep = STREAM_RECORD_CHARS,
    private readonly recordEvents = true,
  ) {}

  /** A 2xx is read as it comes; a compressed one is left to the capped read, and decoded whole (http/encoding.ts). */
  start(status: number, headers: Record<string, string>): boolean {
    const encoding = headers['content-encoding'];
    return status >= 200 && status < 300 && (encoding === undefined || encoding.trim().toLowerCase() === 'identity');
  }

  push(bytes: Uint8Array, at: number): void {
    this.reader.push(bytes, at);
  }

  end(at: number): void {
    this.reader.end(at);
  }

  /** `[DONE]` or an error event came: the stream said its last word (the OpenAI SDKs stop reading at either). */
  get finished(): boolean {
    const r = this.assembler.result;
    return r.done || r.errors.length > 0;
  }

  private keepText(t: string): void {
    this.seen += t.length;
    if (this.kept.length < this.keep) this.kept += t.slice(0, this.keep - this.kept.length);
  }

  /** The body's text as recorded: all of it, or its first `keep` characters. */
  get text(): string {
    return this.kept;
  }

  /** What the record leaves out, as our cut; undefined when it holds the whole body. */
  get recordCut(): string | undefined {
    if (this.seen <= this.keep) return undefined;
    return `chatprobe kept the first ${this.keep} of the stream's ${this.seen} characters in its record; all of it was read and judged`;
  }

  get facts(): SseFacts {
    return this.reader.facts;
  }

  get assembled(): AssembledStream {
    return this.assembler.result;
  }

}

/** Any character that is not white space (a test, where trim() would copy the whole body). */
const NOT_BLANK = /\S/;

/**
 * One answer as probes read it. `sunk` is the record a StreamSink kept of a body it read as it came: its
 * text, and whether that text is the body's first part only.
 */
export function toExchange(callId: string, req: HttpRequest, raw: HttpResponse, sunk?: { text: string; cut: boolean }): Exchange {
  const res = sunk ? raw : decodeResponse(raw);
  // Compressed bytes that did not decode are no text to read.
  let text = sunk?.text ?? (res.undecodable ? '' : bodyText(res.chunks));
  let truncated = res.truncated || (sunk?.cut ?? false);
  let unparsed: string | undefined;
  const contentType = (res.headers['content-type'] ?? '').toLowerCase();
  let json: unknown;
  let parseError: string | undefined;
  // A BOM before JSON is read by clients (fetch's json() drops it, as the OpenAI SDK does): a finding, not a failure.
  const bom = text.charCodeAt(0) === 0xfeff;
  const cuts: string[] = [];
  // A body we cut is no JSON document: parsing 2 MiB of a million choices only to fail costs time and memory.
  if (res.undecodable) parseError = res.undecodable;
  else if (truncated) parseError = 'the body was cut at chatprobe\'s cap';
  else if (!req.deepJson && tooDeep(text)) {
    // A million nested arrays are a hundred megabytes once parsed: such a body is not parsed at all, and
    // that is our limit, never the server's failure.
    truncated = true;
    unparsed = `JSON nested deeper than ${MAX_JSON_DEPTH} levels`;
    parseError = `${unparsed}: chatprobe does not parse it`;
  } else if (NOT_BLANK.test(text) && !contentType.includes('text/event-stream')) {
    try {
      json = JSON.parse(bom ? text.slice(1) : text);
    } catch (err) {
      parseError = (err as Error).message;
    }
  }
  // A million choices is a fault to report, not a million objects to carry through every probe.
  if (isObject(json) && Array.isArray(json.choices) && json.choices.length > MAX_CHOICES) {
    cuts.push(`the body carried ${json.choices.length} choices; chatprobe read the first ${MAX_CHOICES}`);
    json.choices = json.choices.slice(0, MAX_CHOICES);
  }
  if (choicesCut(json)) {
    cuts.push(`an answer's text passed ${MAX_TEXT} characters, or its tool calls ${MAX_TOOL_CALLS}: chatprobe read that much of it`);
  }
  const status = res.status;
  const ok = status !== undefined && status >= 200 && status < 300 && !res.transport;
  const headers = res.headers;
  let errorMessage: string | undefined;
  let errorCode: string | undefined;
  let errorParam: string | undefined;
  let errorShape: ErrorShape | undefined;
  if (!ok && !res.transport) {
    ({ message: errorMessage, code: errorCode, param: errorParam, shape: errorShape } = readError(json, text, contentType));
  }
  if (res.transport) errorMessage = res.transport.message;
  else if (status !== undefined && status >= 300 && status < 400) {
    errorMessage = `a redirect to ${res.headers.location ?? '(no Location)'}, not followed: chatprobe sends the key to the base URL's origin only; pass the final URL as --base-url`;
  }
  const cause = diagnose({ status, message: errorMessage, code: errorCode, transport: res.transport });
  // What was read is judged; what is kept for the record and the probes that read text is its start: an
  // answer held by a sampled set or a shared exchange is never megabytes of text (DESIGN: memory is flat).
  if (text.length > KEPT_TEXT_CHARS && !sunk) {
    const rest = unparsed ? 'it read all of it and parsed none' : truncated ? 'it read no further' : json !== undefined ? 'all of it was parsed and judged' : 'all of it was read';
    cuts.push(`chatprobe kept the first ${KEPT_TEXT_CHARS} of the body's ${text.length} characters; ${rest}`);
    text = flatCopy(text.slice(0, KEPT_TEXT_CHARS));
  }
  const x: Exchange = {
    callId,
    attempts: [callId],
    method: req.method,
    path: req.path,
    status,
    ok,
    headers,
    contentType,
    text,
    json,
    parseError,
    bom,
    cuts,
    truncated,
    cap: res.cap,
    bytes: res.bytes,
    durationMs: res.durationMs,
    startedAt: res.startedAt,
    requestId: requestIdOf(headers, json),
    usage: isObject(json) ? readUsage(json.usage) : undefined,
    transport: res.transport,
    errorMessage,
    errorCode,
    errorParam,
    errorShape,
    cause,
  };
  if (unparsed) x.unparsed = unparsed;
  if (res.encoding) x.encoding = res.encoding;
  return x;
}

export function toStreamExchange(callId: string, req: HttpRequest, raw: HttpResponse, sink?: StreamSink): StreamExchange {
  const sunk = raw.sunk && sink ? sink : undefined;
  const res = sunk ? raw : decodeResponse(raw);
  const cut = sunk?.recordCut;
  const base = toExchange(callId, req, res, sunk ? { text: sunk.text, cut: cut !== undefined } : undefined);
  if (cut) base.cuts.push(cut);
  if (res.leftOpen) base.cuts.push(`the server kept the stream open after its last word (data: [DONE], or an error event); chatprobe stopped reading ${AFTER_END_MS / 1000} s later, as the OpenAI SDKs stop there`);
  const isEventStream = base.contentType.includes('text/event-stream');
  // A stream that stalled or broke after a 2xx is still read: what arrived is evidence of how it failed.
  // An SSE body under another content type is read too, as the OpenAI SDK reads it.
  const streamed = base.status !== undefined && base.status >= 200 && base.status < 300;
  if (!streamed || !(isEventStream || looksLikeSse(base.text))) {
    return { ...base, isEventStream, sse: undefined, assembled: undefined, ttftMs: undefined, gapsMs: [] };
  }
  let facts: SseFacts;
  let assembled: AssembledStream;
  let eventCount: number;
  if (sunk) ({ facts, assembled, eventCount } = sunk);
  else {
    // Read as a sink reads it, event by event: the events are assembled as they come, not gathered.
    const assembler = new StreamAssembler();
    let count = 0;
    const reader = new SseReader({
      onEvent: (ev) => {
        count++;
        assembler.push(ev);
      },
    });
    for (const chunk of res.chunks) reader.push(chunk.bytes, chunk.at);
    reader.end(res.durationMs);
    facts = reader.facts;
    assembled = assembler.result;
    eventCount = count;
  }
  if (assembled.textCut) base.cuts.push(`an answer's text passed ${MAX_TEXT} characters: chatprobe kept that much of it and read the rest`);
  const gapsMs: number[] = [];
  for (let i = 1; i < assembled.contentTimes.length; i++) {
    gapsMs.push(round(assembled.contentTimes[i]! - assembled.contentTimes[i - 1]!));
  }
  // Decoded whole once it ended: when each part came is not known.
  if (res.encoding) base.cuts.push(`the stream came ${res.encoding}-encoded: chatprobe decoded it whole once it ended, so when each part arrived is not known`);
  const x: StreamExchange = {
    ...base,
    json: undefined,
    parseError: undefined,
    // Read to its end as it came: a record kept in part is no cut of what was judged.
    truncated: sunk ? false : base.truncated,
    requestId: base.requestId ?? assembled.ids[0],
    usage: assembled.usage.at(-1),
    isEventStream,
    sse: { eventCount, facts },
    assembled,
    ttftMs: res.encoding ? undefined : assembled.firstContentAt,
    gapsMs: res.encoding ? [] : gapsMs,
  };
  if (res.leftOpen) x.leftOpen = true;
  return x;
}

/** The first line of the body is an SSE field or comment. */
export function looksLikeSse(text: string): boolean {
  return /^\uFEFF?\s*(data|event|id|retry)?:/.test(text.slice(0, 200));
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

function requestIdOf(headers: Record<string, string>, json: unknown): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const v = headers[name];
    if (v) return v;
  }
  return isObject(json) && typeof json.id === 'string' ? json.id : undefined;
}
