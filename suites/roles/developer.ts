import { defineProbe } from '../../src/engine/probe.js';
import { LIMITS, user } from '../support/prompts.js';
import { PINEAPPLE_RULE, probeInstruction, RULE_IN_USER, UNRELATED_QUESTION } from '../support/roles.js';

export default defineProbe({
  id: 'roles.developer',
  area: 'roles',
  kind: 'capability',
  requirement: 'A developer message (the newer name of the system role) instructs the model like a system message.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.word, shared: [RULE_IN_USER] },
  run: (ctx) => probeInstruction(ctx, [{ role: 'developer', content: PINEAPPLE_RULE }, user(UNRELATED_QUESTION)], 'a developer message', ['messages[0].role', 'developer']),
});
