import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { tooDeep } from '../wire/json-depth.js';
import { answerOf, MARKER, type Scripted, type UpstreamRecord } from './cases.js';

/**
 * `chatprobe upstream`: an OpenAI-type upstream to point one channel of a gateway at. It records every
 * request that reaches it (body, header names, header values with credentials left out) and answers as
 * the passthrough case named by the request's marker scripts it, so `chatprobe passthrough` sees both ends.
 * Its records are read at GET /_chatprobe/records?run=RUN[&case=CASE]; nothing else leaves it.
 */

/**
 * The only headers whose values are recorded: those that carry no credential by their nature. Every other
 * header (the gateway's credentials for its channel under any name, a user's session) is recorded by name.
 */
const RECORDED_VALUES = new Set([
  'host', 'content-type', 'content-length', 'accept', 'accept-encoding', 'accept-language', 'user-agent', 'connection',
  'transfer-encoding', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-real-ip', 'x-request-id',
  'traceparent', 'sec-fetch-mode', 'x-chatprobe-marker', 'content-encoding',
]);
export const NOT_RECORDED = '[not recorded]';
/** Records kept (the oldest go first), and body characters kept per record: at most about 128 MB. */
const KEPT = 2000;
const BODY_CHARS = 64 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Upstream {
  url: string;
  records: UpstreamRecord[];
  close(): Promise<void>;
}

export interface UpstreamOptions {
  port?: number;
  host?: string;
  /** Model ids listed at GET /v1/models (a gateway's channel test may ask). */
  models?: string[];
}

type Decoder = (b: Buffer, o: { maxOutputLength: number }) => Buffer;
/** "deflate" is zlib-wrapped by the standard, sent raw by some servers: either is read, as browsers do. */
const deflate: Decoder = (b, o) => (b.length > 0 && (b[0]! & 0x0f) === 8 && ((b[0]! << 8) | b[1]!) % 31 === 0 ? inflateSync(b, o) : inflateRawSync(b, o));
/** Request bodies a gateway compressed (Content-Encoding), read as the upstream a gateway targets would. */
const DECODERS: Record<string, Decoder> = { gzip: gunzipSync, 'x-gzip': gunzipSync, deflate, br: brotliDecompressSync };

/**
 * The body as text. One the gateway compressed is decompressed (an encoding we cannot read, or a body that
 * does not decompress, is kept as it came): its marker, and every field the cases compare, are inside.
 * Bounded either way, so a decompression bomb costs the upstream nothing.
 */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (d: Buffer) => {
      size += d.length;
      if (size <= BODY_CHARS * 4) parts.push(d);
    });
    req.on('end', () => {
      const raw = Buffer.concat(parts);
      const decode = DECODERS[String(req.headers['content-encoding'] ?? '').trim().toLowerCase()];
      let body: Buffer = raw;
      if (decode) {
        try {
          body = decode(raw, { maxOutputLength: BODY_CHARS * 4 });
        } catch {
          // not what it says it is (or larger than kept): recorded as it came
        }
      }
      resolve(body.toString('utf8'));
    });
    req.on('error', reject);
  });
}

async function answer(res: ServerResponse, s: Scripted): Promise<void> {
  if (s.kind === 'json') {
    res.writeHead(s.status, { 'content-type': 'application/json', ...s.headers });
    res.end(JSON.stringify(s.body));
    return;
  }
  if (s.kind === 'text') {
    res.writeHead(s.status, { 'content-type': s.contentType });
    res.end(s.body);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [i, frame] of s.frames.entries()) {
    if (res.destroyed) return;
    // Content chunks go a gap apart, so a gateway that buffers shows it.
    if (i > 0 && s.gapMs > 0 && frame.includes('"content":"') && !frame.includes('"content":""')) await sleep(s.gapMs);
    res.write(frame);
  }
  res.end();
}

export async function startUpstream(options: UpstreamOptions = {}): Promise<Upstream> {
  const records: UpstreamRecord[] = [];
  let seq = 0;
  const models = options.models?.length ? options.models : ['chatprobe-upstream'];
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://upstream');
      if (req.method === 'GET' && url.pathname === '/_chatprobe/records') {
        const run = url.searchParams.get('run');
        const c = url.searchParams.get('case');
        const found = records.filter((r) => r.run === run && (c === null || r.case === c));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ records: found }));
        return;
      }
      if (req.method === 'GET' && /\/models$/.test(url.pathname)) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'chatprobe' })) }));
        return;
      }
      const body = await readBody(req);
      const marker = MARKER.exec(body);
      const record: UpstreamRecord = {
        seq: ++seq,
        at: new Date().toISOString(),
        method: req.method ?? '',
        path: url.pathname,
        run: marker?.[1],
        case: marker?.[2],
        // A request without a marker is not chatprobe's (a misrouted user's): that it came is kept, not what
        // it said, nor any header value.
        headers: Object.entries(req.headers).map(([k, v]) => [k, marker && RECORDED_VALUES.has(k) ? (Array.isArray(v) ? v.join(', ') : (v ?? '')) : NOT_RECORDED]),
        body: marker ? body.slice(0, BODY_CHARS) : '',
      };
      records.push(record);
      if (records.length > KEPT) records.shift();
      if (req.method !== 'POST' || !/\/chat\/completions$/.test(url.pathname)) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `chatprobe upstream serves POST /v1/chat/completions, not ${req.method} ${url.pathname}`, type: 'invalid_request_error', param: null, code: 'not_found' } }));
        return;
      }
      let json: { model?: unknown } = {};
      try {
        // A body nested too deep to parse safely is answered as a plain request, as one that is not JSON.
        if (!tooDeep(body)) json = (JSON.parse(body) as typeof json | null) ?? {};
      } catch {
        // answered as a plain request
      }
      const model = typeof json.model === 'string' ? json.model : models[0]!;
      // Answered as the request arrived: a stream when it asks for one, with usage when it asks for that.
      await answer(res, answerOf(record.case, model, json));
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host && options.host !== '0.0.0.0' && options.host !== '::' ? options.host : '127.0.0.1';
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    records,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
