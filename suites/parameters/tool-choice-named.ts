import { defineProbe, SMOKE_PROMPT } from '../../src/engine/probe.js';
import { honoured, ignored, inconclusive, refusal } from '../../src/engine/verdicts.js';
import { unreadable } from '../support/params.js';
import { TIME_TOOL, user, WEATHER_TOOL } from '../support/prompts.js';
import { describeCalls, toolCallsOf, TOOLS_UNNEEDED } from '../support/tools.js';

export default defineProbe({
  id: 'parameters.tool_choice.named',
  area: 'parameters',
  kind: 'capability',
  requirement: 'tool_choice naming a function forces a call to that function, for a prompt that needs no tool.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: 20, shared: [TOOLS_UNNEEDED] },
  async run(ctx) {
    const x = await ctx.chat({
      messages: [user(SMOKE_PROMPT)],
      tools: [WEATHER_TOOL, TIME_TOOL],
      tool_choice: { type: 'function', function: { name: 'get_time' } },
    });
    // The control is the same tools request without tool_choice.
    if (!x.ok) return refusal(x, await ctx.shared(TOOLS_UNNEEDED), 'tool_choice naming get_time', 'tool_choice');
    const none = unreadable(x);
    if (none) return none;
    const { calls, finishReason } = toolCallsOf(x);
    const seen = describeCalls(calls, finishReason);
    const named = calls.filter((c) => c.name === 'get_time');
    if (named.length === 0 || named.length !== calls.length) return ignored(`expected a call to get_time only, got ${seen}`);
    const free = await ctx.shared(TOOLS_UNNEEDED);
    if (!free.ok || toolCallsOf(free).calls.some((c) => c.name === 'get_time')) {
      return inconclusive(`a call to get_time (${seen}), but the model ${free.ok ? 'calls get_time without tool_choice too' : `got HTTP ${free.status} without tool_choice`}`);
    }
    return honoured(`expected a call to get_time where the model otherwise makes none; got ${seen}`);
  },
});
