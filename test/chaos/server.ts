/**
 * A hostile OpenAI-compatible server for the chaos tests: every chat "model" it lists is a way of breaking the
 * wire contract (bodies that lie, hang, reset, never end, explode when decompressed, echo the key…), plus model
 * ids that answer normally but carry text meant to break whatever prints or stores them.
 *
 * Loopback only, port 0. It must survive any client: every write checks that the client is still there, big
 * bodies are written in pieces with backpressure, and close() destroys every socket and timer so that it
 * returns at once even while endless responses are in flight.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createGzip } from 'node:zlib';

export type ModelsFault = 'none' | 'huge-body' | 'many-models' | 'html' | 'hang' | 'redirect' | 'status-500' | 'deep-entry' | 'ten-thousand' | 'twenty-five-hundred';

export interface ChaosOptions {
  modelsFault?: ModelsFault;
  /** token that the server echoes in faults that echo secrets (default: the caller's bearer token) */
  token?: string;
  /** GET /models also lists ids made of the caller's token (base64url and hex of it, after `kid-`), which answer normally. */
  keyInIds?: boolean;
}

export interface ChaosServer {
  /** Base URL ending in /v1. */
  url: string;
  /** Every request received: method, path, model (from the JSON body, if any), Authorization header (if sent), time. */
  received: { method: string; path: string; model?: string; authorization?: string; at: number }[];
  /** A second server on another loopback port, the target of cross-origin redirects; records what reaches it. `url` is its origin (no path). */
  otherOrigin: { url: string; received: { method: string; path: string; authorization?: string }[] };
  /** The chat fault names, which are also listed model ids. */
  faults: readonly string[];
  /** Model ids that answer normally but carry hostile text. */
  hostileIds: readonly string[];
  /** Ends every hanging or endless response and closes both servers. */
  close(): Promise<void>;
}

/**
 * The chat faults. Unless noted, a fault keeps to the requested mode (JSON for `stream: false`, SSE for
 * `stream: true`) and carries the same defect in both. Faults about streams (reset/hang-mid-stream, endless-*,
 * stream-100mb, line-20mb, done-*, event-error, many-chunk-ids, sse-for-json, key-echo-split, key-echo-comment)
 * answer SSE whatever the stream flag; json-for-sse answers JSON whatever the flag.
 */
const FAULTS = [
  'truncated-json',
  'json-array',
  'json-string',
  'json-null',
  'lying-content-length',
  'reset-before-headers',
  'reset-mid-body',
  'reset-mid-stream',
  'hang-before-headers',
  'hang-mid-body',
  'hang-mid-stream',
  'endless-data',
  'endless-comments',
  'body-50mb',
  'stream-100mb',
  'line-20mb',
  'invalid-utf8',
  'control-chars',
  'gzip-bomb',
  'false-gzip',
  'html-200',
  'text-200',
  'redirect-other-origin',
  'redirect-loop',
  '429-storm',
  '429-huge-retry',
  '429-date-retry',
  '401-on-chat',
  'echo-headers',
  'deep-json',
  'million-choices',
  'usage-negative',
  'usage-strings',
  'usage-huge',
  'done-first',
  'done-repeated',
  'event-error',
  'many-chunk-ids',
  'bom-json',
  'stall-after-first',
  '429-recover',
  'empty-200',
  'status-599',
  'sse-for-json',
  'json-for-sse',
  'key-echo-escaped',
  'key-echo-split',
  'key-echo-comment',
  'key-echo-header',
  'key-echo-pieces',
  'key-echo-invisible',
  'key-echo-encoded',
  'key-echo-redirect',
  'third-party-secrets',
] as const;
type Fault = (typeof FAULTS)[number];
const FAULT_SET: ReadonlySet<string> = new Set(FAULTS);

const HOSTILE_IDS = [
  'gha-inject\n::error title=x::injected',
  '::add-mask::masked-model',
  'a]]><testcase name="forged"/>]]>b',
  'ansi-\x1b[31mred\x1b[0m',
  'osc8-\x1b]8;;http://evil/\x07link\x1b]8;;\x07',
  `model with spaces "double" and 'single' quotes`,
  '../../etc/passwd',
  '<script>alert(1)</script>',
  `long-${'x'.repeat(4995)}`,
  'emoji-🤖🔥-model',
  '![x](http://127.0.0.1:9/track.png)',
  'a|b',
] as const;
const HOSTILE_SET: ReadonlySet<string> = new Set(HOSTILE_IDS);

