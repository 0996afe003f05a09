import { defineProbe } from '../../src/engine/probe.js';
import { honoured, ignored, inconclusive, refusal } from '../../src/engine/verdicts.js';
import { unreadable } from '../support/params.js';
import { describeCalls, FORCED_CALL, toolCallsOf, WEATHER_CALL } from '../support/tools.js';

export default defineProbe({
  id: 'parameters.tools',
  area: 'parameters',
  kind: 'capability',
  requirement: 'Given a tool the prompt clearly needs, the answer is a tool call whose arguments validate against the tool schema, with finish_reason "tool_calls".',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [WEATHER_CALL, FORCED_CALL] },
  async run(ctx) {
    const x = await ctx.shared(WEATHER_CALL);
    if (!x.ok) return refusal(x, ctx.control(), 'tools', 'tools');
    const none = unreadable(x);
    if (none) return none;
    const { calls, finishReason } = toolCallsOf(x);
    const seen = describeCalls(calls, finishReason);
    const valid = calls.filter((c) => c.name === 'get_weather' && !c.problem);
    if (calls.length === 0) {
      // No call: were the tools dropped on the way, or did the model see them and not call? A forced call
      // (tool_choice "required") shows whether tools reach the model at all.
      const forced = await ctx.shared(FORCED_CALL);
      if (forced.ok && toolCallsOf(forced).calls.length > 0) {
        return inconclusive(`expected a get_weather call, got ${seen}; yet tool_choice "required" makes a call, so the tools reach the model and it chose not to call`);
      }
    }
    if (valid.length === 0) return ignored(`expected a valid get_weather call, got ${seen}`);
    const v = honoured(`expected a valid get_weather call; got ${seen}`);
    if (finishReason !== 'tool_calls') v.findings = [{ severity: 'warn', code: 'finish_reason', message: `finish_reason ${JSON.stringify(finishReason)} instead of "tool_calls"` }];
    return v;
  },
});
