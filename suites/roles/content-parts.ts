import { defineProbe } from '../../src/engine/probe.js';
import { LIMITS, user } from '../support/prompts.js';
import { probeRecall, RECALL_PLAIN, RECALL_TASKS } from '../support/roles.js';

const { parts: PARTS, words: WORDS } = RECALL_TASKS.contentParts;

export default defineProbe({
  id: 'roles.content_parts',
  area: 'roles',
  kind: 'capability',
  requirement: 'User content as an array of text parts is read whole: an answer that needs every part shows it, as the same text in one string does.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  // The parts, and (when the answer misses a word) the same text as one string, in the recall probes' one
  // plain control: the positive control.
  cost: { requests: 1, maxTokens: LIMITS.word, shared: [RECALL_PLAIN] },
  run: (ctx) =>
    probeRecall(
      ctx,
      { messages: [user(PARTS.map((text) => ({ type: 'text', text })))] },
      WORDS,
      'user content as text parts',
      ['messages[0].content', 'content'],
    ),
});
