import type { Exchange } from '../../src/engine/exchange.js';
import { defineProbe, type ProbeVerdict } from '../../src/engine/probe.js';
import { honoured, ignored, inconclusive, refusal, unreadable } from '../../src/engine/verdicts.js';
import { readChoices } from '../../src/wire/completion.js';
import { carried, PARAMS_TOGETHER, withOthers } from '../support/together.js';

/**
 * n: 2 asks the server for two choices: a mechanical effect, which no model can show by chance. The
 * negative control is the smoke call (the same prompt without n): a server that answers two choices
 * whatever n says shows nothing of n.
 */
export function judgeN(x: Exchange, control: Exchange): ProbeVerdict {
  if (!x.ok) return refusal(x, control, 'n: 2', 'n');
  const none = unreadable(x, 'choice');
  if (none) return none;
  const choices = readChoices(x.json);
  const indexes = choices.map((c) => c.index).sort();
  const seen = `${choices.length} choice(s) with indexes ${JSON.stringify(indexes)}`;
  if (choices.length === 1) return ignored(`expected 2 choices, got ${seen}`);
  if (choices.length === 2 && indexes[0] === 0 && indexes[1] === 1) {
    const without = control.ok ? readChoices(control.json).length : 0;
    if (without !== 1) return inconclusive(`expected 2 choices indexed 0 and 1, got ${seen}; but the same prompt without n got ${without} choice(s), not one, so the two may not come from n`);
    return honoured(`expected 2 choices indexed 0 and 1; got ${seen}, where the same prompt without n gets one`);
  }
  return inconclusive(`expected 2 choices indexed 0 and 1, got ${seen}`);
}

export default defineProbe({
  id: 'parameters.n',
  area: 'parameters',
  kind: 'capability',
  requirement: 'n: 2 returns two choices, with indexes 0 and 1.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  // The smoke prompt with n: 2, in one request with the other parameters of PARAMS_TOGETHER.
  cost: { requests: 0, maxTokens: 0, shared: [PARAMS_TOGETHER] },
  async run(ctx) {
    const c = await carried(ctx, 'n');
    return withOthers(judgeN(c.x, ctx.control()), c, 'n');
  },
});
