import { defineProbe } from '../../src/engine/probe.js';
import { decideCollapse, judgeTemperature, SAMPLES_T0, SAMPLES_T1 } from '../support/sampling.js';

export default defineProbe({
  id: 'parameters.temperature',
  area: 'parameters',
  kind: 'capability',
  requirement: 'temperature 0 makes an open prompt answer the same every time, where temperature 1 lets the answers vary.',
  // Never `ignored`: see judgeTemperature.
  verdicts: ['honoured', 'rejected', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [SAMPLES_T0, SAMPLES_T1] },
  run: (ctx) => decideCollapse(ctx, SAMPLES_T1, SAMPLES_T0, (t1, t0, limit) => judgeTemperature(t1, t0, limit, ctx.control())),
});
