import { Agent, type Dispatcher } from 'undici';
import { setOwn } from '../own.js';
import { describeTransportFailure, ReaderFailed, RunStopped, stopFailure, type CallPhase, type TransportFailure } from './failure.js';

export type { TransportFailure, TransportKind } from './failure.js';
export { stopFailure } from './failure.js';

/**
 * What chatprobe reads of one answer. Chat answers under our output limits are a few kilobytes, so 2 MiB
 * is far beyond any honest one; model lists get more (100,000 models are ~10 MB). A cut at a cap is ours,
 * and the verdicts say so (engine/verdicts.ts ourCut).
 */
export const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024;
export const MODEL_LIST_MAX_BYTES = 32 * 1024 * 1024;

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
  /** Milliseconds to wait for the whole exchange, overriding the client's default. */
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
  /** Whether the body has said its own last word (an event stream's `[DONE]`): the client then waits
   *  AFTER_END_MS more for the server to end it, and ends the read itself if it does not. */
  readonly finished?: boolean;
}

/** How long a body that said its last word may stay open before chatprobe stops reading it. */
export const AFTER_END_MS = 2000;

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
  /** The Content-Encoding the body came in, once http/encoding.ts decoded it (`chunks` then hold it decoded). */
  encoding?: string;
  /** Why an encoded body could not be decoded (an encoding chatprobe does not know, a broken stream). */
  undecodable?: string;
  /** The body said its last word (the sink's `finished`) but did not end within AFTER_END_MS: chatprobe
   *  stopped reading it then, as a client that stops at `[DONE]` does. Not a transport failure. */
  leftOpen?: boolean;
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
  /**
   * The environment variable the key was read from (default OPENAI_API_KEY): what the recorded request
   * shows in its place (`Bearer $NAME`), so a recorded curl command reads the same variable. A shell name.
   */
  keyVar?: string;
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

/** Why chatprobe stopped reading a body at its own cap: not an error of the exchange. */
const CAPPED = new Error('chatprobe read as much of this body as it keeps');

/**
 * One request as undici's dispatcher drives it, read as it arrives: the handler interface rather than
 * request(), whose body stream, async resource and abort listener cost a fast call about a third of its
 * time. It holds its own deadline (a timer held strongly: see deadlineSignal for what a weak hold does),
 * answers once, at the end of the body, at the deadline, at our byte cap or on the first error, and
 * aborts the request if it is still going.
 */
class InFlight implements Dispatcher.DispatchHandler {
  private readonly started = performance.now();
  private readonly chunks: BodyChunk[] = [];
  private bytes = 0;
  private truncated = false;
  private status: number | undefined;
  private headers: Record<string, string> = {};
  private sunk = false;
  private controller: Dispatcher.DispatchController | undefined;
  /** Why the call ended before undici started it (it is aborted when it starts). */
  private reason: Error | undefined;
  private settled = false;
  private readonly timer: NodeJS.Timeout;
  /** Started when the sink's body said its last word; ends the read if the server does not. */
  private lingering: NodeJS.Timeout | undefined;
  private leftOpen = false;

  constructor(
    private readonly cap: number,
    private readonly sink: BodySink | undefined,
    private readonly sentBody: string | undefined,
    private readonly timeoutMs: number,
    private readonly live: Set<InFlight>,
    /** Called once, with the response: from undici's callbacks, so it must only hand the response on. */
    private readonly resolve: (res: HttpResponse) => void,
  ) {
    this.timer = setTimeout(() => this.abort(timeoutError()), timeoutMs);
    live.add(this);
  }

  /** How far the call has got (undici starts a request once a connection is its). */
  private phase(): CallPhase {
    return this.status !== undefined ? 'body' : this.controller ? 'headers' : 'connect';
  }

  private elapsed(): number {
    return Math.round((performance.now() - this.started) * 10) / 10;
  }

