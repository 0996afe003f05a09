import { defineProbe, SMOKE_PROMPT } from '../../src/engine/probe.js';
import { honoured, ignored, inconclusive, refusal } from '../../src/engine/verdicts.js';
import { readChoices } from '../../src/spec/completion.js';
import { user } from '../support/prompts.js';

export default defineProbe({
  id: 'parameters.n',
  area: 'parameters',
  kind: 'capability',
  requirement: 'n: 2 returns two choices, with indexes 0 and 1.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 1, maxTokens: 4 },
  async run(ctx) {
    const x = await ctx.chat({ messages: [user(SMOKE_PROMPT)], n: 2 });
    if (!x.ok) return refusal(x, ctx.control(), 'n: 2', 'n');
    const choices = readChoices(x.json);
    const indexes = choices.map((c) => c.index).sort();
    const seen = `${choices.length} choice(s) with indexes ${JSON.stringify(indexes)}`;
    if (choices.length === 1) return ignored(`expected 2 choices, got ${seen}`);
    if (choices.length === 2 && indexes[0] === 0 && indexes[1] === 1) return honoured(`expected 2 choices indexed 0 and 1; got ${seen}`);
    return inconclusive(`expected 2 choices indexed 0 and 1, got ${seen}`);
  },
});
