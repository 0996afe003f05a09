import { defineProbe } from '../../src/engine/probe.js';
import { GREEDY_COUNT } from '../support/length.js';
import { judgeIntegrity } from '../support/integrity.js';
import { USAGE_STREAM, usageStream } from '../support/shared.js';

export default defineProbe({
  id: 'streaming.integrity',
  area: 'streaming',
  kind: 'conformance',
  tier: 'quick',
  requirement: 'A stream assembles into the same answer as the same request not streamed: no delta sent twice or out of order.',
  verdicts: ['pass', 'fail', 'inconclusive'],
  // The greedy counting request, streamed (with include_usage) and not: both are read by other probes.
  cost: { requests: 0, maxTokens: 0, shared: [USAGE_STREAM, GREEDY_COUNT] },
  async run(ctx) {
    const x = await usageStream(ctx);
    const g = await ctx.shared(GREEDY_COUNT);
    return judgeIntegrity(x, g.x, g.greedy);
  },
});
