import { defineProbe } from '../../src/engine/probe.js';
import { honoured, ignored, inconclusive, refusal } from '../../src/engine/verdicts.js';
import { user, WEATHER_PROMPT, WEATHER_TOOL } from '../support/prompts.js';
import { describeCalls, toolCallsOf, WEATHER_CALL } from '../support/tools.js';
import { contentOf, unreadable } from '../support/params.js';

export default defineProbe({
  id: 'parameters.tool_choice.none',
  area: 'parameters',
  kind: 'capability',
  requirement: 'tool_choice "none" prevents tool calls even when the prompt asks for the tool.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: 20, shared: [WEATHER_CALL] },
  async run(ctx) {
    const x = await ctx.chat({ messages: [user(WEATHER_PROMPT)], tools: [WEATHER_TOOL], tool_choice: 'none' });
    // The control is the same tools request without this parameter: a refusal of the tools themselves
    // is not a refusal of tool_choice.
    if (!x.ok) return refusal(x, await ctx.shared(WEATHER_CALL), 'tool_choice "none"', 'tool_choice');
    const none = unreadable(x);
    if (none) return none;
    const { calls, finishReason } = toolCallsOf(x);
    const seen = describeCalls(calls, finishReason);
    if (calls.length > 0) return ignored(`expected no tool call, got ${seen}`);
    // No call proves something only if the same request without tool_choice does call the tool.
    const free = await ctx.shared(WEATHER_CALL);
    const baseline = free.ok ? toolCallsOf(free).calls.length : 0;
    if (baseline === 0) return inconclusive(`no tool call with tool_choice "none", but none without it either (${free.ok ? 'no call' : `HTTP ${free.status}`}): nothing to prevent`);
    if (contentOf(x).trim() === '') return inconclusive(`expected an answer in words instead of a tool call, got an empty answer (${seen})`);
    return honoured(`expected an answer in words where the model otherwise calls the tool; got ${seen}`);
  },
});
