import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A gateway on 127.0.0.1 in front of an OpenAI-type upstream (chatprobe upstream), for the passthrough tests.
 *
 * - `faithful`: forwards the request's bytes and the answer's bytes as they come (the control).
 * - `tidy`: rebuilds every request and answer, changing nothing a client reads: request keys sorted; in a
 *   stream, its own ids, `system_fingerprint: null` added, keys reordered, comment lines dropped.
 * - `rebuilding`: what a real Node gateway that rebuilds every answer was seen to do. Requests: `stream_options.include_usage` added to
 *   every stream, `tools[].function.strict` dropped, `top_p` 0 and 1 dropped, `presence_penalty` clamped to
 *   0 … 1; a 4xx or 5xx answer sent again twice. Answers: `system_fingerprint` dropped, the choices cut to
 *   one, `""` content beside tool calls made null. Streams, without a Content-Type and racing: the second
 *   content chunk sent twice, the fourth after the fifth, the usage chunk replaced by a chunk repeating the
 *   last content piece with finish "stop" that carries the usage, sent before the finish chunk (held back
 *   until then), zero usage on every other event, its own ids.
 */
export type GatewayMode = 'faithful' | 'tidy' | 'rebuilding';

export interface Gateway {
  url: string;
  close(): Promise<void>;
}

/** Retries of an answer with status >= 400, in `rebuilding`. */
const RETRIES = 2;
const ZERO = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
type Obj = Record<string, any>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function read(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

const HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

function send(upstream: string, path: string, headers: IncomingHttpHeaders, body: Buffer): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const out = request(`${upstream}${path}`, {
      method: 'POST',
      // The client's headers go on (a gateway's own hop-by-hop ones and the length aside).
      headers: { ...Object.fromEntries(Object.entries(headers).filter(([k]) => !HOP.has(k))), 'content-length': body.length },
    });
    out.on('response', resolve);
    out.on('error', reject);
    out.end(body);
  });
}

function rebuildRequest(b: Obj): Obj {
  if (b.stream === true) b.stream_options = { ...(isObj(b.stream_options) ? b.stream_options : {}), include_usage: true };
  if (b.top_p === 0 || b.top_p === 1) delete b.top_p;
  if (typeof b.presence_penalty === 'number') b.presence_penalty = Math.min(1, Math.max(0, b.presence_penalty));
  if (Array.isArray(b.tools)) for (const t of b.tools) if (isObj(t) && isObj(t.function)) delete t.function.strict;
  return b;
}

function rebuildAnswer(b: unknown): unknown {
  if (!isObj(b)) return b;
  delete b.system_fingerprint;
  if (Array.isArray(b.choices)) {
    b.choices = b.choices.slice(0, 1);
    for (const c of b.choices) if (isObj(c) && isObj(c.message) && Array.isArray(c.message.tool_calls) && c.message.content === '') c.message.content = null;
  }
  return b;
}

const sorted = (o: Obj): Obj => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));

/** Reads an SSE body block by block as it arrives, and hands each block (comment or data) on. */
function blocks(up: IncomingMessage, onBlock: (block: string) => void, onEnd: () => void): void {
  let pending = '';
  up.setEncoding('utf8');
  up.on('data', (text: string) => {
    pending += text.replace(/\r\n?/g, '\n');
    let at: number;
    while ((at = pending.indexOf('\n\n')) >= 0) {
      const block = pending.slice(0, at);
      pending = pending.slice(at + 2);
      if (block.trim()) onBlock(block);
    }
  });
  up.on('end', () => {
    if (pending.trim()) onBlock(pending);
    onEnd();
  });
}

/** The data of one SSE event block, its data lines joined. */
const dataOf = (block: string): string =>
  block
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map((l) => l.replace(/^data: ?/, ''))
    .join('\n');

