import { defineProbe } from '../../src/engine/probe.js';
import { honoured, ignored, inconclusive, refusal } from '../../src/engine/verdicts.js';
import { unreadable } from '../support/params.js';
import { describeCalls, FORCED_CALL, toolCallsOf, TOOLS_UNNEEDED } from '../support/tools.js';

export default defineProbe({
  id: 'parameters.tool_choice.required',
  area: 'parameters',
  kind: 'capability',
  requirement: 'tool_choice "required" forces a tool call even when the prompt needs none.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [FORCED_CALL, TOOLS_UNNEEDED] },
  async run(ctx) {
    const x = await ctx.shared(FORCED_CALL);
    // The control is the same tools request without tool_choice: a refusal of the tools themselves is
    // not a refusal of tool_choice.
    if (!x.ok) return refusal(x, await ctx.shared(TOOLS_UNNEEDED), 'tool_choice "required"', 'tool_choice');
    const none = unreadable(x);
    if (none) return none;
    const { calls, finishReason } = toolCallsOf(x);
    const seen = describeCalls(calls, finishReason);
    if (calls.length === 0) return ignored(`expected a forced tool call, got ${seen}`);
    const free = await ctx.shared(TOOLS_UNNEEDED);
    if (!free.ok || toolCallsOf(free).calls.length > 0) {
      return inconclusive(`a tool call with tool_choice "required" (${seen}), but the model ${free.ok ? 'calls a tool without it too' : `got HTTP ${free.status} without it`}`);
    }
    return honoured(`expected a tool call where the model otherwise makes none; got ${seen}`);
  },
});
