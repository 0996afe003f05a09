import { defineProbe } from '../../src/engine/probe.js';
import { decisionOf, SAMPLES_SEED, SAMPLES_T0, SAMPLES_T1, SEED_DECISION } from '../support/sampling.js';

export default defineProbe({
  id: 'parameters.seed',
  area: 'parameters',
  kind: 'capability',
  requirement: 'The same seed at temperature 1 gives the same answer to an open prompt every time.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  // The decision is shared with the contrasts' gate (repeat.ts).
  cost: { requests: 0, maxTokens: 0, shared: [SAMPLES_SEED, SAMPLES_T0, SAMPLES_T1, SEED_DECISION] },
  run: (ctx) => decisionOf(ctx, SEED_DECISION),
});