/** The racing, rebuilt stream of `rebuilding` (see above). */
function racingStream(up: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'cache-control': 'no-cache' });
  const emit = (ev: Obj | string) => res.write(`data: ${typeof ev === 'string' ? ev : JSON.stringify(ev)}\n\n`);
  const mine = (ev: Obj) => ({ ...ev, id: 'chatcmpl-gateway', usage: ZERO });
  let contentChunks = 0;
  let lastContent: Obj | undefined;
  let fourth: Obj | undefined;
  let finish: Obj | undefined;
  blocks(
    up,
    (block) => {
      const data = dataOf(block);
      if (!data) return;
      if (data.trim() === '[DONE]') {
        if (finish) emit(mine(finish));
        finish = undefined;
        emit('[DONE]');
        return;
      }
      const ev = JSON.parse(data) as Obj;
      const choice = Array.isArray(ev.choices) ? (ev.choices[0] as Obj | undefined) : undefined;
      if (!choice && isObj(ev.usage)) {
        // The usage chunk: its usage rides on a repeat of the last content piece, then the held finish chunk.
        const base = lastContent ?? ev;
        emit({ ...base, id: 'chatcmpl-gateway', choices: [{ ...(base.choices?.[0] ?? { index: 0, delta: {} }), finish_reason: 'stop' }], usage: ev.usage });
        if (finish) emit(mine(finish));
        finish = undefined;
        return;
      }
      if (choice && choice.finish_reason !== null && choice.finish_reason !== undefined) {
        finish = ev;
        return;
      }
      const content = choice && isObj(choice.delta) && typeof choice.delta.content === 'string' && choice.delta.content !== '';
      if (content) {
        contentChunks++;
        lastContent = ev;
        if (contentChunks === 4) {
          fourth = ev;
          return;
        }
        emit(mine(ev));
        if (contentChunks === 2) emit(mine(ev));
        if (contentChunks === 5 && fourth) emit(mine(fourth));
        return;
      }
      emit(mine(ev));
    },
    () => res.end(),
  );
}

/** The stream of `tidy`: every event with the gateway's own id, a null added and its keys reordered; comments dropped. */
function tidyStream(up: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  blocks(
    up,
    (block) => {
      const data = dataOf(block);
      if (!data) return;
      if (data.trim() === '[DONE]') {
        res.write('data: [DONE]\n\n');
        return;
      }
      const { choices, ...rest } = JSON.parse(data) as Obj;
      res.write(`data: ${JSON.stringify({ choices, ...rest, id: 'chatcmpl-tidy', system_fingerprint: null })}\n\n`);
    },
    () => res.end(),
  );
}

export async function startGateway(upstream: string, mode: GatewayMode): Promise<Gateway> {
  const server = createServer((req, res) => {
    void (async () => {
      const body = await read(req);
      const path = req.url ?? '/';
      if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      if (mode === 'faithful') {
        const up = await send(upstream, path, req.headers, body);
        res.writeHead(up.statusCode ?? 502, { 'content-type': up.headers['content-type'] ?? '', ...(up.headers['retry-after'] ? { 'retry-after': up.headers['retry-after'] } : {}) });
        up.on('data', (d: Buffer) => res.write(d));
        up.on('end', () => res.end());
        return;
      }
      let json: Obj;
      try {
        json = JSON.parse(body.toString('utf8')) as Obj;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'the gateway reads JSON' } }));
        return;
      }
      const rebuilt = Buffer.from(JSON.stringify(mode === 'tidy' ? sorted(json) : rebuildRequest(json)));
      let up = await send(upstream, path, req.headers, rebuilt);
      for (let retry = 0; mode === 'rebuilding' && retry < RETRIES && (up.statusCode ?? 0) >= 400; retry++) {
        await read(up);
        up = await send(upstream, path, req.headers, rebuilt);
      }
      const type = String(up.headers['content-type'] ?? '');
      if ((up.statusCode ?? 0) < 300 && type.includes('text/event-stream')) {
        if (mode === 'tidy') tidyStream(up, res);
        else racingStream(up, res);
        return;
      }
      const text = (await read(up)).toString('utf8');
      let answer: unknown;
      try {
        answer = JSON.parse(text);
      } catch {
        res.writeHead(up.statusCode ?? 502, { 'content-type': type }).end(text);
        return;
      }
      const out = mode === 'tidy' ? answer : rebuildAnswer(answer);
      res.writeHead(up.statusCode ?? 502, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
