import { EventEmitter } from 'node:events';
import { Agent, request, type Dispatcher } from 'undici';

/**
 * What chatprobe reads of one answer. Chat answers under our output limits are a few kilobytes, so 2 MiB
 * is far beyond any honest one; model lists get more (100,000 models are ~10 MB). A cut at a cap is ours,
 * and the verdicts say so (engine/verdicts.ts ourCut).
 */
export const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024;
export const MODEL_LIST_MAX_BYTES = 32 * 1024 * 1024;

/** Why a call produced no complete HTTP response. Mapped to a failure cause in engine/diagnose.ts. */
export type TransportFailure =
  | { code: 'timeout'; message: string }
  | { code: 'network'; message: string };

export interface BodyChunk {
  /** Milliseconds since the request was sent. */
  at: number;
  bytes: Uint8Array;
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  /** Path below the base URL, e.g. `/chat/completions`; with `fromOrigin`, below the base URL without its
   *  final `/v1` (gateways' own routes: new-api's /api/usage/token, LiteLLM's /key/info). */
  path: string;
  fromOrigin?: boolean;
  /** A value is sent as JSON; a string is sent as it is (malformed JSON probes). */
  body?: unknown;
  rawBody?: string;
  /** `default` sends the configured key as a bearer token; `raw-key` sends it without the scheme; the auth
   *  probes send their own header or none. */
  auth?: 'default' | 'none' | 'raw-key' | { authorization: string };
  /** Headers of this request alone, beside the client's own (the passthrough audit's marked header). */
  headers?: Record<string, string>;
  /** Seconds to wait for the whole exchange, overriding the client's default. */
  timeoutMs?: number;
  /** Bytes read at most, overriding the client's default. */
  maxBodyBytes?: number;
  /** Parse a JSON answer however deep it nests: the model list, read once, whose deep values the output
   *  boundary cuts. Other answers nested past MAX_JSON_DEPTH are read but not parsed (engine/exchange.ts). */
  deepJson?: boolean;
  /** Reads a 2xx body as it arrives (a stream): then the whole body is read, whatever its length. */
  sink?: BodySink;
}

/**
 * A reader fed each chunk of a body as it arrives, so that a stream is judged without being held: the
 * client then keeps no chunk itself and reads to the end (or the deadline), past the byte cap.
 */
export interface BodySink {
  /** Whether to read this answer as it comes: false leaves it to the client's capped read. */
  start(status: number, headers: Record<string, string>): boolean;
  push(bytes: Uint8Array, at: number): void;
  end(at: number): void;
}

export interface HttpResponse {
  status: number | undefined;
  headers: Record<string, string>;
  chunks: BodyChunk[];
  bytes: number;
  /** The body passed our cap (`cap` bytes) and we stopped reading there: our cut, never an out-of-memory. */
  truncated: boolean;
  /** The body went to the request's sink as it arrived; `chunks` is empty. */
  sunk?: boolean;
  /** The request body as sent (for the record: it never holds the key). */
  sentBody?: string;
  cap: number;
  durationMs: number;
  /** performance.now() when the request was sent: times in `chunks` are relative to it. */
  startedAt: number;
  transport?: TransportFailure;
  /** The connection closed before any answer and the request went again on a new one: why. */
  resent?: string;
}

export interface HttpClientOptions {
  baseUrl: string;
  apiKey: string | undefined;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Longest silence between two body chunks before the read gives up. */
  idleTimeoutMs?: number;
  maxBodyBytes?: number;
  dispatcher?: Dispatcher;
  /** Aborts every call in flight (SIGINT). */
  signal?: AbortSignal;
  /** Connections kept open to the origin at most (keep-alive; default 32). */
  connections?: number;
}

/**
 * A signal that aborts with a TimeoutError after `ms`, held by its own timer until cleared. Not
 * AbortSignal.timeout(): its timer holds the signal weakly, and Node 20's AbortSignal.any() holds its
 * sources weakly too, so a garbage collection can take the timeout away and a call that keeps receiving
 * bytes never ends (nodejs/node#57736; seen here as an endless stream read for 54 s under a 5 s timeout).
 */
