import { defineProbe } from '../../src/engine/probe.js';
import { decisionOf, SAMPLES_T0, SAMPLES_T1, TEMPERATURE_DECISION } from '../support/sampling.js';

export default defineProbe({
  id: 'parameters.temperature',
  area: 'parameters',
  kind: 'capability',
  requirement: 'temperature 0 makes an open prompt answer the same every time, where temperature 1 lets the answers vary.',
  // Never `ignored`: see judgeTemperature.
  verdicts: ['honoured', 'rejected', 'inconclusive'],
  // The decision is shared with the contrasts' gate (repeat.ts): one judgement of the sets, read by both.
  cost: { requests: 0, maxTokens: 0, shared: [SAMPLES_T0, SAMPLES_T1, TEMPERATURE_DECISION] },
  run: (ctx) => decisionOf(ctx, TEMPERATURE_DECISION),
});
