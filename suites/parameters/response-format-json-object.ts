import { defineProbe } from '../../src/engine/probe.js';
import { decideContrast } from '../support/contrast.js';
import { JSON_MODE, JSON_MODE_BODY, judgeJsonObject, MORE_PROSE, PROSE_BASELINE } from '../support/json-answer.js';
import { LIMITS } from '../support/prompts.js';

export default defineProbe({
  id: 'parameters.response_format.json_object',
  area: 'parameters',
  kind: 'capability',
  requirement: 'response_format {type: "json_object"} makes the content a JSON object, for a prompt the model otherwise answers in prose.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  // One more JSON-mode answer, and up to two more plain ones, while chance is not ruled out (contrast.ts).
  cost: { requests: 1, maxTokens: LIMITS.json, shared: [JSON_MODE, PROSE_BASELINE, MORE_PROSE] },
  run: async (ctx) =>
    decideContrast(
      ctx,
      { first: await ctx.shared(JSON_MODE), body: JSON_MODE_BODY },
      { first: await ctx.shared(PROSE_BASELINE), more: MORE_PROSE },
      (xs, proses) => judgeJsonObject(xs, proses, ctx.control()),
    ),
});
