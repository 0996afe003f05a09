import { defineProbe } from '../../src/engine/probe.js';
import { LIMITS } from '../support/prompts.js';
import { decideContrast } from '../support/contrast.js';
import { JSON_MODE, JSON_MODE_BODY, judgeJsonObject, MORE_PROSE, PROSE_BASELINE } from '../support/json-answer.js';
import { REPEAT_SHARED, repeatableOf } from '../support/repeat.js';

export default defineProbe({
  id: 'parameters.response_format.json_object',
  area: 'parameters',
  kind: 'capability',
  requirement: 'response_format {type: "json_object"} makes the content a JSON object, for a prompt the model otherwise answers in prose.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  // One answer a side at temperature 0 where that repeats (repeat.ts); elsewhere one more JSON-mode answer
  // and up to two more plain ones, while chance is not ruled out (contrast.ts).
  cost: { requests: 0, maxTokens: 0, unrepeatable: { requests: 1, maxTokens: LIMITS.json }, shared: [JSON_MODE, PROSE_BASELINE, MORE_PROSE, ...REPEAT_SHARED] },
  run: async (ctx) => {
    const repeat = await repeatableOf(ctx);
    return decideContrast(
      ctx,
      { first: await ctx.shared(JSON_MODE), body: JSON_MODE_BODY },
      { first: await ctx.shared(PROSE_BASELINE), more: MORE_PROSE },
      (xs, proses, r) => judgeJsonObject(xs, proses, ctx.control(), r),
      repeat,
    );
  },
});