export function deadlineSignal(ms: number): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(timeoutError()), ms);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

const timeoutError = () => new DOMException('The operation was aborted due to timeout', 'TimeoutError');

/**
 * One call's deadline, as the abort signal undici also accepts (an EventEmitter with `aborted` and
 * `reason`): an AbortController and its EventTarget per request cost a fifth of a fast call. Its timer
 * holds it strongly (see deadlineSignal for what a weak hold does), and the client aborts every live one
 * when the run is stopped, instead of combining each with the run's signal.
 */
class CallDeadline extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    ms: number,
    private readonly live: Set<CallDeadline>,
  ) {
    super();
    this.timer = setTimeout(() => this.abort(timeoutError()), ms);
    live.add(this);
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }

  clear(): void {
    clearTimeout(this.timer);
    this.live.delete(this);
  }
}

/** The base URL without its final `/v1`: where a gateway serves its own routes beside the API. */
export function originOf(base: string): string {
  return base.replace(/\/+$/, '').replace(/\/v1$/, '');
}

export class HttpClient {
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly base: string;
  /** The deadlines of the calls in flight, aborted together when the run's signal fires. */
  private readonly live = new Set<CallDeadline>();

  constructor(private readonly options: HttpClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.ownsDispatcher = !options.dispatcher;
    // Redirects are not followed: undici's request() has no redirect interceptor unless one is composed in.
    // Keep-alive, one request at a time per connection (pipelining 1; 0 would close each after its answer),
    // in a pool bounded per origin: a run opens about as many connections as it has requests in flight.
    this.dispatcher = options.dispatcher ?? new Agent({ connections: options.connections ?? 32, pipelining: 1 });
    const run = options.signal;
    run?.addEventListener('abort', () => {
      for (const d of [...this.live]) d.abort(run.reason);
    }, { once: true });
  }

  url(path: string, fromOrigin = false): string {
    return (fromOrigin ? originOf(this.base) : this.base) + path;
  }

  /**
   * The headers and body a request is sent with. Without `withKey`, for a record: an Authorization
   * header the key fills is named by the variable it comes from, never holds it (the body is not built).
   */
  prepare(req: HttpRequest, withKey: boolean): { headers: Record<string, string>; payload: string | undefined } {
    const headers: Record<string, string> = { accept: 'application/json, text/event-stream', ...this.options.headers, ...req.headers };
    const auth = req.auth ?? 'default';
    const key = withKey ? this.options.apiKey : '$OPENAI_API_KEY';
    if (auth === 'default') {
      if (this.options.apiKey) headers.authorization = `Bearer ${key}`;
    } else if (auth === 'raw-key') {
      if (this.options.apiKey) headers.authorization = key!;
    } else if (auth !== 'none') {
      headers.authorization = auth.authorization;
    }
    let payload: string | undefined;
    if (req.rawBody !== undefined) payload = req.rawBody;
    else if (req.body !== undefined && withKey) payload = JSON.stringify(req.body);
    if (req.rawBody !== undefined || req.body !== undefined) headers['content-type'] = 'application/json';
    return { headers, payload };
  }

  /**
   * Sends one request. A kept-alive connection the server closed while idle fails the next request on it
   * before any byte of answer (a race no client can avoid); that request is sent once more on a new
   * connection, and the response says so.
   */
  async send(req: HttpRequest): Promise<HttpResponse> {
    const first = await this.sendOnce(req);
    if (!closedUnanswered(first) || this.options.signal?.aborted) return first;
    const again = await this.sendOnce(req);
    return { ...again, resent: first.transport!.message };
  }

