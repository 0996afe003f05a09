import { defineProbe, SMOKE_PROMPT } from '../../src/engine/probe.js';
import { LIMITS, TIME_TOOL, user, WEATHER_TOOL } from '../support/prompts.js';
import { FORCED_CALL, judgeNamed, TOOLS_UNNEEDED, WEATHER_CALL } from '../support/tools.js';

export default defineProbe({
  id: 'parameters.tool_choice.named',
  area: 'parameters',
  kind: 'capability',
  requirement: 'tool_choice naming a function forces a call to that function, for a prompt that needs no tool.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.tools, shared: [TOOLS_UNNEEDED, FORCED_CALL, WEATHER_CALL] },
  async run(ctx) {
    const x = await ctx.chat({
      messages: [user(SMOKE_PROMPT)],
      tools: [WEATHER_TOOL, TIME_TOOL],
      tool_choice: { type: 'function', function: { name: 'get_time' } },
      max_tokens: LIMITS.tools,
    });
    return judgeNamed(x, await ctx.shared(TOOLS_UNNEEDED), await ctx.shared(FORCED_CALL), await ctx.shared(WEATHER_CALL), ctx.control());
  },
});
