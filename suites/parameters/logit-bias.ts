import { defineProbe } from '../../src/engine/probe.js';
import { acceptance } from '../support/params.js';

export default defineProbe({
  id: 'parameters.logit_bias',
  area: 'parameters',
  kind: 'capability',
  requirement: 'An empty logit_bias object is accepted.',
  verdicts: ['accepted', 'rejected'],
  cost: { requests: 1, maxTokens: 2 },
  run: (ctx) => acceptance(ctx, 'logit_bias', { logit_bias: {} }),
});
