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
  cost: { requests: 1, maxTokens: LIMITS.refused },
  async run(ctx) {
    const x = await ctx.send({ method: 'POST', path: '/chat/completions', rawBody: `{"model": ${JSON.stringify(ctx.model)}, "max_tokens": ${LIMITS.refused}, "messages": [{"role": "user", "content": "Say OK."}` });
    // The model is in a body the endpoint cannot read: a refusal of the model is its refusal of the body.
    return judgeRefusal(x, 'a malformed JSON body', undefined, { noServableModel: true });
  },
});
