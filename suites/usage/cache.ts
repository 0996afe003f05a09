import { defineProbe } from '../../src/engine/probe.js';
import { samplesOf, SAMPLES_T0, SAMPLES_T1 } from '../support/sampling.js';
import { judgeCache } from '../support/usage.js';

export default defineProbe({
  id: 'usage.cache',
  area: 'usage',
  kind: 'conformance',
  requirement:
    'Repeated requests are answered anew: no earlier answer is handed back again (same id, same text) where sampling should differ.',
  verdicts: ['pass', 'warn', 'inconclusive'],
  // The sampling probes' sets: the same request several times at temperature 1 and at 0.
  cost: { requests: 0, maxTokens: 0, shared: [SAMPLES_T1, SAMPLES_T0] },
  async run(ctx) {
    // The first --samples of each: the sets may grow for the sampling probes, and the judgement must not
    // depend on when it reads them.
    const n = ctx.options.samples;
    const t1 = (await samplesOf(ctx, SAMPLES_T1, n)).slice(0, n);
    const t0 = (await samplesOf(ctx, SAMPLES_T0, n)).slice(0, n);
    return judgeCache(t1, t0, [ctx.control()]);
  },
});