  private async sendOnce(req: HttpRequest): Promise<HttpResponse> {
    const timeoutMs = req.timeoutMs ?? this.options.timeoutMs;
    const maxBody = req.maxBodyBytes ?? this.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    const { headers, payload } = this.prepare(req, true);

    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
    const chunks: BodyChunk[] = [];
    let bytes = 0;
    let truncated = false;
    let status: number | undefined;
    let responseHeaders: Record<string, string> = {};
    let sink: BodySink | undefined;
    const timeout = new CallDeadline(timeoutMs, this.live);
    if (this.options.signal?.aborted) timeout.abort(this.options.signal.reason);
    const signal = timeout;
    try {
      const res = await request(this.url(req.path, req.fromOrigin), {
        method: req.method,
        headers,
        body: payload,
        dispatcher: this.dispatcher,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: this.options.idleTimeoutMs ?? timeoutMs,
      });
      status = res.statusCode;
      responseHeaders = flattenHeaders(res.headers);
      if (req.sink?.start(status, responseHeaders)) {
        const into = (sink = req.sink);
        await eachChunk(res.body, (chunk) => {
          bytes += chunk.length;
          into.push(chunk, elapsed());
          return true;
        });
        sink.end(elapsed());
        return { status, headers: responseHeaders, chunks, bytes, truncated, cap: maxBody, durationMs: elapsed(), startedAt: started, sentBody: payload, sunk: true };
      }
      await eachChunk(res.body, (chunk) => {
        const room = maxBody - bytes;
        if (chunk.length > room) {
          if (room > 0) chunks.push({ at: elapsed(), bytes: chunk.subarray(0, room) });
          bytes = maxBody;
          truncated = true;
          return false;
        }
        chunks.push({ at: elapsed(), bytes: chunk });
        bytes += chunk.length;
        return true;
      });
      return { status, headers: responseHeaders, chunks, bytes, truncated, cap: maxBody, durationMs: elapsed(), startedAt: started, sentBody: payload };
    } catch (err) {
      sink?.end(elapsed());
      return {
        status,
        headers: responseHeaders,
        chunks,
        bytes,
        truncated,
        cap: maxBody,
        durationMs: elapsed(),
        startedAt: started,
        sentBody: payload,
        transport: describeTransportFailure(err),
        ...(sink ? { sunk: true } : {}),
      };
    } finally {
      timeout.clear();
    }
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}

/** Codes of a connection closed or reset under a request. */
const CLOSED_CODES = /\b(UND_ERR_SOCKET|ECONNRESET|EPIPE)\b/;

function closedUnanswered(res: HttpResponse): boolean {
  return res.status === undefined && res.bytes === 0 && res.transport?.code === 'network' && CLOSED_CODES.test(res.transport.message);
}

/**
 * Reads a body chunk by chunk until it ends, or until `take` returns false (then the rest is not read and
 * the body is destroyed). Rejects with the body's error (an abort, a reset). Events rather than an async
 * iterator: the iterator's promise per chunk costs a fast call a tenth of its time.
 */
const ignore = () => {};

function eachChunk(body: Dispatcher.ResponseData['body'], take: (chunk: Buffer) => boolean): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = (err?: Error) => {
      // An error the body emits after this (a destroy racing an abort) has no one left to hear it.
      body.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose).on('error', ignore);
      if (err) reject(err);
      else resolve();
    };
    const onData = (chunk: Buffer) => {
      if (take(chunk)) return;
      done();
      body.destroy();
    };
    const onEnd = () => done();
    const onError = (err: Error) => done(err);
    // Destroyed without an error or an end (nothing should do that): what arrived is the answer.
    const onClose = () => done(body.errored ?? undefined);
    body.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

export function describeTransportFailure(err: unknown): TransportFailure {
  const e = err as { name?: string; code?: unknown; message?: string; cause?: { code?: unknown; message?: string } };
  // Node's error codes are strings; a DOMException's numeric code (23 for a timeout) says nothing to a reader.
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
  if (e?.name === 'TimeoutError') return { code: 'timeout', message: 'no complete answer within --timeout' };
  // OpenSSL's messages end with a line break.
  const message = `${(e?.message ?? String(err)).trim()}${e?.cause?.message ? ` (${e.cause.message.trim()})` : ''}`;
  if (e?.name === 'AbortError' || (code && TIMEOUT_CODES.has(code))) {
    return { code: 'timeout', message: code ? `${code}: ${message}` : message };
  }
  return { code: 'network', message: code && !message.includes(code) ? `${code}: ${message}` : message };
}

export function bodyText(chunks: readonly BodyChunk[]): string {
  return Buffer.concat(chunks.map((c) => c.bytes)).toString('utf8');
}
