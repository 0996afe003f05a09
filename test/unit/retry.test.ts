import { describe, expect, it, vi } from 'vitest';
import { CallLog, MAX_RETRY_WAIT_MS, retryDelay, turnWait, WALL_CLOCK, type CallClock, type Transport } from '../../src/engine/calls.js';
import type { Exchange } from '../../src/engine/exchange.js';

const x = (status: number, headers: Record<string, string>, cause?: Exchange['cause']) => ({ status, headers, cause }) as Exchange;

describe('retryDelay', () => {
  it('waits as Retry-After says, in seconds or as an HTTP date', () => {
    expect(retryDelay(x(429, { 'retry-after': '2' }, 'rate_limited'), 0)).toEqual({ waitMs: 2000 });
    expect(retryDelay(x(429, { 'retry-after': '0.5' }, 'rate_limited'), 0)).toEqual({ waitMs: 500 });
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryDelay(x(503, { 'retry-after': 'Thu, 01 Jan 2026 00:00:07 GMT' }, 'upstream'), 0, now)).toEqual({ waitMs: 7000 });
  });

  it('backs off 1 s, 2 s, 4 s on a 429 without Retry-After', () => {
    expect(retryDelay(x(429, {}, 'rate_limited'), 0)).toEqual({ waitMs: 1000 });
    expect(retryDelay(x(429, {}, 'rate_limited'), 2)).toEqual({ waitMs: 4000 });
  });

  it('stops rather than wait longer than 30 s', () => {
    const d = retryDelay(x(429, { 'retry-after': '120' }, 'rate_limited'), 0);
    expect(d).toMatchObject({ stop: expect.stringContaining('120 s') });
    expect(MAX_RETRY_WAIT_MS).toBe(30_000);
  });

  it('does not retry quota 429s, other 5xx, or a 503 that does not say when', () => {
    expect(retryDelay(x(429, { 'retry-after': '1' }, 'quota'), 0)).toBeUndefined();
    expect(retryDelay(x(500, { 'retry-after': '1' }, 'upstream'), 0)).toBeUndefined();
    expect(retryDelay(x(502, {}, 'upstream'), 0)).toBeUndefined();
    expect(retryDelay(x(503, {}, 'model_not_in_group'), 0)).toBeUndefined();
    expect(retryDelay(x(400, {}), 0)).toBeUndefined();
  });
});

describe('--rpm turns', () => {
  it('waits 60/N seconds after the last turn taken, nothing when that has passed', () => {
    expect(turnWait(1000, -Infinity, 600)).toBe(0);
    expect(turnWait(1000, 1000, 600)).toBe(100);
    expect(turnWait(1040, 1000, 600)).toBe(60);
    expect(turnWait(1150, 1000, 600)).toBe(0);
  });

  it('spaces sends from when the turn before was taken: a timer that fires late leaves no short gap after it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(0);
      // The first wait's timer fires 30 ms late; the others on time. Three calls asked for at once.
      let late = 30;
      const clock: CallClock = {
        ...WALL_CLOCK,
        async wait(ms) {
          const from = Date.now();
          await Promise.resolve();
          vi.setSystemTime(Math.max(Date.now(), from + ms) + late);
          late = 0;
        },
      };
      const sent: number[] = [];
      const transport: Transport = {
        async send() {
          sent.push(Date.now());
          return { status: 200, headers: { 'content-type': 'application/json' }, chunks: [{ at: 1, bytes: Buffer.from('{}') }], bytes: 2, truncated: false, cap: 1 << 20, durationMs: 1, startedAt: 0 };
        },
        prepare: () => ({ headers: {}, payload: undefined }),
        url: (path) => path,
        close: async () => {},
      };
      const log = new CallLog(transport, undefined, { retries: 0, rpm: 600 });
      log.clock = clock;
      await Promise.all([1, 2, 3].map((i) => log.send({ method: 'POST', path: '/chat/completions', body: { i } }, 'p', 'm')));
      expect(sent).toEqual([30, 130, 230]);
    } finally {
      vi.useRealTimers();
    }
  });
});
