import { defineProbe, SMOKE_PROMPT } from '../../src/engine/probe.js';
import { LIMITS, TIME_TOOL, user, WEATHER_TOOL } from '../support/prompts.js';
import { chatAlike, decideContrast } from '../support/contrast.js';
import { REPEAT_SHARED, repeatableOf } from '../support/repeat.js';
import { inconclusive } from '../../src/engine/verdicts.js';
import { FORCED_CALL, judgeNamed, MORE_UNNEEDED, toolsDropped, TOOLS_UNNEEDED, WEATHER_CALL } from '../support/tools.js';

const BODY = {
  messages: [user(SMOKE_PROMPT)],
  tools: [WEATHER_TOOL, TIME_TOOL],
  tool_choice: { type: 'function', function: { name: 'get_time' } },
  max_tokens: LIMITS.tools,
};

export default defineProbe({
  id: 'parameters.tool_choice.named',
  area: 'parameters',
  kind: 'capability',
  requirement: 'tool_choice naming a function forces a call to that function, for a prompt that needs no tool.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  // Its request (at temperature 0 where that repeats: repeat.ts); elsewhere once more while chance is not
  // ruled out (contrast.ts), and more answers without it.
  cost: { requests: 1, maxTokens: LIMITS.tools, unrepeatable: { requests: 1, maxTokens: LIMITS.tools }, resends: 1, shared: [TOOLS_UNNEEDED, MORE_UNNEEDED, FORCED_CALL, WEATHER_CALL, ...REPEAT_SHARED] },
  async run(ctx) {
    // Sent only where a call could be forced: parameters.tools' exchanges may show the tools never arrive.
    const dropped = await toolsDropped(ctx);
    if (dropped) return inconclusive(`skipped: ${dropped}: there is no call for tool_choice to force`);
    const repeat = await repeatableOf(ctx);
    const x = await chatAlike(ctx, BODY, repeat);
    const unneeded = await ctx.shared(TOOLS_UNNEEDED);
    const forced = await ctx.shared(FORCED_CALL);
    const weather = await ctx.shared(WEATHER_CALL);
    return decideContrast(ctx, { first: x, body: BODY }, { first: unneeded, more: MORE_UNNEEDED }, (xs, u, r) => judgeNamed(xs, u, forced, weather, ctx.control(), r), repeat);
  },
});
