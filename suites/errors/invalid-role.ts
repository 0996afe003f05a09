import { LIMITS } from '../support/prompts.js';
import { defineProbe } from '../../src/engine/probe.js';
import { judgeRefusal } from '../support/refusals.js';

export default defineProbe({
  id: 'errors.invalid_role',
  area: 'errors',
  kind: 'conformance',
  requirement: 'A message with an unknown role is refused with a 4xx and the OpenAI error envelope.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.refused },
  async run(ctx) {
    return judgeRefusal(await ctx.send({ method: 'POST', path: '/chat/completions', body: { model: ctx.model, messages: [{ role: 'wizard', content: 'Say OK.' }], max_tokens: LIMITS.refused } }), 'role "wizard"');
  },
});