/** What a server sets of its own or its upstream's secrets in `third-party-secrets`: none may be republished. */
export const THIRD_PARTY_SECRETS = {
  cookie: 'sess-Hq4Lp8Vz2Nw6Tc1Rk7',
  upstream: 'sk-upstream-Mb3Xq9Wf5Jd2Ly8P',
  apiKey: 'upk-Gt7Rz1Vc4Ns8Ke2Qh',
} as const;

/** The forms of a token `key-echo-encoded` sends, each one decoding step from it. */
export function encodedForms(token: string) {
  const pct = (s: string) => [...s].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
  return {
    base64: Buffer.from(token).toString('base64'),
    base64url: Buffer.from(token).toString('base64url'),
    hex: Buffer.from(token).toString('hex'),
    basic: `Basic ${Buffer.from(`gateway-user:${token}`).toString('base64')}`,
    reversed: [...token].reverse().join(''),
    doublePercent: encodeURIComponent(pct(token)),
    spaceSplit: [...token].join(' '),
  };
}

/** Ids GET /models lists with `keyInIds`. */
export const keyIds = (token: string) => [`kid-${Buffer.from(token).toString('base64url')}`, `kid-${Buffer.from(token).toString('hex')}`];

const CREATED = 1_700_000_000;
const USAGE = { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 };
const MAX_REQUEST_BYTES = 1024 * 1024;
const MB = 1024 * 1024;
/** A private-use marker, left raw by JSON.stringify, where big or hand-written JSON is spliced in. */
const MARK = '\uF8FFchaos\uF8FF';
const HTML_PAGE = '<!doctype html><html><head><title>Gateway console</title></head><body><div id="app">Please log in</div></body></html>';

let seq = 0;
const newId = () => `chatcmpl-chaos${(++seq).toString(36)}`;

const noop = () => {};

// ---------------------------------------------------------------- payloads

function completion(model: string, content: unknown = 'ok', extra: { message?: Record<string, unknown>; usage?: unknown } = {}) {
  return {
    id: newId(),
    object: 'chat.completion',
    created: CREATED,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null, ...extra.message }, logprobs: null, finish_reason: 'stop' }],
    usage: extra.usage ?? USAGE,
    system_fingerprint: null,
  };
}

function chunk(id: string, model: string, delta: Record<string, unknown>, finish: string | null = null) {
  return { id, object: 'chat.completion.chunk', created: CREATED, model, system_fingerprint: null, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] };
}

function usageChunk(id: string, model: string, usage: unknown = USAGE) {
  return { id, object: 'chat.completion.chunk', created: CREATED, model, system_fingerprint: null, choices: [], usage };
}

const data = (x: unknown) => `data: ${typeof x === 'string' ? x : JSON.stringify(x)}\n\n`;
const DONE = 'data: [DONE]\n\n';

/** JSON.stringify(value) split where the MARK string (with its quotes) stands. */
function around(value: unknown): [string, string] {
  const text = JSON.stringify(value);
  const at = text.indexOf(JSON.stringify(MARK));
  return [text.slice(0, at), text.slice(at + MARK.length + 2)];
}

let deepCache: string | undefined;
/** A 100,000-deep nested array. */
function deep(): string {
  deepCache ??= '['.repeat(100_000) + ']'.repeat(100_000);
  return deepCache;
}

let manyChoicesCache: string | undefined;
function emptyChoices(): string {
  manyChoicesCache ??= ',{}'.repeat(999_999);
  return manyChoicesCache;
}

let bomb: Promise<Buffer> | undefined;
/** gzip of 200 MB of zero bytes (about 200 KB), built once, on first use, a megabyte at a time. */
function gzipBomb(): Promise<Buffer> {
  bomb ??= new Promise<Buffer>((resolve, reject) => {
    const gz = createGzip({ level: 9 });
    const parts: Buffer[] = [];
    gz.on('data', (b: Buffer) => parts.push(b));
    gz.on('end', () => resolve(Buffer.concat(parts)));
    gz.on('error', reject);
    const zeros = Buffer.alloc(MB);
    let left = 200;
    const pump = () => {
      while (left > 0) {
        left--;
        if (!gz.write(zeros)) {
          gz.once('drain', pump);
          return;
        }
      }
      gz.end();
    };
    pump();
  });
  return bomb;
}

