import { defineProbe } from '../../src/engine/probe.js';
import { LIMITS, user, WEATHER_TOOL } from '../support/prompts.js';
import { probeRecall, RECALL_PLAIN, RECALL_TASKS } from '../support/roles.js';
import { WEATHER_CALL } from '../support/tools.js';

const { code: CODE, result: RESULT } = RECALL_TASKS.toolResult;
const QUESTION = 'What is the weather in Paris? Use the get_weather tool and tell me the sky code it returns.';

export default defineProbe({
  id: 'roles.tool_result',
  area: 'roles',
  kind: 'capability',
  requirement: 'An assistant tool call followed by a tool message reaches the model: the answer uses the value the tool returned, as it does when the value comes in the user message.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  // The tool turn, and (when the answer misses the code) the result in the user message, in the recall
  // probes' one plain control: the positive control.
  cost: { requests: 1, maxTokens: LIMITS.word, shared: [WEATHER_CALL, RECALL_PLAIN] },
  run: (ctx) =>
    probeRecall(
      ctx,
      {
        messages: [
          user(QUESTION),
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_chatprobe_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
          { role: 'tool', tool_call_id: 'call_chatprobe_1', content: RESULT },
        ],
        body: { tools: [WEATHER_TOOL] },
      },
      [CODE],
      'a tool result',
      ['messages[2].role', 'tool', 'tool_call_id'],
      // The control is the tools request without the tool turn: a refusal of the tools is not one of tool results.
      () => ctx.shared(WEATHER_CALL),
    ),
});
