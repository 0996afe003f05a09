import { defineProbe } from '../../src/engine/probe.js';
import { decideContrast } from '../support/contrast.js';
import { LIMITS, TWO_CITIES_PROMPT, user, WEATHER_TOOL } from '../support/prompts.js';
import { judgeNone, MORE_WEATHER, WEATHER_CALL } from '../support/tools.js';

const BODY = { messages: [user(TWO_CITIES_PROMPT)], tools: [WEATHER_TOOL], tool_choice: 'none', max_tokens: LIMITS.tools };

export default defineProbe({
  id: 'parameters.tool_choice.none',
  area: 'parameters',
  kind: 'capability',
  requirement: 'tool_choice "none" prevents tool calls even when the prompt asks for the tool.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  // Its request, once more while chance is not ruled out (contrast.ts), and more answers without it.
  cost: { requests: 2, maxTokens: 2 * LIMITS.tools, shared: [WEATHER_CALL, MORE_WEATHER] },
  run: async (ctx) =>
    decideContrast(ctx, { first: await ctx.chat(BODY), body: BODY }, { first: await ctx.shared(WEATHER_CALL), more: MORE_WEATHER }, judgeNone),
});
