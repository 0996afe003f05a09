import { defineProbe } from '../../src/engine/probe.js';
import { honoured, ignored, inconclusive, refusal } from '../../src/engine/verdicts.js';
import { TWO_CITIES_PROMPT, user, WEATHER_TOOL } from '../support/prompts.js';
import { unreadable } from '../support/params.js';
import { describeCalls, toolCallsOf, WEATHER_CALL } from '../support/tools.js';

export default defineProbe({
  id: 'parameters.parallel_tool_calls',
  area: 'parameters',
  kind: 'capability',
  requirement: 'parallel_tool_calls: false limits an answer to one tool call where the model would otherwise make several.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 2, maxTokens: 40, shared: [WEATHER_CALL] },
  async run(ctx) {
    const x = await ctx.chat({ messages: [user(TWO_CITIES_PROMPT)], tools: [WEATHER_TOOL], parallel_tool_calls: false });
    // The control is the same tools request without this parameter.
    if (!x.ok) return refusal(x, await ctx.shared(WEATHER_CALL), 'parallel_tool_calls: false', 'parallel_tool_calls');
    const none = unreadable(x);
    if (none) return none;
    const serial = toolCallsOf(x);
    if (serial.calls.length > 1) return ignored(`expected one tool call, got ${describeCalls(serial.calls, serial.finishReason)}`);
    // One call proves the limit only if the same request without it makes several.
    const free = await ctx.chat({ messages: [user(TWO_CITIES_PROMPT)], tools: [WEATHER_TOOL] });
    const parallel = free.ok ? toolCallsOf(free) : undefined;
    const seen = `with parallel_tool_calls false: ${describeCalls(serial.calls, serial.finishReason)}; without: ${parallel ? describeCalls(parallel.calls, parallel.finishReason) : `HTTP ${free.status}`}`;
    if (serial.calls.length === 1 && parallel && parallel.calls.length > 1) return honoured(`expected one call instead of several; got ${seen}`);
    return inconclusive(`expected one call where the model otherwise makes several; got ${seen}`);
  },
});
