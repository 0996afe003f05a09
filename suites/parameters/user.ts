import { LIMITS } from '../support/prompts.js';
import { defineProbe } from '../../src/engine/probe.js';
import { acceptance } from '../support/params.js';

export default defineProbe({
  id: 'parameters.user',
  area: 'parameters',
  kind: 'capability',
  tier: 'extended',
  requirement: 'The user field (an end-user id for abuse monitoring) is accepted.',
  verdicts: ['accepted', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.word },
  run: (ctx) => acceptance(ctx, 'user', { user: 'chatprobe' }),
});
