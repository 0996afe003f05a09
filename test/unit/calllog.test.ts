import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallLog, type Transport } from '../../src/engine/calls.js';
import type { HeldSlot } from '../../src/engine/slots.js';
import { HttpClient } from '../../src/http/client.js';
import { ModelCaller, STALL_AFTER } from '../../src/engine/requests.js';

/** Answers each request 5 ms after it arrives, recording the order of arrival and the most in flight. */
let server: Server;
let base: string;
const arrived: string[] = [];
let inFlight = 0;
let most = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    arrived.push(new URL(req.url!, 'http://x').searchParams.get('tag') ?? '');
    most = Math.max(most, ++inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    }, 5);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function open(concurrency: number): { log: CallLog; close: () => Promise<void> } {
  arrived.length = 0;
  most = 0;
  const client = new HttpClient({ baseUrl: base, apiKey: undefined, headers: {}, timeoutMs: 5000 });
  return { log: new CallLog(client, undefined, { retries: 0, rpm: undefined, concurrency }), close: () => client.close() };
}

const get = (log: CallLog, tag: string, slot?: HeldSlot) => log.send({ method: 'GET', path: `/t?tag=${tag}` }, 'test', undefined, slot);

describe('CallLog request slots', () => {
  it('holds --concurrency requests in flight at most, however many calls wait', async () => {
    const { log, close } = open(2);
    const calls = Array.from({ length: 12 }, (_, i) => get(log, `r${i}`));
    // What the live line shows: two in flight, the other ten waiting for a slot.
    expect([log.inFlight, log.queued]).toEqual([2, 10]);
    const all = await Promise.all(calls);
    expect([log.inFlight, log.queued]).toEqual([0, 0]);
    await close();
    expect(all.every((x) => x.status === 200)).toBe(true);
    expect(arrived).toHaveLength(12);
    expect(most).toBe(2);
  });

  it('sends the calls of a sequence back to back: at concurrency 1 nothing comes between them', async () => {
    const { log, close } = open(1);
    // Another probe's calls, one after another: without a held slot they would alternate with a1…a4.
    const others = (async () => {
      for (const t of ['b1', 'b2', 'b3']) await get(log, t);
    })();
    const series = log.sequence(async (slot) => {
      for (const t of ['a1', 'a2', 'a3', 'a4']) await get(log, t, slot);
    });
    await Promise.all([others, series]);
    await close();
    expect(arrived).toHaveLength(7);
    const at = arrived.indexOf('a1');
    expect(arrived.slice(at, at + 4)).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(most).toBe(1);
  });

});

describe('a row stalls on calls that get no answer, not on streams that never end', () => {
  let hangs: Server;
  let url: string;
  const held: ServerResponse[] = [];
  beforeAll(async () => {
    hangs = createServer((req, res) => {
      let raw = '';
      req.on('data', (d: Buffer) => (raw += d.toString()));
      req.on('end', () => {
        held.push(res);
        const model = (JSON.parse(raw) as { model: string }).model;
        if (model === 'silent') return; // no headers, ever
        if (model === 'headers-only') return void res.writeHead(200, { 'content-type': 'application/json' }).flushHeaders(); // then nothing
        if (model === 'stream-opened') return void res.writeHead(200, { 'content-type': 'text/event-stream' }).flushHeaders(); // a model at work on the prompt
        // Headers and events, and no end: a stream that runs past any timeout.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const tick = setInterval(() => res.write(`data: {"choices":[{"index":0,"delta":{"content":"x"}}]}\n\n`), 20);
        res.on('close', () => clearInterval(tick));
      });
    });
    await new Promise<void>((r) => hangs.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(hangs.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    for (const res of held) res.destroy();
    hangs.closeAllConnections();
    await new Promise((r) => hangs.close(r));
  });

  const caller = (model: string) => {
    const client = new HttpClient({ baseUrl: url, apiKey: undefined, headers: {}, timeoutMs: 150 });
    return { caller: new ModelCaller(new CallLog(client, undefined), model), close: () => client.close() };
  };

  it.each(['endless', 'stream-opened'])('two streams in a row that began and never ended leave the row running (%s: events, or only the event stream’s headers)', async (model) => {
    const { caller: c, close } = caller(model);
    for (let i = 0; i < 3; i++) expect((await c.stream({ messages: [], max_tokens: 5 }, 'p')).transport?.code).toBe('timeout');
    await close();
    expect(c.stalled).toBeUndefined();
  });

  it.each(['silent', 'headers-only'])(`${STALL_AFTER} calls in a row with no answer at all stop the row (%s)`, async (model) => {
    const { caller: c, close } = caller(model);
    for (let i = 0; i < STALL_AFTER; i++) await c.chat({ messages: [], max_tokens: 5 }, 'p');
    await close();
    expect(c.stalled).toHaveLength(STALL_AFTER);
    await expect(c.chat({ messages: [], max_tokens: 5 }, 'p')).rejects.toThrow(/stopped answering/);
  });

  it('records what failed on the wire, as data, in the exchange and its trace record', async () => {
    const client = new HttpClient({ baseUrl: url, apiKey: undefined, headers: {}, timeoutMs: 150 });
    const log = new CallLog(client, undefined);
    const silent = await log.send({ method: 'POST', path: '/chat/completions', body: { model: 'silent' } }, 'p', 'silent');
    const slow = await log.send({ method: 'POST', path: '/chat/completions', body: { model: 'headers-only' } }, 'p', 'headers-only');
    await client.close();
    expect(silent.transport).toMatchObject({ code: 'timeout', kind: 'headers-timeout' });
    expect(slow.transport).toMatchObject({ code: 'timeout', kind: 'time-limit' });
    expect(log.trace.map((r) => [r.cause, r.transport])).toEqual([
      ['timeout', 'headers-timeout'],
      ['timeout', 'time-limit'],
    ]);
  });
});

describe('CallLog, error bodies', () => {
  /** A transport that answers each path with the status it names, and an error body. */
  const answering: Transport = {
    send: async (req) => {
      const status = Number(req.path.slice(1));
      const bytes = Buffer.from('{"error":{"message":"no","type":"invalid_request_error"}}');
      return { status, headers: { 'content-type': 'application/json' }, chunks: [{ at: 1, bytes }], bytes: bytes.length, truncated: false, cap: 1 << 20, durationMs: 1, startedAt: 0 };
    },
    prepare: () => ({ headers: {}, payload: undefined }),
    url: (path) => path,
    close: async () => {},
  };

  it('marks an error body in a 2xx only: a 400 carrying the error envelope is no success with an error in it', async () => {
    const log = new CallLog(answering, undefined);
    const ok = await log.send({ method: 'GET', path: '/200' }, 'p', 'm');
    const refused = await log.send({ method: 'GET', path: '/400' }, 'p', 'm');
    expect(log.errorBodyIn2xx(ok.callId)).toBe(true);
    expect(log.errorBodyIn2xx(refused.callId)).toBe(false);
  });
});
