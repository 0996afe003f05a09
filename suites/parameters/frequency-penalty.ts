import { defineProbe } from '../../src/engine/probe.js';
import { acceptance } from '../support/params.js';

export default defineProbe({
  id: 'parameters.frequency_penalty',
  area: 'parameters',
  kind: 'capability',
  requirement: 'frequency_penalty is accepted (its effect on repetition is not cheaply observable).',
  verdicts: ['accepted', 'rejected'],
  cost: { requests: 1, maxTokens: 2 },
  run: (ctx) => acceptance(ctx, 'frequency_penalty', { frequency_penalty: 0.5 }),
});
