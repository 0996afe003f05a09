import { defineProbe } from '../../src/engine/probe.js';
import { LIMITS, user } from '../support/prompts.js';
import { probeRecall } from '../support/roles.js';

const PARTS = ['Remember the word MANGO.', 'Remember the word KIWI.', 'Reply with both remembered words, separated by a space.'];

export default defineProbe({
  id: 'roles.content_parts',
  area: 'roles',
  kind: 'capability',
  requirement: 'User content as an array of text parts is read whole: an answer that needs every part shows it, as the same text in one string does.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  // The parts, and (when the answer misses a word) the same text as one string: the positive control.
  cost: { requests: 2, maxTokens: 2 * LIMITS.word },
  run: (ctx) =>
    probeRecall(
      ctx,
      { messages: [user(PARTS.map((text) => ({ type: 'text', text })))] },
      [user(PARTS.join(' '))],
      ['MANGO', 'KIWI'],
      'user content as text parts',
      ['messages[0].content', 'content'],
    ),
});
