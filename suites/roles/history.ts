import { defineProbe } from '../../src/engine/probe.js';
import { LIMITS, user } from '../support/prompts.js';
import { probeRecall, RECALL_PLAIN, RECALL_TASKS } from '../support/roles.js';

const { code: CODE } = RECALL_TASKS.history;
const QUESTION = 'What code word did you give me? Reply with the code word only.';

export default defineProbe({
  id: 'roles.history',
  area: 'roles',
  kind: 'capability',
  requirement: 'Assistant messages in the history reach the model: it recalls a code word it gave two turns back, as it does when the same words come in one message.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  // The history, and (when the answer misses the word) the history's facts in one message, in the recall
  // probes' one plain control: the positive control.
  cost: { requests: 1, maxTokens: LIMITS.word, shared: [RECALL_PLAIN] },
  run: (ctx) =>
    probeRecall(
      ctx,
      { messages: [user('Give me a code word.'), { role: 'assistant', content: `Your code word is ${CODE}.` }, user(QUESTION)] },
      [CODE],
      'an assistant message in the history',
      ['messages[1].role', 'assistant'],
    ),
});
