import { defineProbe, SMOKE_PROMPT } from '../../src/engine/probe.js';
import { honoured, ignored, refusal } from '../../src/engine/verdicts.js';
import { user, WEATHER_TOOL } from '../support/prompts.js';
import { unreadable } from '../support/params.js';
import { describeCalls, toolCallsOf, WEATHER_CALL } from '../support/tools.js';

export default defineProbe({
  id: 'parameters.tool_choice.required',
  area: 'parameters',
  kind: 'capability',
  requirement: 'tool_choice "required" forces a tool call even when the prompt needs none.',
  verdicts: ['honoured', 'ignored', 'rejected'],
  cost: { requests: 1, maxTokens: 20, shared: [WEATHER_CALL] },
  async run(ctx) {
    const x = await ctx.chat({ messages: [user(SMOKE_PROMPT)], tools: [WEATHER_TOOL], tool_choice: 'required' });
    // The control is the same tools request without this parameter: a refusal of the tools themselves
    // is not a refusal of tool_choice.
    if (!x.ok) return refusal(x, await ctx.shared(WEATHER_CALL), 'tool_choice "required"', 'tool_choice');
    const none = unreadable(x);
    if (none) return none;
    const { calls, finishReason } = toolCallsOf(x);
    const seen = describeCalls(calls, finishReason);
    return calls.length > 0 ? honoured(`expected a tool call for a prompt that needs none; got ${seen}`) : ignored(`expected a forced tool call, got ${seen}`);
  },
});
