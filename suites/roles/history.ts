import { defineProbe } from '../../src/engine/probe.js';
import { user } from '../support/prompts.js';
import { judgeRecall, RULE_IN_USER } from '../support/roles.js';

const CODE = 'ZEBRA-42';

export default defineProbe({
  id: 'roles.history',
  area: 'roles',
  kind: 'capability',
  requirement: 'Assistant messages in the history reach the model: it recalls a code word it gave two turns back.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: 6, shared: [RULE_IN_USER] },
  run: (ctx) =>
    judgeRecall(
      ctx,
      [user('Give me a code word.'), { role: 'assistant', content: `Your code word is ${CODE}.` }, user('What code word did you give me? Reply with the code word only.')],
      [CODE],
      'an assistant message in the history',
      'messages[1].role',
    ),
});