/** Every character as a JSON \uXXXX escape, quotes included: `"\u0073\u006b"`. */
function escapedLiteral(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) out += `\\u${s.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return `${out}"`;
}

function* repeat<T>(piece: T, times: number): Generator<T> {
  for (let i = 0; i < times; i++) yield piece;
}

/** The pieces of each part in turn, lazily (a part is a list or a generator of pieces, never a bare string). */
function* chain(...parts: (readonly (string | Buffer)[] | Generator<string | Buffer>)[]): Generator<string | Buffer> {
  for (const part of parts) yield* part;
}

function openaiError(message: string, type: string, code: string | null) {
  return JSON.stringify({ error: { message, type, param: null, code } });
}

// ---------------------------------------------------------------- per-request context

interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  model: string;
  stream: boolean;
  includeUsage: boolean;
  /** The token the key-echo faults echo. */
  token: string;
  /** The client went away (or the response ended): write nothing more. */
  gone(): boolean;
}

function context(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>, token: string): Ctx {
  let closed = false;
  res.once('close', () => {
    closed = true;
  });
  const opts = body.stream_options as { include_usage?: unknown } | undefined;
  return {
    req,
    res,
    model: typeof body.model === 'string' ? body.model : '',
    stream: body.stream === true,
    includeUsage: opts?.include_usage === true,
    token,
    gone: () => closed || res.destroyed || res.writableEnded || req.socket.destroyed,
  };
}

/** Resolves true on 'drain', false when the response closes first; leaves no listener behind. */
function drained(res: ServerResponse): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const done = (ok: boolean) => () => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = done(true);
    const onClose = done(false);
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}

/** Writes the pieces with backpressure; false when the client went away before the end. */
async function writeAll(c: Ctx, pieces: Iterable<string | Buffer>): Promise<boolean> {
  for (const piece of pieces) {
    if (c.gone()) return false;
    if (!c.res.write(piece) && !(await drained(c.res))) return false;
  }
  return !c.gone();
}

function sendBody(c: Ctx, status: number, body: string | Buffer, headers: Record<string, string | number> = {}): void {
  if (c.gone()) return;
  c.res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  c.res.end(body);
}

function sseHead(c: Ctx, headers: Record<string, string | number> = {}): void {
  c.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
}

async function sendSse(c: Ctx, frames: Iterable<string | Buffer>, headers: Record<string, string | number> = {}): Promise<void> {
  if (c.gone()) return;
  sseHead(c, headers);
  if (await writeAll(c, frames)) c.res.end();
}

/** role chunk, content chunks, finish chunk, usage chunk (if asked, or forced), [DONE]. */
function streamFrames(c: Ctx, o: { id?: string; pieces?: string[]; usage?: unknown; forceUsage?: boolean; done?: boolean } = {}): string[] {
  const id = o.id ?? newId();
  const frames = [data(chunk(id, c.model, { role: 'assistant', content: '' }))];
  for (const piece of o.pieces ?? ['o', 'k']) frames.push(data(chunk(id, c.model, { content: piece })));
  frames.push(data(chunk(id, c.model, {}, 'stop')));
  if (c.includeUsage || o.forceUsage) frames.push(data(usageChunk(id, c.model, o.usage)));
  if (o.done !== false) frames.push(DONE);
  return frames;
}

async function normal(c: Ctx, headers: Record<string, string | number> = {}): Promise<void> {
  if (c.stream) await sendSse(c, streamFrames(c), headers);
  else sendBody(c, 200, JSON.stringify(completion(c.model)), headers);
}

/** Leaves the request unanswered: only the client or close() ends it. */
function hang(): void {}

// ---------------------------------------------------------------- the faults

interface Shared {
  origin: string;
  other: string;
  timers: Set<NodeJS.Timeout>;
  counts: Map<string, number>;
}

/** A chat answer whose content (or a chunk's delta) is given as raw JSON text, spliced in as is. */
function rawContent(c: Ctx, json: string | Buffer): Buffer {
  const raw = typeof json === 'string' ? Buffer.from(json) : json;
  if (c.stream) {
    const id = newId();
    const [head, tail] = around(chunk(id, c.model, { content: MARK }));
    const [role, ...rest] = streamFrames(c, { id, pieces: [] });
    return Buffer.concat([Buffer.from(`${role}data: ${head}`), raw, Buffer.from(`${tail}\n\n${rest.join('')}`)]);
  }
  const [head, tail] = around(completion(c.model, MARK));
  return Buffer.concat([Buffer.from(head), raw, Buffer.from(tail)]);
}

