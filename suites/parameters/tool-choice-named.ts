import { defineProbe, SMOKE_PROMPT } from '../../src/engine/probe.js';
import { honoured, ignored, refusal } from '../../src/engine/verdicts.js';
import { TIME_TOOL, user, WEATHER_TOOL } from '../support/prompts.js';
import { unreadable } from '../support/params.js';
import { describeCalls, toolCallsOf, WEATHER_CALL } from '../support/tools.js';

export default defineProbe({
  id: 'parameters.tool_choice.named',
  area: 'parameters',
  kind: 'capability',
  requirement: 'tool_choice naming a function forces a call to that function, for a prompt that needs no tool.',
  verdicts: ['honoured', 'ignored', 'rejected'],
  cost: { requests: 1, maxTokens: 20, shared: [WEATHER_CALL] },
  async run(ctx) {
    const x = await ctx.chat({
      messages: [user(SMOKE_PROMPT)],
      tools: [WEATHER_TOOL, TIME_TOOL],
      tool_choice: { type: 'function', function: { name: 'get_time' } },
    });
    // The control is the same tools request without this parameter: a refusal of the tools themselves
    // is not a refusal of tool_choice.
    if (!x.ok) return refusal(x, await ctx.shared(WEATHER_CALL), 'tool_choice naming get_time', 'tool_choice');
    const none = unreadable(x);
    if (none) return none;
    const { calls, finishReason } = toolCallsOf(x);
    const seen = describeCalls(calls, finishReason);
    const named = calls.filter((c) => c.name === 'get_time');
    if (named.length > 0 && named.length === calls.length) return honoured(`expected a call to get_time only; got ${seen}`);
    return ignored(`expected a call to get_time only, got ${seen}`);
  },
});
