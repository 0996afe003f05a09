import { LIMITS } from '../support/prompts.js';
import { defineProbe } from '../../src/engine/probe.js';
import { judgeRefusal } from '../support/refusals.js';

export default defineProbe({
  id: 'errors.malformed_json',
  area: 'errors',
  kind: 'conformance',
  scope: 'target',
  requirement: 'A body that is not valid JSON is refused with a 4xx and the OpenAI error envelope.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.word },
  async run(ctx) {
    return judgeRefusal(await ctx.send({ method: 'POST', path: '/chat/completions', rawBody: `{"model": ${JSON.stringify(ctx.model)}, "max_tokens": ${LIMITS.word}, "messages": [{"role": "user", "content": "Say OK."}` }), 'a malformed JSON body');
  },
});