async function sendInMode(c: Ctx, body: string | Buffer, headers: Record<string, string | number> = {}): Promise<void> {
  if (c.stream) await sendSse(c, [body], headers);
  else sendBody(c, 200, body, headers);
}

function every(c: Ctx, shared: Shared, ms: number, frame: (i: number) => string): void {
  let i = 0;
  const timer = setInterval(() => {
    if (c.gone()) return stop();
    if (c.res.writableNeedDrain) return; // a client that does not read: wait, do not buffer
    c.res.write(frame(i++));
  }, ms);
  const stop = () => {
    clearInterval(timer);
    shared.timers.delete(timer);
  };
  shared.timers.add(timer);
  c.res.once('close', stop);
}

async function fault(c: Ctx, name: Fault, shared: Shared): Promise<void> {
  const { req, res } = c;
  switch (name) {
    case 'truncated-json': {
      if (c.stream) {
        const frames = streamFrames(c);
        const cut = frames[1]!.slice(0, Math.floor(frames[1]!.length / 2));
        return sendSse(c, [frames[0]!, `${cut}\n\n`]);
      }
      const body = JSON.stringify(completion(c.model));
      return sendBody(c, 200, body.slice(0, Math.floor(body.length / 2)));
    }
    case 'json-array':
      if (c.stream) return sendSse(c, [...streamFrames(c, { done: false }).map((f) => f.replace(/^data: (.*)\n\n$/s, 'data: [$1]\n\n')), DONE]);
      return sendBody(c, 200, JSON.stringify([completion(c.model)]));
    case 'json-string':
      if (c.stream) return sendSse(c, [data('"ok"'), data('"ok"'), DONE]);
      return sendBody(c, 200, '"ok"');
    case 'json-null':
      if (c.stream) return sendSse(c, [data('null'), data('null'), DONE]);
      return sendBody(c, 200, 'null');
    case 'lying-content-length': {
      const body = Buffer.from(c.stream ? streamFrames(c).join('') : JSON.stringify(completion(c.model)));
      const type = c.stream ? 'text/event-stream' : 'application/json';
      res.writeHead(200, { 'content-type': type, 'content-length': body.length + 1000 });
      // The whole body, then the end of the connection, 1000 bytes short of what the header promised.
      res.write(body, () => req.socket.destroySoon());
      return;
    }
    case 'reset-before-headers':
      req.socket.resetAndDestroy();
      return;
    case 'reset-mid-body': {
      const body = c.stream ? streamFrames(c).join('') : JSON.stringify(completion(c.model));
      res.writeHead(200, { 'content-type': c.stream ? 'text/event-stream' : 'application/json', 'content-length': Buffer.byteLength(body) });
      res.write(body.slice(0, Math.floor(body.length / 2)), () => req.socket.resetAndDestroy());
      return;
    }
    case 'reset-mid-stream': {
      sseHead(c);
      res.write(streamFrames(c).slice(0, 2).join(''), () => req.socket.resetAndDestroy());
      return;
    }
    case 'hang-before-headers':
      return hang();
    case 'hang-mid-body': {
      const body = c.stream ? streamFrames(c).join('') : JSON.stringify(completion(c.model));
      res.writeHead(200, { 'content-type': c.stream ? 'text/event-stream' : 'application/json', 'content-length': Buffer.byteLength(body) });
      res.write(body.slice(0, Math.floor(body.length / 2)));
      return hang();
    }
    case 'hang-mid-stream':
      sseHead(c);
      res.write(streamFrames(c).slice(0, 2).join(''));
      return hang();
    case 'endless-data': {
      sseHead(c);
      const id = newId();
      res.write(data(chunk(id, c.model, { role: 'assistant', content: '' })));
      return every(c, shared, 5, (i) => data(chunk(id, c.model, { content: `x${i} ` })));
    }
    case 'endless-comments':
      sseHead(c);
      res.write(': ping\n\n');
      return every(c, shared, 5, () => ': ping\n\n');
    case 'body-50mb': {
      const piece = 'a'.repeat(64 * 1024);
      const times = (50 * MB) / piece.length;
      if (c.stream) {
        const id = newId();
        const frame = data(chunk(id, c.model, { content: piece }));
        const frames = streamFrames(c, { id, pieces: [] });
        return sendSse(c, chain([frames[0]!], repeat(frame, times), frames.slice(1)));
      }
      const [head, tail] = around(completion(c.model, MARK));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(head) + 50 * MB + Buffer.byteLength(tail) + 2 });
      if (await writeAll(c, chain([head, '"'], repeat(piece, times), ['"', tail]))) res.end();
      return;
    }
    case 'stream-100mb': {
      const id = newId();
      const frame = data(chunk(id, c.model, { content: 'x'.repeat(16 * 1024) }));
      const frames = streamFrames(c, { id, pieces: [] });
      return sendSse(c, chain([frames[0]!], repeat(frame, (100 * MB) / (16 * 1024)), frames.slice(1)));
    }
    case 'line-20mb': {
      const id = newId();
      const [head, tail] = around(chunk(id, c.model, { content: MARK }));
      const frames = streamFrames(c, { id, pieces: [] });
      const piece = 'x'.repeat(64 * 1024);
      return sendSse(c, chain([frames[0]!, `data: ${head}"`], repeat(piece, (20 * MB) / piece.length), [`"${tail}\n\n`], frames.slice(1)));
    }
    case 'invalid-utf8':
      return sendInMode(c, rawContent(c, Buffer.concat([Buffer.from('"o'), Buffer.from([0xff, 0xfe]), Buffer.from('k"')])));
    case 'control-chars': {
      const content = 'ok\u0000 \x1b[31mred\x1b[0m \x1b]8;;http://evil/\x07x\x1b]8;;\x07 line\rover \u202Eevil';
      if (c.stream) return sendSse(c, streamFrames(c, { pieces: ['ok', content.slice(2)] }));
      return sendBody(c, 200, JSON.stringify(completion(c.model, content)));
    }
    case 'gzip-bomb': {
      const gz = await gzipBomb();
      if (c.gone()) return;
      res.writeHead(200, { 'content-type': c.stream ? 'text/event-stream' : 'application/json', 'content-encoding': 'gzip', 'content-length': gz.length });
      res.end(gz);
      return;
    }
    case 'false-gzip':
      return sendInMode(c, c.stream ? streamFrames(c).join('') : JSON.stringify(completion(c.model)), { 'content-encoding': 'gzip' });
    case 'html-200':
      return sendBody(c, 200, HTML_PAGE, { 'content-type': 'text/html; charset=utf-8' });
    case 'text-200':
      return sendBody(c, 200, 'Error: upstream unavailable, please try again later', { 'content-type': 'text/plain; charset=utf-8' });
    case 'redirect-other-origin':
      return sendBody(c, 307, openaiError('moved', 'redirect', null), { location: `${shared.other}${req.url ?? '/'}` });
    case 'redirect-loop':
      return redirectLoop(c, shared);
    case '429-storm':
      return rateLimited(c, '0');
    case '429-huge-retry':
      return rateLimited(c, '99999');
    case '429-date-retry':
      return rateLimited(c, new Date(Date.now() + 3_600_000).toUTCString());
    case '401-on-chat':
      return sendBody(c, 401, openaiError('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'));
    case 'echo-headers': {
      const pairs: string[] = [];
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) pairs.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      return sendBody(c, 400, openaiError(`Bad request. Headers received: ${pairs.join('; ')}`, 'invalid_request_error', null));
    }
    case 'deep-json': {
      if (c.stream) {
        const id = newId();
        const [head, tail] = around(chunk(id, c.model, { content: 'ok', extra: MARK }));
        const frames = streamFrames(c, { id, pieces: [] });
        return sendSse(c, [frames[0]!, `data: ${head}`, deep(), `${tail}\n\n`, ...frames.slice(1)]);
      }
      const [head, tail] = around(completion(c.model, 'ok', { message: { extra: MARK } }));
      return sendBody(c, 200, head + deep() + tail);
    }
    case 'million-choices': {
      if (c.stream) {
        const id = newId();
        const text = JSON.stringify(chunk(id, c.model, { role: 'assistant', content: 'ok' }));
        const at = text.indexOf('}]') + 1; // the end of the one real choice
        return sendSse(c, [`data: ${text.slice(0, at)}`, emptyChoices(), `${text.slice(at)}\n\n`, ...streamFrames(c, { id, pieces: [] }).slice(1)]);
      }
      const text = JSON.stringify(completion(c.model));
      const at = text.indexOf('"finish_reason":"stop"}') + '"finish_reason":"stop"}'.length;
      return sendBody(c, 200, text.slice(0, at) + emptyChoices() + text.slice(at));
    }
    case 'usage-negative':
    case 'usage-strings':
    case 'usage-huge': {
      const usage =
        name === 'usage-negative'
          ? { prompt_tokens: -5, completion_tokens: -1, total_tokens: -6 }
          : name === 'usage-strings'
            ? { prompt_tokens: '5', completion_tokens: '1', total_tokens: '6' }
            : { prompt_tokens: 1e300, completion_tokens: 1e300, total_tokens: 1e300 };
      if (c.stream) return sendSse(c, streamFrames(c, { usage, forceUsage: true }));
      return sendBody(c, 200, JSON.stringify(completion(c.model, 'ok', { usage })));
    }
    case 'done-first':
      return sendSse(c, [DONE, ...streamFrames(c)]);
    case 'done-repeated':
      return sendSse(c, [...streamFrames(c), DONE, DONE]);
    case 'event-error': {
      const frames = streamFrames(c);
      const error = openaiError('upstream connection reset', 'server_error', 'upstream_error');
      return sendSse(c, [frames[0]!, frames[1]!, `event: error\ndata: ${error}\n\n`]);
    }
    case 'many-chunk-ids': {
      const model = c.model;
      const frames = streamFrames(c, { pieces: [] });
      function* chunks(): Generator<string> {
        let batch = '';
        for (let i = 0; i < 120_000; i++) {
          batch += data(chunk(`chatcmpl-chaos-many-${i}`, model, { content: 'x' }));
          if (i % 1000 === 999) {
            yield batch;
            batch = '';
          }
        }
        if (batch) yield batch;
      }
      return sendSse(c, chain([frames[0]!], chunks(), frames.slice(1)));
    }
    case 'bom-json':
      if (c.stream) return sendSse(c, ['\uFEFF', ...streamFrames(c)]);
      return sendBody(c, 200, `\uFEFF${JSON.stringify(completion(c.model))}`);
    case 'stall-after-first': {
      const n = (shared.counts.get(name) ?? 0) + 1;
      shared.counts.set(name, n);
      return n === 1 ? normal(c) : hang();
    }
    case '429-recover': {
      const n = (shared.counts.get(name) ?? 0) + 1;
      shared.counts.set(name, n);
      return n <= 2 ? rateLimited(c, '0') : normal(c);
    }
    case 'empty-200':
      return sendBody(c, 200, '');
    case 'status-599':
      return sendBody(c, 599, openaiError('network connect timeout error', 'server_error', null));
    case 'sse-for-json':
      return sendSse(c, streamFrames(c));
    case 'json-for-sse':
      return sendBody(c, 200, JSON.stringify(completion(c.model)));
    case 'key-echo-escaped':
      return sendInMode(c, rawContent(c, escapedLiteral(c.token)));
    case 'key-echo-split': {
      const t = c.token;
      const a = Math.floor(t.length / 3);
      const b = Math.floor((2 * t.length) / 3);
      return sendSse(c, streamFrames(c, { pieces: [t.slice(0, a), t.slice(a, b), t.slice(b)] }));
    }
    case 'key-echo-comment': {
      const padding = `:${' '.repeat(98)}\n`; // 100 characters: an empty comment line
      return sendSse(c, [`${padding}: authorization=Bearer ${c.token}\n\n`, ...streamFrames(c)]);
    }
    case 'key-echo-header':
      return normal(c, { 'x-debug': `token=${c.token}` });
    case 'key-echo-pieces': {
      // As a model streams tokens: 1 to 4 characters a delta, never 8 of the key in one event.
      const pieces: string[] = ['Your key: '];
      for (let at = 0, k = 0; at < c.token.length; k++) {
        const n = [1, 3, 2, 4][k % 4]!;
        pieces.push(c.token.slice(at, at + n));
        at += n;
      }
      pieces.push(' (echoed)');
      return sendSse(c, streamFrames(c, { pieces }));
    }
    case 'key-echo-invisible': {
      const invisible = ['\u{E0020}', '\u3164', '\uFFA0', '\u{1D173}'];
      const text = [...c.token].map((ch, i) => ch + invisible[i % invisible.length]).join('');
      return c.stream ? sendSse(c, streamFrames(c, { pieces: [text] })) : sendBody(c, 200, JSON.stringify(completion(c.model, text)));
    }
    case 'key-echo-encoded': {
      const text = Object.entries(encodedForms(c.token)).map(([k, v]) => `${k}: ${v}`).join('\n');
      const headers = { 'x-echo': encodedForms(c.token).base64, 'content-location': `${shared.other}/cb?k=${encodedForms(c.token).doublePercent}` };
      return c.stream ? sendSse(c, streamFrames(c, { pieces: [text] }), headers) : sendBody(c, 200, JSON.stringify(completion(c.model, text)), headers);
    }
    case 'key-echo-redirect': {
      const forms = encodedForms(c.token);
      return sendBody(c, 307, '', { location: `${shared.other}/v1/chat/completions?b=${forms.base64url}&p=${forms.doublePercent}&h=${forms.hex}` });
    }
    case 'third-party-secrets':
      return normal(c, {
        'set-cookie': `session=${THIRD_PARTY_SECRETS.cookie}; Path=/; HttpOnly`,
        'x-upstream-authorization': `Bearer ${THIRD_PARTY_SECRETS.upstream}`,
        'x-api-key': THIRD_PARTY_SECRETS.apiKey,
      });
  }
}

