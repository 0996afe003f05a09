import { defineProbe } from '../../src/engine/probe.js';
import { probeCollapse, SAMPLES_SEED, SAMPLES_T0, SAMPLES_T1, SEED } from '../support/sampling.js';

export default defineProbe({
  id: 'parameters.seed',
  area: 'parameters',
  kind: 'capability',
  requirement: 'The same seed at temperature 1 gives the same answer to an open prompt every time.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [SAMPLES_SEED, SAMPLES_T0, SAMPLES_T1] },
  run: (ctx) => probeCollapse(ctx, 'seed', SEED, SAMPLES_SEED),
});
