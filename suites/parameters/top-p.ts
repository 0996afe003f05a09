import { defineProbe } from '../../src/engine/probe.js';
import { LIMITS } from '../support/prompts.js';
import { probeCollapse, SAMPLES_T0, SAMPLES_T1 } from '../support/sampling.js';

// A nucleus of 1% keeps only the most likely token (it always holds at least one): greedy decoding.
const TOP_P = 0.01;

export default defineProbe({
  id: 'parameters.top_p',
  area: 'parameters',
  kind: 'capability',
  tier: 'extended',
  requirement: `top_p ${TOP_P} at temperature 1 collapses the variety of an open prompt to one answer.`,
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, sampled: { sets: 1, maxTokens: LIMITS.sample }, shared: [SAMPLES_T0, SAMPLES_T1] },
  run: (ctx) => probeCollapse(ctx, 'top_p', TOP_P),
});
