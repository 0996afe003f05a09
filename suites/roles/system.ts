import { defineProbe } from '../../src/engine/probe.js';
import { LIMITS, user } from '../support/prompts.js';
import { PINEAPPLE_RULE, probeInstruction, RULE_IN_USER, UNRELATED_QUESTION } from '../support/roles.js';

export default defineProbe({
  id: 'roles.system',
  area: 'roles',
  kind: 'capability',
  requirement: 'A system message instructs the model: "answer every message with only the word PINEAPPLE" changes the answer to an unrelated question.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.word, shared: [RULE_IN_USER] },
  run: (ctx) => probeInstruction(ctx, [{ role: 'system', content: PINEAPPLE_RULE }, user(UNRELATED_QUESTION)], 'a system message', ['messages[0].role', 'system']),
});
