import { defineProbe } from '../../src/engine/probe.js';
import { user } from '../support/prompts.js';
import { judgeInstruction, PINEAPPLE_RULE, RULE_IN_USER, UNRELATED_QUESTION } from '../support/roles.js';

export default defineProbe({
  id: 'roles.system',
  area: 'roles',
  kind: 'capability',
  requirement: 'A system message instructs the model: "answer every message with only the word PINEAPPLE" changes the answer to an unrelated question.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: 4, shared: [RULE_IN_USER] },
  run: (ctx) => judgeInstruction(ctx, [{ role: 'system', content: PINEAPPLE_RULE }, user(UNRELATED_QUESTION)], 'a system message', 'messages[0].role'),
});
