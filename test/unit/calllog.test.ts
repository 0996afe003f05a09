import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallLog, type HeldSlot } from '../../src/engine/calls.js';
import { HttpClient } from '../../src/http/client.js';

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
    const all = await Promise.all(Array.from({ length: 12 }, (_, i) => get(log, `r${i}`)));
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
