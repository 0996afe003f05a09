import { defineProbe } from '../../src/engine/probe.js';
import { LIMITS, user } from '../support/prompts.js';
import { judgeRefusal } from '../support/refusals.js';

export default defineProbe({
  id: 'errors.wrong_type',
  area: 'errors',
  kind: 'conformance',
  requirement: 'A parameter of the wrong type (temperature: "hot") is refused with a 4xx and the OpenAI error envelope.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.refused },
  async run(ctx) {
    return judgeRefusal(await ctx.send({ method: 'POST', path: '/chat/completions', body: { model: ctx.model, messages: [user('Say OK.')], temperature: 'hot', max_tokens: LIMITS.refused } }), 'temperature: "hot"');
  },
});
