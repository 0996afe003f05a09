import { defineProbe, SMOKE_PROMPT } from '../../src/engine/probe.js';
import { LIMITS, user } from '../support/prompts.js';
import { judgeForm } from '../support/roles.js';

export default defineProbe({
  id: 'roles.empty_content',
  area: 'roles',
  kind: 'capability',
  tier: 'extended',
  requirement: 'A message with empty content is accepted or refused.',
  verdicts: ['accepted', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.word },
  run: (ctx) => judgeForm(ctx, [user(SMOKE_PROMPT), { role: 'assistant', content: 'OK' }, user('')], 'an empty user message', ['messages[2].content', 'content', 'empty']),
});
