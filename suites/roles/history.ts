import { defineProbe } from '../../src/engine/probe.js';
import { LIMITS, user } from '../support/prompts.js';
import { probeRecall } from '../support/roles.js';

const CODE = 'ZEBRA-42';
const QUESTION = 'What code word did you give me? Reply with the code word only.';

export default defineProbe({
  id: 'roles.history',
  area: 'roles',
  kind: 'capability',
  requirement: 'Assistant messages in the history reach the model: it recalls a code word it gave two turns back, as it does when the same words come in one message.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  // The history, and (when the answer misses the word) the history's facts in one message: the positive control.
  cost: { requests: 2, maxTokens: 2 * LIMITS.word },
  run: (ctx) =>
    probeRecall(
      ctx,
      { messages: [user('Give me a code word.'), { role: 'assistant', content: `Your code word is ${CODE}.` }, user(QUESTION)] },
      [user(`I asked you for a code word and you answered: "Your code word is ${CODE}." ${QUESTION}`)],
      [CODE],
      'an assistant message in the history',
      ['messages[1].role', 'assistant'],
    ),
});
