import { LIMITS } from '../support/prompts.js';
import { defineProbe } from '../../src/engine/probe.js';
import { acceptance } from '../support/params.js';

export default defineProbe({
  id: 'parameters.metadata',
  area: 'parameters',
  kind: 'capability',
  tier: 'extended',
  requirement: 'A metadata object of string values is accepted.',
  verdicts: ['accepted', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.word },
  run: (ctx) => acceptance(ctx, 'metadata', { metadata: { source: 'chatprobe' } }),
});
