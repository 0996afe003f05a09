import { defineProbe } from '../../src/engine/probe.js';
import { judgeStop } from '../support/stop.js';

export default defineProbe({
  id: 'parameters.stop',
  area: 'parameters',
  kind: 'capability',
  requirement: 'Generation stops before the first occurrence of a stop string.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: 12 },
  run: (ctx) => judgeStop(ctx, ['7'], 'stop: ["7"]'),
});
