import { describe, expect, it } from 'vitest';
import { keptHeader } from '../../src/engine/calls.js';
import { LoopLag, TICK_MS } from '../../src/engine/lag.js';
import { Slots } from '../../src/engine/slots.js';

/** A promise and the function that settles it, so a test decides when each holder finishes. */
function gate(): { promise: Promise<void>; open: () => void; fail: (e: Error) => void } {
  let open!: () => void;
  let fail!: (e: Error) => void;
  const promise = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

describe('Slots', () => {
  it('lets `size` holders in at once and the others in the order they asked', async () => {
    const slots = new Slots(2);
    const gates = [gate(), gate(), gate(), gate()];
    const started: number[] = [];
    const runs = gates.map((g, i) => slots.run(async () => (started.push(i), await g.promise, i)));
    expect(started).toEqual([0, 1]);
    expect([slots.activeCount, slots.pendingCount]).toEqual([2, 2]);
    gates[1]!.open();
    await runs[1];
    await expect.poll(() => started).toEqual([0, 1, 2]);
    gates[0]!.open();
    await runs[0];
    await expect.poll(() => started).toEqual([0, 1, 2, 3]);
    gates[2]!.open();
    gates[3]!.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect([slots.activeCount, slots.pendingCount]).toEqual([0, 0]);
  });

  it('frees the slot of a holder that throws, and passes the error on', async () => {
    const slots = new Slots(1);
    const g = gate();
    const failing = slots.run(() => g.promise);
    const next = slots.run(async () => 'ran');
    g.fail(new Error('boom'));
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe('ran');
    expect(slots.activeCount).toBe(0);
  });

  it('frees the slot of a holder that throws before it returns a promise', async () => {
    const slots = new Slots(1);
    await expect(slots.run(() => { throw new Error('at once'); })).rejects.toThrow('at once');
    expect(await slots.run(async () => 'next')).toBe('next');
    expect(slots.activeCount).toBe(0);
  });

  it('refuses a size below one', () => {
    expect(() => new Slots(0)).toThrow(RangeError);
  });
});

describe('keptHeader', () => {
  it('keeps rate limits, retry hints and request ids in the trace, and nothing else', () => {
    const kept = ['x-ratelimit-remaining-requests', 'retry-after', 'cf-ray', 'x-request-id', 'x-oneapi-request-id', 'apim-request-id', 'x-ds-trace-id', 'request-id', 'openai-processing-ms', 'openai-model', 'x-litellm-key-spend', 'x-openrouter-credits'];
    const dropped = ['authorization', 'set-cookie', 'x-api-key', 'content-type', 'x-ratelimit', 'x-request-ids', 'my-x-ratelimit-limit', 'retry-after-ms'];
    expect(kept.filter(keptHeader)).toEqual(kept);
    expect(dropped.filter(keptHeader)).toEqual([]);
  });
});

describe('LoopLag', () => {
  it('finds the worst lateness of the ticks covering a stretch, as its ring grows and after it wraps', () => {
    const lag = new LoopLag();
    lag.start(0);
    // Tick k fires at k * TICK_MS, late by 0 except every 1000th, late by k / 1000 ms.
    let at = 0;
    const times: number[] = [0];
    const lateBy = (k: number) => (k % 1000 === 0 ? k / 1000 : 0);
    for (let k = 1; k <= 9000; k++) {
      at += TICK_MS + lateBy(k);
      times.push(at);
      lag.tick(at);
      if (k === 2000 || k === 6500) {
        // Stretches before the ring grew and in it: tick 1000 alone, then ticks 1500 to 1600 (none late).
        expect(lag.worst(times[1000]! - 1, times[1000]!)).toBe(1);
        expect(lag.worst(times[1500]!, times[1600]!)).toBe(0);
      }
      if (k === 100 || k === 2000 || k === 9000) {
        // The whole run so far, and the stretch of the last 2 ticks.
        const expected = Math.max(0, ...Array.from({ length: k }, (_, j) => (k - j > 6000 ? 0 : lateBy(j + 1))));
        expect(lag.worst(0, at)).toBe(expected);
        expect(lag.worst(at - TICK_MS, at)).toBe(lateBy(k));
      }
    }
    // A minute of ticks is kept: tick 1000 (late by 1 ms) is gone, tick 9000 (late by 9 ms) is there.
    expect(lag.worst(0, at)).toBe(9);
    expect(lag.worst(0, 1000 * TICK_MS + 1)).toBe(0);
    lag.stop();
  });
});
