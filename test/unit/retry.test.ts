import { describe, expect, it } from 'vitest';
import { MAX_RETRY_WAIT_MS, retryDelay } from '../../src/engine/calls.js';
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

describe('nextSlot (--rpm)', () => {
  it('spaces starts 60/N seconds apart, bursts included, and lets a late call start at once', async () => {
    const { nextSlot } = await import('../../src/engine/calls.js');
    // 600 a minute: one every 100 ms. Three calls asked for at the same moment.
    const a = nextSlot(1000, 0, 600);
    const b = nextSlot(1000, a.next, 600);
    const c = nextSlot(1000, b.next, 600);
    expect([a.waitMs, b.waitMs, c.waitMs]).toEqual([0, 100, 200]);
    // A call long after the last slot waits for nothing.
    expect(nextSlot(5000, c.next, 600)).toEqual({ waitMs: 0, next: 5100 });
  });
});
