import { defineProbe } from '../../src/engine/probe.js';
import { FORCED_CALL, judgeRequired, TOOLS_UNNEEDED, WEATHER_CALL } from '../support/tools.js';

export default defineProbe({
  id: 'parameters.tool_choice.required',
  area: 'parameters',
  kind: 'capability',
  requirement: 'tool_choice "required" forces a tool call even when the prompt needs none.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [FORCED_CALL, TOOLS_UNNEEDED, WEATHER_CALL] },
  // The control of a refusal is the same tools request without tool_choice: a refusal of the tools
  // themselves is not one of tool_choice.
  run: async (ctx) => judgeRequired(await ctx.shared(FORCED_CALL), await ctx.shared(TOOLS_UNNEEDED), await ctx.shared(WEATHER_CALL), ctx.control()),
});
