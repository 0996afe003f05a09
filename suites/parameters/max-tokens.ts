import { defineProbe } from '../../src/engine/probe.js';
import { judgeLengthLimit, LENGTH_LIMIT } from '../support/length.js';

export default defineProbe({
  id: 'parameters.max_tokens',
  area: 'parameters',
  kind: 'capability',
  requirement: 'max_tokens limits the length of the output.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LENGTH_LIMIT },
  run: (ctx) => judgeLengthLimit(ctx, 'max_tokens'),
});
