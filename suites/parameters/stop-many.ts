import { defineProbe } from '../../src/engine/probe.js';
import { judgeStop } from '../support/stop.js';

// Five stop strings, one more than OpenAI accepts: strict servers refuse, others honour or drop them.
const STOPS = ['7', '<|end-a|>', '<|end-b|>', '<|end-c|>', '<|end-d|>'];

export default defineProbe({
  id: 'parameters.stop_many',
  area: 'parameters',
  kind: 'capability',
  requirement: 'Five stop strings (OpenAI accepts at most four) are honoured, or refused with a clear 4xx.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: 12 },
  run: (ctx) => judgeStop(ctx, STOPS, 'five stop strings'),
});
