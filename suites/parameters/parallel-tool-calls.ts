import { defineProbe } from '../../src/engine/probe.js';
import { LIMITS, TWO_CITIES_PROMPT, user, WEATHER_TOOL } from '../support/prompts.js';
import { judgeParallel, WEATHER_CALL } from '../support/tools.js';

export default defineProbe({
  id: 'parameters.parallel_tool_calls',
  area: 'parameters',
  kind: 'capability',
  requirement: 'parallel_tool_calls: false limits an answer to one tool call where the model would otherwise make several.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.tools, shared: [WEATHER_CALL] },
  run: async (ctx) =>
    judgeParallel(
      await ctx.chat({ messages: [user(TWO_CITIES_PROMPT)], tools: [WEATHER_TOOL], parallel_tool_calls: false, max_tokens: LIMITS.tools }),
      await ctx.shared(WEATHER_CALL),
    ),
});
