import { defineProbe } from '../../src/engine/probe.js';
import { GREEDY_COUNT } from '../support/length.js';
import { LIMITS } from '../support/prompts.js';
import { probeStop } from '../support/stop.js';

// Five stop strings, one more than OpenAI accepts: strict servers refuse, others honour or drop them.
// The first is taken from the model's own answer; the others never occur.
const NEVER = ['<|end-a|>', '<|end-b|>', '<|end-c|>', '<|end-d|>'];

export default defineProbe({
  id: 'parameters.stop_many',
  area: 'parameters',
  kind: 'capability',
  requirement: 'Five stop strings (OpenAI accepts at most four) are honoured, or refused with a clear 4xx.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.count, shared: [GREEDY_COUNT] },
  run: (ctx) => probeStop(ctx, (stop) => [stop, ...NEVER], 'five stop strings'),
});
