import { describe, expect, it } from 'vitest';
import { HEAP_FLAGS, heapFlags } from '../../src/cli/heap.js';

describe('heap sizing', () => {
  it('sizes the heap for memory unless node was given a heap flag of ours', () => {
    expect(heapFlags([])).toEqual(HEAP_FLAGS);
    expect(heapFlags(['--enable-source-maps', '--max-old-space-size=4096'])).toEqual(HEAP_FLAGS);
    for (const given of ['--no-optimize-for-size', '--nooptimize-for-size', '--no_optimize_for_size', '--optimize-for-size', '--optimize_for_size', '--semi-space-growth-factor=2', '--semi_space_growth_factor=4']) {
      expect(heapFlags(['--enable-source-maps', given]), given).toEqual([]);
    }
    // A flag that only starts like one of ours is not one.
    expect(heapFlags(['--optimize-for-sizes'])).toEqual(HEAP_FLAGS);
  });
});
