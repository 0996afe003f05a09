import { defineProbe } from '../../src/engine/probe.js';
import { ANCHOR_REPEATS } from '../../src/results/identity.js';
import { FINGERPRINT, judgeMixed } from '../support/identity.js';

export default defineProbe({
  id: 'identity.mixed_backends',
  area: 'identity',
  kind: 'conformance',
  requirement: `One model name is one model: the fingerprint anchor's ${ANCHOR_REPEATS} repeats at temperature 0 do not fall into two groups (of logprobs, or of answers split alike by system_fingerprint, id form or a route header), as a load balancer over two backends makes them.`,
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  // Reads the fingerprint identity.fingerprint reads: nothing more is sent.
  cost: { requests: 0, maxTokens: 0, shared: [FINGERPRINT] },
  run: async (ctx) => {
    const { fingerprint, exchanges } = await ctx.shared(FINGERPRINT);
    return judgeMixed(fingerprint, exchanges);
  },
});
