import { defineProbe } from '../../src/engine/probe.js';
import { chatAlike, decideContrast } from '../support/contrast.js';
import { LIMITS, TWO_CITIES_PROMPT, user, WEATHER_TOOL } from '../support/prompts.js';
import { inconclusive } from '../../src/engine/verdicts.js';
import { REPEAT_SHARED, repeatableOf } from '../support/repeat.js';
import { judgeParallel, MORE_WEATHER, REACH_SHARED, toolsDropped, WEATHER_CALL } from '../support/tools.js';

const BODY = { messages: [user(TWO_CITIES_PROMPT)], tools: [WEATHER_TOOL], parallel_tool_calls: false, max_tokens: LIMITS.tools };

export default defineProbe({
  id: 'parameters.parallel_tool_calls',
  area: 'parameters',
  kind: 'capability',
  requirement: 'parallel_tool_calls: false limits an answer to one tool call where the model would otherwise make several.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  // Its request (at temperature 0 where that repeats: repeat.ts); elsewhere once more while chance is not
  // ruled out (contrast.ts), and more answers without it.
  // parameters.tools' exchanges (REACH_SHARED) tell first whether the tools reach the model at all.
  cost: { requests: 1, maxTokens: LIMITS.tools, unrepeatable: { requests: 1, maxTokens: LIMITS.tools }, resends: 1, shared: [...REACH_SHARED, MORE_WEATHER, ...REPEAT_SHARED] },
  async run(ctx) {
    const dropped = await toolsDropped(ctx);
    if (dropped) return inconclusive(`skipped: ${dropped}: there are no calls for parallel_tool_calls to limit`);
    const repeat = await repeatableOf(ctx);
    const first = await chatAlike(ctx, BODY, repeat);
    return decideContrast(ctx, { first, body: BODY }, { first: await ctx.shared(WEATHER_CALL), more: MORE_WEATHER }, (xs, ws, r) => judgeParallel(xs, ws, r), repeat);
  },
});
