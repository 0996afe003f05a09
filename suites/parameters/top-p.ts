import { defineProbe } from '../../src/engine/probe.js';
import { honoured, ignored, inconclusive, refusal } from '../../src/engine/verdicts.js';
import { distinctAnswers, firstFailed, unreadableAmong } from '../support/params.js';
import { SAMPLES_T0, SAMPLES_T1, sampleSet } from '../support/shared.js';

// A nucleus of 1% keeps only the most likely token (it always holds at least one): greedy decoding.
const TOP_P = 0.01;

export default defineProbe({
  id: 'parameters.top_p',
  area: 'parameters',
  kind: 'capability',
  requirement: `top_p ${TOP_P} at temperature 1 collapses the variety of an open prompt to one answer.`,
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, sampled: { sets: 1, maxTokens: 3 }, shared: [SAMPLES_T0, SAMPLES_T1] },
  async run(ctx) {
    const t1 = await ctx.shared(SAMPLES_T1);
    if (firstFailed(t1)) return inconclusive('the temperature 1 baseline was refused, so there is no variety to collapse');
    const none = unreadableAmong(t1);
    if (none) return none;
    const d1 = distinctAnswers(t1);
    if (d1 === 1) return inconclusive(`${t1.length} samples at temperature 1 gave 1 distinct answer: no variety for top_p to collapse`);
    const withTopP = await sampleSet(ctx, { temperature: 1, top_p: TOP_P });
    const refused = firstFailed(withTopP);
    if (refused) return refusal(refused, ctx.control(), `top_p: ${TOP_P}`, 'top_p');
    const dp = distinctAnswers(withTopP);
    const seen = `${withTopP.length} samples at temperature 1: ${d1} distinct; with top_p ${TOP_P}: ${dp} distinct`;
    if (dp === 1) return honoured(`expected one answer with top_p ${TOP_P}; got ${seen}`);
    // Variety under a 1% nucleus is only proof of "ignored" if greedy decoding itself is repeatable.
    const t0 = await ctx.shared(SAMPLES_T0);
    if (firstFailed(t0) || distinctAnswers(t0) > 1) {
      return inconclusive(`${seen}, but greedy decoding (temperature 0) is not repeatable here, so the variety proves nothing`);
    }
    return ignored(`expected one answer with top_p ${TOP_P}; got ${seen}`);
  },
});
