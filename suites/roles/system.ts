import { defineProbe } from '../../src/engine/probe.js';
import { judgeInstruction, RULE_IN_USER, SYSTEM_RULE } from '../support/roles.js';

export default defineProbe({
  id: 'roles.system',
  area: 'roles',
  kind: 'capability',
  requirement: 'A system message instructs the model: "answer every message with only the word PINEAPPLE" changes the answer to an unrelated question.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [SYSTEM_RULE, RULE_IN_USER] },
  run: async (ctx) => judgeInstruction(await ctx.shared(SYSTEM_RULE), await ctx.shared(RULE_IN_USER), ctx.control(), 'a system message', ['messages[0].role', 'system']),
});
