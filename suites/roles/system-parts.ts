import { defineProbe } from '../../src/engine/probe.js';
import { LIMITS, user } from '../support/prompts.js';
import { PINEAPPLE_RULE, probeInstruction, RULE_IN_USER, UNRELATED_QUESTION } from '../support/roles.js';

export default defineProbe({
  id: 'roles.system_parts',
  area: 'roles',
  kind: 'capability',
  requirement: 'A system message whose content is an array of text parts is read whole: the instruction in its second part takes effect.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: LIMITS.word, shared: [RULE_IN_USER] },
  run: (ctx) =>
    probeInstruction(
      ctx,
      [{ role: 'system', content: [{ type: 'text', text: 'You are a terse assistant.' }, { type: 'text', text: PINEAPPLE_RULE }] }, user(UNRELATED_QUESTION)],
      'system content as text parts',
      ['messages[0].content', 'content'],
    ),
});
