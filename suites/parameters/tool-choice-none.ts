import { defineProbe } from '../../src/engine/probe.js';
import { LIMITS, TWO_CITIES_PROMPT, user, WEATHER_TOOL } from '../support/prompts.js';
import { judgeNone, WEATHER_CALL } from '../support/tools.js';

export default defineProbe({
  id: 'parameters.tool_choice.none',
  area: 'parameters',
  kind: 'capability',
  requirement: 'tool_choice "none" prevents tool calls even when the prompt asks for the tool.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.tools, shared: [WEATHER_CALL] },
  run: async (ctx) =>
    judgeNone(await ctx.chat({ messages: [user(TWO_CITIES_PROMPT)], tools: [WEATHER_TOOL], tool_choice: 'none', max_tokens: LIMITS.tools }), await ctx.shared(WEATHER_CALL)),
});
