import { defineProbe } from '../../src/engine/probe.js';
import { user, WEATHER_TOOL } from '../support/prompts.js';
import { judgeRecall, RULE_IN_USER } from '../support/roles.js';
import { WEATHER_CALL } from '../support/tools.js';

const CODE = 'QX-93';

export default defineProbe({
  id: 'roles.tool_result',
  area: 'roles',
  kind: 'capability',
  requirement: 'An assistant tool call followed by a tool message reaches the model: the answer uses the value the tool returned.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: 12, shared: [RULE_IN_USER, WEATHER_CALL] },
  run: (ctx) =>
    judgeRecall(
      ctx,
      [
        user('What is the weather in Paris? Use the get_weather tool and tell me the sky code it returns.'),
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_chatprobe_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_chatprobe_1', content: `{"city": "Paris", "temperature_c": 17, "sky_code": "${CODE}"}` },
      ],
      [CODE],
      'a tool result',
      'messages[2].role',
      // The control is the tools request without the tool turn: a refusal of the tools is not one of tool results.
      { body: { tools: [WEATHER_TOOL] }, control: () => ctx.shared(WEATHER_CALL) },
    ),
});
