import { LIMITS } from '../support/prompts.js';
import { defineProbe } from '../../src/engine/probe.js';
import { acceptance } from '../support/params.js';

export default defineProbe({
  id: 'parameters.logit_bias',
  area: 'parameters',
  kind: 'capability',
  tier: 'extended',
  requirement: 'An empty logit_bias object is accepted.',
  verdicts: ['accepted', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.word },
  run: (ctx) => acceptance(ctx, 'logit_bias', { logit_bias: {} }),
});
