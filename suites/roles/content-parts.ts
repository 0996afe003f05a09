import { defineProbe } from '../../src/engine/probe.js';
import { user } from '../support/prompts.js';
import { judgeRecall, RULE_IN_USER } from '../support/roles.js';

export default defineProbe({
  id: 'roles.content_parts',
  area: 'roles',
  kind: 'capability',
  requirement: 'User content as an array of text parts is read whole: an answer that needs every part shows it.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: 6, shared: [RULE_IN_USER] },
  run: (ctx) =>
    judgeRecall(
      ctx,
      [
        user([
          { type: 'text', text: 'Remember the word MANGO.' },
          { type: 'text', text: 'Remember the word KIWI.' },
          { type: 'text', text: 'Reply with both remembered words, separated by a space.' },
        ]),
      ],
      ['MANGO', 'KIWI'],
      'user content as text parts',
      'messages[0].content',
    ),
});
