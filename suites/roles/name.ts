import { defineProbe } from '../../src/engine/probe.js';
import { FORMS_TOGETHER, judgeFormTogether } from '../support/roles.js';

export default defineProbe({
  id: 'roles.name',
  area: 'roles',
  kind: 'capability',
  requirement: 'A message may carry a name: it is accepted or refused.',
  verdicts: ['accepted', 'rejected', 'inconclusive'],
  // In one request with the other form of FORMS_TOGETHER.
  cost: { requests: 0, maxTokens: 0, shared: [FORMS_TOGETHER] },
  run: (ctx) => judgeFormTogether(ctx, 'name'),
});
