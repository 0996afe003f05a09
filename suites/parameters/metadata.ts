import { defineProbe } from '../../src/engine/probe.js';
import { acceptance } from '../support/params.js';

export default defineProbe({
  id: 'parameters.metadata',
  area: 'parameters',
  kind: 'capability',
  requirement: 'A metadata object of string values is accepted.',
  verdicts: ['accepted', 'rejected'],
  cost: { requests: 1, maxTokens: 2 },
  run: (ctx) => acceptance(ctx, 'metadata', { metadata: { source: 'chatprobe' } }),
});
