import { defineProbe } from '../../src/engine/probe.js';
import { contentOf } from '../support/params.js';
import { countingPrompt, LIMITS, numbersIn, user } from '../support/prompts.js';
import { judgeForm } from '../support/roles.js';

const PREFIX = '1, 2, 3,';

export default defineProbe({
  id: 'roles.assistant_prefill',
  area: 'roles',
  kind: 'capability',
  requirement: 'A conversation ending with a partial assistant message is accepted or refused; whether the answer continues the prefix or starts anew is recorded.',
  verdicts: ['accepted', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.word },
  run: (ctx) =>
    judgeForm(ctx, [user(countingPrompt(5)), { role: 'assistant', content: PREFIX }], 'an assistant prefill', ['messages[1].role', 'assistant', 'prefill'], (x) => {
      const content = contentOf(x);
      // Some servers (llama.cpp) return the prefix with its continuation; OpenAI-style ones the continuation.
      if (content.startsWith(PREFIX)) return 'it continues the prefix, which the answer repeats';
      const first = numbersIn(content)[0];
      if (first === 4) return 'it continues the prefix';
      if (first === 1) return 'it starts a new turn';
      return 'neither continues the prefix nor starts anew';
    }),
});
