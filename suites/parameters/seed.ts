import { defineProbe } from '../../src/engine/probe.js';
import { LIMITS } from '../support/prompts.js';
import { probeCollapse, SAMPLES_T0, SAMPLES_T1 } from '../support/sampling.js';

export default defineProbe({
  id: 'parameters.seed',
  area: 'parameters',
  kind: 'capability',
  requirement: 'The same seed at temperature 1 gives the same answer to an open prompt every time.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, sampled: { sets: 1, maxTokens: LIMITS.sample }, shared: [SAMPLES_T0, SAMPLES_T1] },
  run: (ctx) => probeCollapse(ctx, 'seed', 42),
});
