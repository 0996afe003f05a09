import { LIMITS } from '../support/prompts.js';
import { defineProbe } from '../../src/engine/probe.js';
import { judgeRefusal } from '../support/refusals.js';

export default defineProbe({
  id: 'errors.missing_messages',
  area: 'errors',
  kind: 'conformance',
  requirement: 'A request without messages is refused with a 4xx and the OpenAI error envelope.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.refused },
  async run(ctx) {
    return judgeRefusal(await ctx.send({ method: 'POST', path: '/chat/completions', body: { model: ctx.model, max_tokens: LIMITS.refused } }), 'missing messages');
  },
});
