import { defineProbe } from '../../src/engine/probe.js';
import { GREEDY_COUNT, LENGTH_LIMIT, probeLength } from '../support/length.js';

export default defineProbe({
  id: 'parameters.max_completion_tokens',
  area: 'parameters',
  kind: 'capability',
  tier: 'quick',
  requirement: `max_completion_tokens: ${LENGTH_LIMIT} cuts an answer that runs longer without it to at most ${LENGTH_LIMIT} tokens, by the server's own count, with finish_reason "length".`,
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LENGTH_LIMIT, shared: [GREEDY_COUNT] },
  run: (ctx) => probeLength(ctx, 'max_completion_tokens'),
});
