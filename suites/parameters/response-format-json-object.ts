import { defineProbe } from '../../src/engine/probe.js';
import { JSON_MODE, judgeJsonObject, PROSE_BASELINE } from '../support/json-answer.js';

export default defineProbe({
  id: 'parameters.response_format.json_object',
  area: 'parameters',
  kind: 'capability',
  requirement: 'response_format {type: "json_object"} makes the content a JSON object, for a prompt the model otherwise answers in prose.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [JSON_MODE, PROSE_BASELINE] },
  run: async (ctx) => judgeJsonObject(await ctx.shared(JSON_MODE), await ctx.shared(PROSE_BASELINE), ctx.control()),
});
