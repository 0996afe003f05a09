import { defineProbe, SMOKE_PROMPT } from '../../src/engine/probe.js';
import { LIMITS, user } from '../support/prompts.js';
import { judgeForm } from '../support/roles.js';

export default defineProbe({
  id: 'roles.consecutive_user',
  area: 'roles',
  kind: 'capability',
  requirement: 'Two user messages in a row are accepted (merged) or refused (templates that require alternating roles).',
  verdicts: ['accepted', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.word },
  run: (ctx) => judgeForm(ctx, [user('Hello.'), user(SMOKE_PROMPT)], 'two user messages in a row', ['messages[1].role', 'alternate']),
});
