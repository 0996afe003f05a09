import { describe, expect, it } from 'vitest';
import { ReadyQueue } from '../../src/engine/queue.js';

describe('ReadyQueue', () => {
  it('gives the highest priority first, and arrival order within one', () => {
    const q = new ReadyQueue<string>();
    q.push('a1', 1);
    q.push('c9', 9);
    q.push('a2', 1);
    q.push('e', Number.POSITIVE_INFINITY);
    q.push('c9b', 9);
    expect(q.size).toBe(5);
    const out: string[] = [];
    for (let x = q.shift(); x !== undefined; x = q.shift()) out.push(x);
    expect(out).toEqual(['e', 'c9', 'c9b', 'a1', 'a2']);
    expect(q.size).toBe(0);
  });

  it('takes new arrivals of a higher priority before what waits', () => {
    const q = new ReadyQueue<string>();
    q.push('low', 1);
    expect(q.shift()).toBe('low');
    q.push('low2', 1);
    q.push('high', 5);
    expect(q.shift()).toBe('high');
    expect(q.shift()).toBe('low2');
    expect(q.shift()).toBeUndefined();
  });
});
