import { defineProbe } from '../../src/engine/probe.js';
import { decideContrast } from '../support/contrast.js';
import { LIMITS, TWO_CITIES_PROMPT, user, WEATHER_TOOL } from '../support/prompts.js';
import { judgeParallel, MORE_WEATHER, WEATHER_CALL } from '../support/tools.js';

const BODY = { messages: [user(TWO_CITIES_PROMPT)], tools: [WEATHER_TOOL], parallel_tool_calls: false, max_tokens: LIMITS.tools };

export default defineProbe({
  id: 'parameters.parallel_tool_calls',
  area: 'parameters',
  kind: 'capability',
  requirement: 'parallel_tool_calls: false limits an answer to one tool call where the model would otherwise make several.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  // Its request, once more while chance is not ruled out (contrast.ts), and more answers without it.
  cost: { requests: 2, maxTokens: 2 * LIMITS.tools, shared: [WEATHER_CALL, MORE_WEATHER] },
  run: async (ctx) =>
    decideContrast(ctx, { first: await ctx.chat(BODY), body: BODY }, { first: await ctx.shared(WEATHER_CALL), more: MORE_WEATHER }, judgeParallel),
});
