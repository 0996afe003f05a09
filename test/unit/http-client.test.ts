import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyText, deadlineSignal, HttpClient } from '../../src/http/client.js';
import { describeTransportFailure } from '../../src/http/failure.js';
import { StreamSink } from '../../src/engine/exchange.js';

const KEY = 'sk-http-client-test';
let server: Server;
let base: string;
const seen: { path: string; authorization: string | undefined; headers: Record<string, unknown> }[] = [];
const stalled: ServerResponse[] = [];
const answered = new WeakSet<object>();
/** The connections that carried /v1/keep-alive requests. */
const kept = new Set<object>();

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ path: req.url!, authorization: req.headers.authorization, headers: req.headers });
    switch (req.url) {
      case '/v1/keep-alive':
        kept.add(req.socket);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
        return;
      case '/v1/one-per-socket':
        // Answers the first request on a connection and drops the connection under any later one: what a
        // server that closed an idle kept-alive connection looks like to the next request sent on it.
        if (answered.has(req.socket)) {
          req.socket.destroy();
          return;
        }
        answered.add(req.socket);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
        return;
      case '/v1/reset':
        req.socket.destroy();
        return;
      case '/v1/big':
        res.writeHead(200, { 'content-type': 'application/json' });
        // 64 KiB in 1 KiB writes; the client's cap is 10,000 bytes.
        for (let i = 0; i < 64; i++) res.write('x'.repeat(1024));
        res.end();
        return;
      case '/v1/redirect':
        res.writeHead(302, { location: '/v1/elsewhere' });
        res.end('moved');
        return;
      case '/v1/stall':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {}\n\n');
        stalled.push(res);
        return;
      case '/v1/done-open':
        // The whole stream, [DONE] included, and then the body never ends.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"choices":[{"index":0,"delta":{"content":"OK"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n');
        stalled.push(res);
        return;
      case '/v1/trickle': {
        // A byte every 20 ms, forever: only the client's total timeout ends it.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const tick = setInterval(() => res.write(':'), 20);
        res.on('close', () => clearInterval(tick));
        stalled.push(res);
        return;
      }
      case '/v1/hang':
        // Takes the request and never answers: no status line, no headers.
        stalled.push(res);
        return;
      case '/v1/reset-mid-body':
        // Headers and part of the body, then the connection torn down.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"choices":[', () => req.socket.destroy());
        return;
      case '/v1/not-http':
        // Bytes that are no HTTP answer where the status line should be.
        req.socket.end('SPEAKING SOMETHING ELSE\r\n\r\n');
        return;
      case '/v1/headers':
        // An informational answer first (103), then a header sent twice and one named __proto__.
        res.writeEarlyHints({ link: '</style.css>; rel=preload' });
        res.setHeader('x-twice', ['one', 'two']);
        res.setHeader('__proto__', 'just a header');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
        return;
      case '/prefix/v1/models':
      case '/prefix/api/usage/token':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ path: req.url }));
        return;
      case '/v1/echo-key':
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`bad key ${req.headers.authorization}`);
        return;
      default:
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  for (const res of stalled) res.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const client = (extra: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}) =>
  new HttpClient({ baseUrl: `${base}/`, apiKey: KEY, headers: { 'x-route': 'blue' }, timeoutMs: 5000, ...extra });

