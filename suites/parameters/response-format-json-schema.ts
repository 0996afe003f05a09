import { defineProbe } from '../../src/engine/probe.js';
import { JSON_MODE, JSON_SCHEMA_BODY, judgeJsonSchema, PROSE_BASELINE } from '../support/json-answer.js';
import { LIMITS } from '../support/prompts.js';

export default defineProbe({
  id: 'parameters.response_format.json_schema',
  area: 'parameters',
  kind: 'capability',
  tier: 'quick',
  requirement:
    'response_format {type: "json_schema", strict: true} makes the content JSON that fits the schema, including a key and a value no prompt names, which neither JSON mode nor the plain prompt produces.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.json, shared: [JSON_MODE, PROSE_BASELINE] },
  run: async (ctx) => judgeJsonSchema(await ctx.chat(JSON_SCHEMA_BODY), await ctx.shared(JSON_MODE), await ctx.shared(PROSE_BASELINE), ctx.control()),
});
