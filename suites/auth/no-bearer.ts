import { LIMITS } from '../support/prompts.js';
import { defineProbe } from '../../src/engine/probe.js';
import { inconclusive } from '../../src/engine/verdicts.js';
import { judgeAuth } from '../support/auth.js';

export default defineProbe({
  id: 'auth.no_bearer',
  area: 'auth',
  kind: 'conformance',
  scope: 'target',
  requirement: 'The key without the "Bearer " scheme is refused with 401: the header format is Authorization: Bearer <key>.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.word },
  async run(ctx) {
    if (!ctx.options.hasKey) return inconclusive('no key is configured, so there is no key to send without "Bearer "');
    return judgeAuth(ctx, 'raw-key', 'the key without "Bearer "', 'the key is accepted without the Bearer scheme');
  },
});