/**
 * 302 to itself. The first hop adds `?loop=1` so that the loop also holds for clients that turn a POST into a
 * GET on a 302 (fetch does): any request with that query is sent back to the same URL, whatever its method.
 */
function redirectLoop(c: Ctx, shared: Shared): void {
  const path = (c.req.url ?? '/').split('?')[0]!;
  sendBody(c, 302, openaiError('moved', 'redirect', null), { location: `${shared.origin}${path}?loop=1` });
}

function rateLimited(c: Ctx, retryAfter: string): void {
  sendBody(c, 429, openaiError('Rate limit reached for requests. Please try again later.', 'requests', 'rate_limit_exceeded'), { 'retry-after': retryAfter });
}

// ---------------------------------------------------------------- GET /v1/models

const entry = (id: string) => ({ id, object: 'model', created: CREATED, owned_by: 'chaos' });

async function listModels(c: Ctx, faultName: ModelsFault, shared: Shared, keyInIds: boolean): Promise<void> {
  const ids = [...FAULTS, ...HOSTILE_IDS];
  switch (faultName) {
    case 'none':
      return sendBody(c, 200, JSON.stringify({ object: 'list', data: [...ids, ...(keyInIds ? keyIds(c.token) : [])].map(entry) }));
    case 'huge-body': {
      const [head, tail] = around({ object: 'list', data: ids.map(entry), padding: MARK });
      const piece = 'p'.repeat(64 * 1024);
      const times = (50 * MB) / piece.length;
      c.res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(head) + 50 * MB + Buffer.byteLength(tail) + 2 });
      if (await writeAll(c, chain([head, '"'], repeat(piece, times), ['"', tail]))) c.res.end();
      return;
    }
    case 'many-models':
    case 'ten-thousand':
    case 'twenty-five-hundred': {
      const count = faultName === 'many-models' ? 100_000 : faultName === 'ten-thousand' ? 10_000 : 2_500;
      function* body(): Generator<string> {
        yield '{"object":"list","data":[';
        for (let i = 0; i < count; i += 1000) {
          const batch: string[] = [];
          for (let j = i; j < Math.min(count, i + 1000); j++) batch.push(JSON.stringify(entry(`m-${j}`)));
          yield (i > 0 ? ',' : '') + batch.join(',');
        }
        yield ']}';
      }
      c.res.writeHead(200, { 'content-type': 'application/json' });
      if (await writeAll(c, body())) c.res.end();
      return;
    }
    case 'html':
      return sendBody(c, 200, HTML_PAGE, { 'content-type': 'text/html; charset=utf-8' });
    case 'hang':
      return hang();
    case 'redirect':
      return sendBody(c, 302, openaiError('moved', 'redirect', null), { location: `${shared.other}${c.req.url ?? '/v1/models'}` });
    case 'status-500':
      return sendBody(c, 500, openaiError('The server had an error while processing your request.', 'server_error', null));
    case 'deep-entry': {
      const data = ids.map(entry) as Record<string, unknown>[];
      data[1] = { ...data[1], extra: MARK };
      const [head, tail] = around({ object: 'list', data });
      return sendBody(c, 200, head + deep() + tail);
    }
  }
}

