import { defineProbe } from '../../src/engine/probe.js';
import { ANCHOR_REPEATS, TOLERANCE_FLOOR, TOP_LOGPROBS } from '../../src/results/identity.js';
import { FINGERPRINT, judgeFingerprint } from '../support/identity.js';

export default defineProbe({
  id: 'identity.fingerprint',
  area: 'identity',
  kind: 'conformance',
  requirement: `At temperature 0 a model answers a fixed prompt alike every time: the anchor's ${ANCHOR_REPEATS} repeats agree within ${TOLERANCE_FLOOR} in their first token's logprobs (top_logprobs: ${TOP_LOGPROBS}; their answers where no logprobs are given), so its fingerprint can be weighed against another run's.`,
  verdicts: ['pass', 'warn', 'inconclusive'],
  // The fingerprint's requests (support/identity.ts): the anchor repeated, four other prompts once, one-token answers but one.
  cost: { requests: 0, maxTokens: 0, shared: [FINGERPRINT] },
  run: async (ctx) => {
    const { fingerprint, exchanges } = await ctx.shared(FINGERPRINT);
    return judgeFingerprint(fingerprint, exchanges);
  },
});
