import { defineProbe } from '../../src/engine/probe.js';
import { GREEDY_COUNT } from '../support/length.js';
import { LIMITS } from '../support/prompts.js';
import { probeStop } from '../support/stop.js';

export default defineProbe({
  id: 'parameters.stop',
  area: 'parameters',
  kind: 'capability',
  tier: 'quick',
  requirement: "Generation stops before the first occurrence of a stop string: one taken from the model's own temperature-0 answer, which it otherwise writes and goes past.",
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.count, shared: [GREEDY_COUNT] },
  run: (ctx) => probeStop(ctx, (stop) => [stop], 'stop: [one string]'),
});
