import { defineProbe } from '../../src/engine/probe.js';
import { LIMITS } from '../support/prompts.js';
import { decideContrast } from '../support/contrast.js';
import { REPEAT_SHARED, repeatableOf } from '../support/repeat.js';
import { FORCED_BODY, FORCED_CALL, judgeRequired, MORE_UNNEEDED, TOOLS_UNNEEDED, WEATHER_CALL } from '../support/tools.js';

export default defineProbe({
  id: 'parameters.tool_choice.required',
  area: 'parameters',
  kind: 'capability',
  requirement: 'tool_choice "required" forces a tool call even when the prompt needs none.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  // One answer a side at temperature 0 where that repeats (repeat.ts); elsewhere the forced request once
  // more while chance is not ruled out (contrast.ts), and more answers without it.
  cost: { requests: 0, maxTokens: 0, unrepeatable: { requests: 1, maxTokens: LIMITS.tools }, shared: [FORCED_CALL, TOOLS_UNNEEDED, MORE_UNNEEDED, WEATHER_CALL, ...REPEAT_SHARED] },
  // The control of a refusal is the same tools request without tool_choice: a refusal of the tools
  // themselves is not one of tool_choice.
  run: async (ctx) => {
    const repeat = await repeatableOf(ctx);
    const forced = await ctx.shared(FORCED_CALL);
    const unneeded = await ctx.shared(TOOLS_UNNEEDED);
    const weather = await ctx.shared(WEATHER_CALL);
    return decideContrast(
      ctx,
      { first: forced, body: FORCED_BODY },
      { first: unneeded, more: MORE_UNNEEDED },
      (xs, unneeded, r) => judgeRequired(xs, unneeded, weather, ctx.control(), r),
      repeat,
    );
  },
});
