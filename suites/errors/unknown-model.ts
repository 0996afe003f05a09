import { defineProbe, SMOKE_PROMPT } from '../../src/engine/probe.js';
import { isObject } from '../../src/wire/json.js';
import { LIMITS, user } from '../support/prompts.js';
import { judgeRefusal } from '../support/refusals.js';

/** A name no server lists. */
export const UNKNOWN_MODEL = 'chatprobe-no-such-model-7f3a9c';

export default defineProbe({
  id: 'errors.unknown_model',
  area: 'errors',
  kind: 'conformance',
  scope: 'target',
  requirement: 'A request for a model that does not exist is refused with a 4xx (OpenAI: 404 model_not_found), never answered by another model.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.refused },
  async run(ctx) {
    const x = await ctx.send({ method: 'POST', path: '/chat/completions', body: { model: UNKNOWN_MODEL, messages: [user(SMOKE_PROMPT)], max_tokens: LIMITS.refused } });
    // A refusal of the model (404 model_not_found, new-api's 503 "无可用渠道") is the answer under test.
    return judgeRefusal(
      x,
      `the unknown model "${UNKNOWN_MODEL}"`,
      (ok) => {
        const answered = isObject(ok.json) ? JSON.stringify(ok.json.model ?? null) : 'nothing';
        return `expected a 4xx for an unknown model, got HTTP ${ok.status} answered by ${answered}: silent substitution`;
      },
      { noServableModel: true },
    );
  },
});
