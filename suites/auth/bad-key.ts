import { LIMITS } from '../support/prompts.js';
import { defineProbe } from '../../src/engine/probe.js';
import { judgeAuth } from '../support/auth.js';

/** Shaped like a key, valid nowhere. */
const BAD_KEY = 'sk-chatprobe-invalid-0000000000000000000000000000';

export default defineProbe({
  id: 'auth.bad_key',
  area: 'auth',
  kind: 'conformance',
  scope: 'target',
  requirement: 'A chat request with a wrong key is refused with 401 and a JSON error.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.word },
  async run(ctx) {
    return judgeAuth(ctx, { authorization: `Bearer ${BAD_KEY}` }, 'a wrong key', 'any key is accepted');
  },
});