  /** Ends the call with `reason` as its transport failure (our deadline, the run stopped). */
  abort(reason: unknown): void {
    if (this.settled) return;
    this.finish(reason ?? new Error('aborted'));
    const err = reason instanceof Error ? reason : new Error(String(reason));
    if (this.controller) this.controller.abort(err);
    else this.reason = err;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.reason) controller.abort(this.reason);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200 || this.settled) return; // 1xx: informational, the answer is still to come
    this.status = statusCode;
    this.headers = flattenHeaders(headers);
    this.sunk = this.sink?.start(statusCode, this.headers) ?? false;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    if (this.sunk) {
      this.bytes += chunk.length;
      this.sink!.push(chunk, this.elapsed());
      if (this.sink!.finished && !this.lingering) {
        this.lingering = setTimeout(() => {
          this.leftOpen = true;
          this.finish();
          controller.abort(CAPPED);
        }, Math.min(AFTER_END_MS, this.timeoutMs));
      }
      return;
    }
    const room = this.cap - this.bytes;
    if (chunk.length > room) {
      if (room > 0) this.chunks.push({ at: this.elapsed(), bytes: chunk.subarray(0, room) });
      this.bytes = this.cap;
      this.truncated = true;
      this.finish();
      controller.abort(CAPPED);
      return;
    }
    this.chunks.push({ at: this.elapsed(), bytes: chunk });
    this.bytes += chunk.length;
  }

  onResponseEnd(): void {
    this.finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    this.finish(err);
  }

  private finish(err?: unknown): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    if (this.lingering) clearTimeout(this.lingering);
    this.live.delete(this);
    const durationMs = this.elapsed();
    if (this.sunk) {
      try {
        this.sink!.end(durationMs);
      } catch (failed) {
        // The call must still answer (its deadline is already cleared): the reader's failure is said.
        err ??= new ReaderFailed((failed as Error)?.message ?? String(failed));
      }
    }
    const res: HttpResponse = {
      status: this.status,
      headers: this.headers,
      chunks: this.chunks,
      bytes: this.bytes,
      truncated: this.truncated,
      cap: this.cap,
      durationMs,
      startedAt: this.started,
      sentBody: this.sentBody,
    };
    if (this.sunk) res.sunk = true;
    if (this.leftOpen) res.leftOpen = true;
    if (err) res.transport = describeTransportFailure(err, this.phase());
    this.resolve(res);
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
  /** Where requests go (scheme, host, port), and the paths of the base URL and of the origin's routes. */
  private readonly origin: string;
  private readonly basePath: string;
  private readonly originPath: string;
  /** The calls in flight, aborted together when the run's signal fires. */
  private readonly live = new Set<InFlight>();
  /** The key as recorded: its variable's name. */
  private readonly keyShown: string;

  constructor(private readonly options: HttpClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.ownsDispatcher = !options.dispatcher;
    const url = new URL(this.base);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.originPath = originOf(this.basePath);
    this.keyShown = `$${options.keyVar ?? 'OPENAI_API_KEY'}`;
    // Redirects are not followed: undici's request() has no redirect interceptor unless one is composed in.
    // Keep-alive, one request at a time per connection (pipelining 1; 0 would close each after its answer),
    // in a pool bounded per origin: a run opens about as many connections as it has requests in flight.
    this.dispatcher = options.dispatcher ?? new Agent({ connections: options.connections ?? 32, pipelining: 1 });
    const run = options.signal;
    run?.addEventListener('abort', () => {
      const stop = new RunStopped(stopFailure(run.reason));
      for (const call of [...this.live]) call.abort(stop);
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
    // Spread: own properties, a header named __proto__ included.
    const headers: Record<string, string> = { accept: ACCEPT, ...this.options.headers, ...req.headers };
    const auth = req.auth ?? 'default';
    if (auth === 'default') {
      if (this.options.apiKey) headers.authorization = `Bearer ${withKey ? this.options.apiKey : this.keyShown}`;
    } else if (auth === 'raw-key') {
      if (this.options.apiKey) headers.authorization = withKey ? this.options.apiKey : this.keyShown;
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
   * connection, and the response says so. A body JSON cannot carry (a BigInt) rejects the call.
   */
  async send(req: HttpRequest): Promise<HttpResponse> {
    const first = await this.sendOnce(req);
    if (!closedUnanswered(first) || this.options.signal?.aborted) return first;
    return { ...(await this.sendOnce(req)), resent: first.transport!.message };
  }

  /** Sends one request and resolves with its response, whatever happened on the wire. */
  private sendOnce(req: HttpRequest): Promise<HttpResponse> {
    const timeoutMs = req.timeoutMs ?? this.options.timeoutMs;
    const { headers, payload } = this.prepare(req, true);
    return new Promise((resolve) => {
      const call = new InFlight(req.maxBodyBytes ?? this.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, req.sink, payload, timeoutMs, this.live, resolve);
      if (this.options.signal?.aborted) return call.abort(new RunStopped(stopFailure(this.options.signal.reason)));
      try {
        this.dispatcher.dispatch(
          {
            origin: this.origin,
            path: (req.fromOrigin ? this.originPath : this.basePath) + req.path,
            method: req.method,
            headers,
            body: payload,
            headersTimeout: timeoutMs,
            bodyTimeout: this.options.idleTimeoutMs ?? timeoutMs,
          },
          call,
        );
      } catch (err) {
        call.onResponseError(undefined, err as Error);
      }
    });
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}

const ACCEPT = 'application/json, text/event-stream';

function closedUnanswered(res: HttpResponse): boolean {
  return res.status === undefined && res.bytes === 0 && res.transport?.kind === 'reset';
}

/** One value per header (undici's names are lower-case already; a repeated header's values joined). */
function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) setOwn(out, name, typeof value === 'string' ? value : value.join(', '));
  }
  return out;
}

export function bodyText(chunks: readonly BodyChunk[]): string {
  return Buffer.concat(chunks.map((c) => c.bytes)).toString('utf8');
}