describe('HttpClient', () => {
  it('sends the key only as a bearer Authorization header, plus the extra headers', async () => {
    const c = client();
    const res = await c.send({ method: 'POST', path: '/chat/completions', body: { a: 1 } });
    await c.close();
    expect(res.status).toBe(200);
    expect(bodyText(res.chunks)).toBe('{"ok":true}');
    const req = seen.at(-1)!;
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.authorization).toBe(`Bearer ${KEY}`);
    expect(req.headers['x-route']).toBe('blue');
    expect(req.headers['content-type']).toBe('application/json');
  });

  it('sends no Authorization header when asked, or the one given', async () => {
    const c = client();
    await c.send({ method: 'GET', path: '/models', auth: 'none' });
    expect(seen.at(-1)!.authorization).toBeUndefined();
    await c.send({ method: 'GET', path: '/models', auth: { authorization: 'Basic abc' } });
    expect(seen.at(-1)!.authorization).toBe('Basic abc');
    await c.close();
  });

  it('cuts a body at the cap and says so, instead of reading it all', async () => {
    const c = client({ maxBodyBytes: 10_000 });
    const res = await c.send({ method: 'GET', path: '/big' });
    await c.close();
    expect(res.truncated).toBe(true);
    expect(res.bytes).toBe(10_000);
    expect(res.chunks.reduce((n, ch) => n + ch.bytes.length, 0)).toBe(10_000);
  });

  it('does not follow redirects', async () => {
    const c = client();
    const res = await c.send({ method: 'GET', path: '/redirect' });
    await c.close();
    expect(res.status).toBe(302);
    expect(seen.some((s) => s.path === '/v1/elsewhere')).toBe(false);
  });

  it('ends a stalled stream with a timeout, keeping what arrived, and says the body stalled', async () => {
    const c = client({ timeoutMs: 2000, idleTimeoutMs: 150 });
    const res = await c.send({ method: 'POST', path: '/stall', body: {} });
    await c.close();
    expect(res.status).toBe(200);
    expect(res.transport?.code).toBe('timeout');
    expect(res.transport?.kind).toBe('body-stall');
    expect(bodyText(res.chunks)).toBe('data: {}\n\n');
  });

  it('ends a slow answer at the total timeout even while bytes trickle in', async () => {
    const c = client({ timeoutMs: 200 });
    const res = await c.send({ method: 'POST', path: '/stall', body: {} });
    await c.close();
    expect(res.transport?.code).toBe('timeout');
    // The headers came: the answer was under way when --timeout ran out.
    expect(res.transport?.kind).toBe('time-limit');
    expect(res.durationMs).toBeLessThan(5000);
  });

  it('keeps its per-call deadline through garbage collection, combined with the run signal', async () => {
    // Node 20's AbortSignal.any() holds its sources weakly, and AbortSignal.timeout()'s timer holds its
    // signal weakly too: a collection takes the timeout away, and a composite of the two never aborts
    // (nodejs/node#57736; 200 of 200 lost in a plain script). The deadline the client uses must survive.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const parent = new AbortController();
    let fired = 0;
    const collector = setInterval(gc, 5);
    // Resolves when every composite has aborted; a lost deadline leaves it pending until the test times out.
    await new Promise<void>((resolve) => {
      for (let i = 0; i < 100; i++) {
        AbortSignal.any([deadlineSignal(100).signal, parent.signal]).addEventListener('abort', () => {
          if (++fired === 100) resolve();
        });
      }
    }).finally(() => clearInterval(collector));
    expect(fired).toBe(100);
  }, 3000);

  it('ends a trickling answer at the total timeout under garbage collection, with a run signal beside it', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const run = new AbortController();
    const c = client({ timeoutMs: 300, idleTimeoutMs: 5000, signal: run.signal });
    const collector = setInterval(gc, 10);
    try {
      const all = await Promise.all(Array.from({ length: 20 }, () => c.send({ method: 'POST', path: '/trickle', body: {} })));
      expect(all.map((res) => res.transport?.code)).toEqual(Array(20).fill('timeout'));
    } finally {
      clearInterval(collector);
      await c.close();
    }
  }, 4000);

  it('keeps connections alive: 40 requests, 4 at a time, open at most 4 connections', async () => {
    const c = client({ connections: 4 });
    let next = 0;
    const statuses: (number | undefined)[] = [];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next++ < 40) statuses.push((await c.send({ method: 'POST', path: '/keep-alive', body: { n: next } })).status);
      }),
    );
    await c.close();
    expect(statuses).toHaveLength(40);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(kept.size).toBeGreaterThan(0);
    expect(kept.size).toBeLessThanOrEqual(4);
  });

  it('sends a request again on a new connection when a kept-alive one closes under it, and says so', async () => {
    const c = client({ connections: 1 });
    const first = await c.send({ method: 'POST', path: '/one-per-socket', body: {} });
    const second = await c.send({ method: 'POST', path: '/one-per-socket', body: {} });
    await c.close();
    expect(first.status).toBe(200);
    expect(first.resent).toBeUndefined();
    expect(second.status).toBe(200);
    expect(second.resent).toMatch(/UND_ERR_SOCKET|ECONNRESET|EPIPE/);
  });

  it('sends a request at most twice when every connection closes under it, and reports the failure', async () => {
    const c = client();
    const before = seen.filter((s) => s.path === '/v1/reset').length;
    const res = await c.send({ method: 'POST', path: '/reset', body: {} });
    await c.close();
    expect(seen.filter((s) => s.path === '/v1/reset').length - before).toBe(2);
    expect(res.status).toBeUndefined();
    expect(res.transport?.code).toBe('network');
    expect(res.transport?.kind).toBe('reset');
    expect(res.resent).toBeDefined();
  });

  it('reads the final answer after an informational one, joins a repeated header and keeps a header named __proto__ as a header', async () => {
    const c = client();
    const res = await c.send({ method: 'GET', path: '/headers' });
    await c.close();
    expect(res.status).toBe(200);
    expect(bodyText(res.chunks)).toBe('{"ok":true}');
    expect(res.headers['x-twice']).toBe('one, two');
    expect(Object.getOwnPropertyDescriptor(res.headers, '__proto__')?.value).toBe('just a header');
    expect(Object.getPrototypeOf(res.headers)).toBe(Object.prototype);
  });

  it('sends to the base URL’s own path, and a gateway’s route to its origin’s path', async () => {
    const origin = base.replace(/\/v1$/, '');
    const c = new HttpClient({ baseUrl: `${origin}/prefix/v1`, apiKey: KEY, headers: {}, timeoutMs: 5000 });
    const api = await c.send({ method: 'GET', path: '/models' });
    const own = await c.send({ method: 'GET', path: '/api/usage/token', fromOrigin: true });
    await c.close();
    expect(JSON.parse(bodyText(api.chunks))).toEqual({ path: '/prefix/v1/models' });
    expect(JSON.parse(bodyText(own.chunks))).toEqual({ path: '/prefix/api/usage/token' });
  });

  it.each([
    ['Ctrl-C', undefined, { code: 'interrupted', kind: 'stopped', message: 'cut short: the run was interrupted (Ctrl-C, SIGTERM or SIGHUP)' }],
    ['--max-duration', new DOMException('The operation was aborted due to timeout', 'TimeoutError'), { code: 'deadline', kind: 'stopped', message: 'cut short: --max-duration ran out' }],
  ])('ends every call in flight when the run is stopped (%s), saying so, never blaming the server', async (_stop, reason, said) => {
    const run = new AbortController();
    const c = client({ signal: run.signal });
    // Both answers have begun, as the client reads them (their headers in), before the run stops.
    let begun = 0;
    const sink = { start: () => (begun++, false), push: () => {}, end: () => {} };
    const pending = [c.send({ method: 'GET', path: '/stall', sink }), c.send({ method: 'GET', path: '/trickle', sink })];
    await expect.poll(() => begun).toBe(2);
    run.abort(reason);
    const answers = await Promise.all(pending);
    // Sent once the run is stopped: ended at once, the same way.
    const late = await c.send({ method: 'GET', path: '/stall' });
    await c.close();
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.transport).toEqual(said);
    }
    expect(late.transport).toEqual(said);
  });

  it('ends a call waiting for a free connection at its own deadline, not when the connection frees', async () => {
    // One connection, held by a stalled stream: the second call waits in undici's queue past its deadline.
    const c = client({ connections: 1 });
    const order: string[] = [];
    const first = c.send({ method: 'GET', path: '/stall', timeoutMs: 1500 }).then((res) => (order.push('first'), res));
    const second = await c.send({ method: 'GET', path: '/keep-alive', timeoutMs: 200 }).then((res) => (order.push('second'), res));
    expect(second.status).toBeUndefined();
    expect(second.transport?.code).toBe('timeout');
    // It never had a connection: the pool's one was held.
    expect(second.transport?.kind).toBe('connect-timeout');
    expect((await first).transport?.code).toBe('timeout');
    expect(order).toEqual(['second', 'first']);
    await c.close();
  });

  it('stops reading a stream the server keeps open after [DONE], as a client that stops there does: no timeout, and it says so', async () => {
    const c = client({ timeoutMs: 30_000 });
    const sink = new StreamSink();
    const res = await c.send({ method: 'POST', path: '/done-open', body: {}, sink });
    await c.close();
    expect(res.status).toBe(200);
    expect(res.transport).toBeUndefined();
    expect(res.leftOpen).toBe(true);
    expect(sink.assembled.done).toBe(true);
    // AFTER_END_MS after [DONE], not --timeout.
    expect(res.durationMs).toBeLessThan(10_000);
  });

  it('answers when the reader of a stream fails at its end, and says why', async () => {
    const c = client();
    const sink = { start: () => true, push: () => {}, end: () => { throw new Error('the reader broke'); } };
    const res = await c.send({ method: 'GET', path: '/keep-alive', sink });
    await c.close();
    expect(res.status).toBe(200);
    expect(res.sunk).toBe(true);
    expect(res.transport).toEqual({ code: 'network', kind: 'reader', message: 'the reader broke' });
  });

  it('rejects a request whose body JSON cannot carry, rather than throwing', () => {
    const c = client();
    let sent: Promise<unknown> | undefined;
    expect(() => (sent = c.send({ method: 'POST', path: '/keep-alive', body: { n: 1n } }))).not.toThrow();
    return expect(sent!.finally(() => c.close())).rejects.toThrow(/BigInt/);
  });

  it('classifies a refused connection as a network failure', async () => {
    const c = new HttpClient({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: KEY, headers: {}, timeoutMs: 2000 });
    const res = await c.send({ method: 'GET', path: '/models' });
    await c.close();
    expect(res.status).toBeUndefined();
    expect(res.transport?.code).toBe('network');
    expect(res.transport?.kind).toBe('connect');
    expect(res.transport?.message).toContain('ECONNREFUSED');
  });

  it('says a server that takes the request and never answers gave no headers within --timeout', async () => {
    const c = client({ timeoutMs: 200 });
    const res = await c.send({ method: 'POST', path: '/hang', body: {} });
    await c.close();
    expect(res.status).toBeUndefined();
    expect(res.transport).toEqual({ code: 'timeout', kind: 'headers-timeout', message: 'no complete answer within --timeout' });
  });

  it('says a connection reset under a body was reset, keeping the status and what arrived, and does not send it again', async () => {
    const c = client();
    const before = seen.filter((s) => s.path === '/v1/reset-mid-body').length;
    const res = await c.send({ method: 'POST', path: '/reset-mid-body', body: {} });
    await c.close();
    expect(res.status).toBe(200);
    expect(bodyText(res.chunks)).toBe('{"choices":[');
    expect(res.transport?.code).toBe('network');
    expect(res.transport?.kind).toBe('reset');
    expect(res.resent).toBeUndefined();
    expect(seen.filter((s) => s.path === '/v1/reset-mid-body').length - before).toBe(1);
  });

  it('says an answer that is not HTTP is a protocol failure', async () => {
    const c = client();
    const res = await c.send({ method: 'GET', path: '/not-http' });
    await c.close();
    expect(res.status).toBeUndefined();
    expect(res.transport?.code).toBe('network');
    expect(res.transport?.kind).toBe('protocol');
  });
});