// ---------------------------------------------------------------- plumbing

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const piece of req as AsyncIterable<Buffer>) {
    size += piece.length;
    if (size > MAX_REQUEST_BYTES) return undefined;
    parts.push(piece);
  }
  return Buffer.concat(parts).toString('utf8');
}

function parseObject(raw: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function bearer(req: IncomingMessage): string {
  return /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim() ?? '';
}

/** A server whose sockets are tracked, whose every error is swallowed, and whose handler cannot throw. */
function harden(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>): { server: Server; sockets: Set<Socket> } {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    req.on('error', noop);
    res.on('error', noop);
    handler(req, res).catch(() => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(openaiError('chaos server bug', 'server_error', null));
      } else {
        res.destroy();
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('error', noop);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  server.on('error', noop);
  return { server, sockets };
}

function listen(server: Server): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function shut(server: Server, sockets: Set<Socket>): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  });
}

export async function startChaosServer(options: ChaosOptions = {}): Promise<ChaosServer> {
  const modelsFault = options.modelsFault ?? 'none';
  const received: ChaosServer['received'] = [];
  const otherReceived: ChaosServer['otherOrigin']['received'] = [];
  const shared: Shared = { origin: '', other: '', timers: new Set(), counts: new Map() };
  let closing = false;

  const main = harden(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const line: ChaosServer['received'][number] = { method: req.method ?? '', path, at: Date.now() };
    if (req.headers.authorization !== undefined) line.authorization = req.headers.authorization;
    received.push(line);
    const raw = await readBody(req).catch(() => undefined);
    if (closing || req.socket.destroyed) return;
    const body = raw === undefined ? undefined : raw === '' ? {} : parseObject(raw);
    if (body && typeof body.model === 'string') line.model = body.model;
    const c = context(req, res, body ?? {}, options.token ?? bearer(req));
    if (/[?&]loop=1(&|$)/.test(req.url ?? '')) return redirectLoop(c, shared);
    if (req.method === 'GET' && path === '/v1/models') return listModels(c, modelsFault, shared, options.keyInIds === true);
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return sendBody(c, 404, openaiError(`Unknown request URL: ${req.method} ${path}.`, 'invalid_request_error', 'unknown_url'));
    }
    if (raw === undefined) return sendBody(c, 413, openaiError('Request body too large.', 'invalid_request_error', null));
    if (!body) return sendBody(c, 400, openaiError('We could not parse the JSON body of your request.', 'invalid_request_error', null));
    if (FAULT_SET.has(c.model)) return fault(c, c.model as Fault, shared);
    if (HOSTILE_SET.has(c.model) || /^(m-\d+|kid-.*)$/.test(c.model)) return normal(c);
    return sendBody(c, 404, openaiError(`The model \`${c.model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found'));
  });

  const other = harden(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const line: ChaosServer['otherOrigin']['received'][number] = { method: req.method ?? '', path };
    if (req.headers.authorization !== undefined) line.authorization = req.headers.authorization;
    otherReceived.push(line);
    const raw = await readBody(req).catch(() => undefined);
    if (closing || req.socket.destroyed) return;
    const body = (raw && parseObject(raw)) || {};
    const c = context(req, res, { ...body, model: 'other-origin' }, '');
    if (req.method === 'GET' && path === '/v1/models') return sendBody(c, 200, JSON.stringify({ object: 'list', data: [entry('other-origin')] }));
    if (req.method === 'POST' && path === '/v1/chat/completions') return normal(c);
    return sendBody(c, 404, openaiError(`Unknown request URL: ${req.method} ${path}.`, 'invalid_request_error', 'unknown_url'));
  });

  const [port, otherPort] = await Promise.all([listen(main.server), listen(other.server)]);
  shared.origin = `http://127.0.0.1:${port}`;
  shared.other = `http://127.0.0.1:${otherPort}`;

  let closed: Promise<void> | undefined;
  return {
    url: `${shared.origin}/v1`,
    received,
    otherOrigin: { url: shared.other, received: otherReceived },
    faults: FAULTS,
    hostileIds: HOSTILE_IDS,
    close: () => {
      closed ??= (async () => {
        closing = true;
        for (const timer of shared.timers) clearInterval(timer);
        shared.timers.clear();
        await Promise.all([shut(main.server, main.sockets), shut(other.server, other.sockets)]);
      })();
      return closed;
    },
  };
}
