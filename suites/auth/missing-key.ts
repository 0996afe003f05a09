import { LIMITS } from '../support/prompts.js';
import { defineProbe } from '../../src/engine/probe.js';
import { note } from '../../src/engine/verdicts.js';
import { judgeAuth } from '../support/auth.js';

export default defineProbe({
  id: 'auth.missing_key',
  area: 'auth',
  kind: 'conformance',
  scope: 'target',
  requirement: 'A chat request without an Authorization header is refused with 401 and a JSON error.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 2, maxTokens: LIMITS.word },
  async run(ctx) {
    const v = await judgeAuth(ctx, 'none', 'a request without a key', 'the endpoint is open to anyone who can reach it');
    // A public model list is common and harmless, but worth knowing.
    const list = await ctx.send({ method: 'GET', path: '/models', auth: 'none' });
    if (list.ok) (v.findings ??= []).push(note('public_models', 'GET /models answers without a key'));
    return v;
  },
});
