import { describe, expect, it } from 'vitest';
import { LoopLag, TICK_MS } from '../../src/engine/lag.js';
import { judgeBuffered } from '../../suites/streaming/buffered.js';

const spread = Array.from({ length: 20 }, (_, i) => 50 + i * 10);
const burst = [...Array.from({ length: 19 }, () => 400), 401];

describe('judgeBuffered', () => {
  it('passes content spread over the generation, and fails it all in one burst at the end', () => {
    expect(judgeBuffered(spread, 0).verdict).toBe('pass');
    const v = judgeBuffered(burst, 0);
    expect(v.verdict).toBe('fail');
    expect(v.findings?.[0]?.message).toMatch(/20 of 20 content chunks in the last 10 ms/);
  });

  it('trap: a burst read while our own event loop was held up is inconclusive, not the server’s fault', () => {
    const v = judgeBuffered(burst, 85);
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toMatch(/event loop was held up 85 ms while it arrived, long enough to gather 20 chunks sent 2 ms apart: the burst may be ours/);
    // A hold-up within the burst window itself proves nothing either way: the verdict stands.
    expect(judgeBuffered(burst, 5).verdict).toBe('fail');
    // A loaded machine’s usual hold-up (tens of ms) is too short to gather 20 chunks of an honest stream, which
    // needs 2 ms each: the chunks sent before it began would have been read before it.
    expect(judgeBuffered(burst, 30).verdict).toBe('fail');
    expect(judgeBuffered(burst, 38).verdict).toBe('inconclusive');
    expect(judgeBuffered([...Array.from({ length: 5 }, () => 400), 401], 11).verdict).toBe('inconclusive');
  });

  it('says too few chunks, or too short an answer, cannot be judged', () => {
    expect(judgeBuffered([10, 11, 12], 0).verdict).toBe('inconclusive');
    expect(judgeBuffered(Array.from({ length: 10 }, () => 60), 0).observed).toMatch(/took under 100 ms/);
  });
});

describe('LoopLag', () => {
  it('finds a hold-up in the window it covered, from the tick that fired late after it, and not elsewhere', () => {
    const lag = new LoopLag();
    lag.start(0);
    lag.stop();
    // Ticks every 10 ms, then one 80 ms late (the loop held up from 30 to 120), then on time again.
    for (const t of [10, 20, 30, 120, 130, 140, 150]) lag.tick(t);
    expect(lag.worst(100, 125)).toBe(80);
    expect(lag.worst(40, 60)).toBe(80); // inside the hold-up
    expect(lag.worst(125, 150)).toBe(0);
    expect(lag.worst(0, 25)).toBe(0);
    expect(TICK_MS).toBe(10);
  });
});
