import { defineProbe } from '../../src/engine/probe.js';
import { FORCED_CALL, judgeTools, TOOLS_UNNEEDED, WEATHER_CALL } from '../support/tools.js';

export default defineProbe({
  id: 'parameters.tools',
  area: 'parameters',
  kind: 'capability',
  tier: 'quick',
  requirement: 'Given a tool the prompt clearly needs, the answer is a tool call whose arguments validate against the tool schema, with finish_reason "tool_calls".',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [WEATHER_CALL, FORCED_CALL, TOOLS_UNNEEDED] },
  run: async (ctx) => judgeTools(await ctx.shared(WEATHER_CALL), await ctx.shared(FORCED_CALL), await ctx.shared(TOOLS_UNNEEDED), ctx.control()),
});
