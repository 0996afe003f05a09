import { defineProbe, SMOKE_PROMPT } from '../../src/engine/probe.js';
import { LIMITS, user } from '../support/prompts.js';
import { judgeForm } from '../support/roles.js';

export default defineProbe({
  id: 'roles.name',
  area: 'roles',
  kind: 'capability',
  requirement: 'A message may carry a name: it is accepted or refused.',
  verdicts: ['accepted', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.word },
  run: (ctx) => judgeForm(ctx, [{ role: 'user', name: 'alice', content: SMOKE_PROMPT }], 'a message name', ['messages[0].name', 'name']),
});