describe('the kind of a transport failure', () => {
  it('is read from the error code, never from the message', () => {
    const fail = (code: string, message = 'whatever the message says, BODY_TIMEOUT or ECONNRESET') => describeTransportFailure(Object.assign(new Error(message), { code }));
    expect(fail('UND_ERR_BODY_TIMEOUT')).toMatchObject({ code: 'timeout', kind: 'body-stall' });
    expect(fail('UND_ERR_HEADERS_TIMEOUT')).toMatchObject({ code: 'timeout', kind: 'headers-timeout' });
    expect(fail('UND_ERR_CONNECT_TIMEOUT')).toMatchObject({ code: 'timeout', kind: 'connect-timeout' });
    expect(fail('UND_ERR_SOCKET', 'other side closed')).toMatchObject({ code: 'network', kind: 'reset', message: 'UND_ERR_SOCKET: other side closed' });
    expect(fail('ECONNREFUSED')).toMatchObject({ code: 'network', kind: 'connect' });
    expect(fail('ENOTFOUND')).toMatchObject({ code: 'network', kind: 'connect' });
    expect(fail('ERR_SSL_WRONG_VERSION_NUMBER')).toMatchObject({ code: 'network', kind: 'tls' });
    expect(fail('EPROTO')).toMatchObject({ code: 'network', kind: 'tls' });
    expect(fail('DEPTH_ZERO_SELF_SIGNED_CERT')).toMatchObject({ code: 'network', kind: 'certificate' });
    expect(fail('ERR_TLS_CERT_ALTNAME_INVALID')).toMatchObject({ code: 'network', kind: 'certificate' });
    expect(fail('UNABLE_TO_VERIFY_LEAF_SIGNATURE')).toMatchObject({ code: 'network', kind: 'certificate' });
    expect(fail('HPE_INVALID_CONSTANT')).toMatchObject({ code: 'network', kind: 'protocol' });
    // A message that names a code is not the code: an error without one is of no known kind.
    expect(describeTransportFailure(new Error('UND_ERR_BODY_TIMEOUT ECONNRESET certificate'))).toMatchObject({ code: 'network', kind: 'other' });
    // The code on the error's cause (fetch's TypeError wraps the socket's error).
    expect(describeTransportFailure(Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) }))).toMatchObject({ code: 'network', kind: 'reset' });
  });

  it('of our own deadline is told by how far the call had got', () => {
    const late = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    expect(describeTransportFailure(late, 'connect')).toEqual({ code: 'timeout', kind: 'connect-timeout', message: 'no complete answer within --timeout' });
    expect(describeTransportFailure(late, 'headers')).toMatchObject({ kind: 'headers-timeout' });
    expect(describeTransportFailure(late, 'body')).toMatchObject({ kind: 'time-limit' });
  });
});
