import { defineProbe } from '../../src/engine/probe.js';
import { FORMS_TOGETHER, judgeFormTogether } from '../support/roles.js';

export default defineProbe({
  id: 'roles.consecutive_user',
  area: 'roles',
  kind: 'capability',
  requirement: 'Two user messages in a row are accepted (merged) or refused (templates that require alternating roles).',
  verdicts: ['accepted', 'rejected', 'inconclusive'],
  // In one request with the other form of FORMS_TOGETHER.
  cost: { requests: 0, maxTokens: 0, shared: [FORMS_TOGETHER] },
  run: (ctx) => judgeFormTogether(ctx, 'consecutive_user'),
});
