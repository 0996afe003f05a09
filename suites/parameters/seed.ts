import { defineProbe } from '../../src/engine/probe.js';
import { judgeCollapse } from '../support/collapse.js';
import { SAMPLES_T0, SAMPLES_T1 } from '../support/shared.js';

export default defineProbe({
  id: 'parameters.seed',
  area: 'parameters',
  kind: 'capability',
  requirement: 'The same seed at temperature 1 gives the same answer to an open prompt every time.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, sampled: { sets: 1, maxTokens: 3 }, shared: [SAMPLES_T0, SAMPLES_T1] },
  run: (ctx) => judgeCollapse(ctx, 'seed', 42),
});
