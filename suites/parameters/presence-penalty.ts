import { LIMITS } from '../support/prompts.js';
import { defineProbe } from '../../src/engine/probe.js';
import { acceptance } from '../support/params.js';

export default defineProbe({
  id: 'parameters.presence_penalty',
  area: 'parameters',
  kind: 'capability',
  requirement: 'presence_penalty is accepted (its effect on repetition is not cheaply observable).',
  verdicts: ['accepted', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.word },
  run: (ctx) => acceptance(ctx, 'presence_penalty', { presence_penalty: 0.5 }),
});
