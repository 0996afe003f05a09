import { defineProbe } from '../../src/engine/probe.js';
import { honoured, ignored, inconclusive, refusal } from '../../src/engine/verdicts.js';
import { distinctAnswers, firstFailed, unreadableAmong } from '../support/params.js';
import { SAMPLES_T0, SAMPLES_T1, sampleSet } from '../support/shared.js';

const SEED = 42;

export default defineProbe({
  id: 'parameters.seed',
  area: 'parameters',
  kind: 'capability',
  requirement: 'The same seed at temperature 1 gives the same answer to an open prompt every time.',
  verdicts: ['honoured', 'ignored', 'rejected', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, sampled: { sets: 1, maxTokens: 3 }, shared: [SAMPLES_T0, SAMPLES_T1] },
  async run(ctx) {
    const t1 = await ctx.shared(SAMPLES_T1);
    if (firstFailed(t1)) return inconclusive('the temperature 1 baseline was refused, so there is no variety for a seed to fix');
    const none = unreadableAmong(t1);
    if (none) return none;
    const d1 = distinctAnswers(t1);
    if (d1 === 1) return inconclusive(`${t1.length} samples at temperature 1 gave 1 distinct answer: no variety for a seed to fix`);
    const seeded = await sampleSet(ctx, { temperature: 1, seed: SEED });
    const refused = firstFailed(seeded);
    if (refused) return refusal(refused, ctx.control(), `seed: ${SEED}`, 'seed');
    const ds = distinctAnswers(seeded);
    const seen = `${seeded.length} samples at temperature 1: ${d1} distinct; with seed ${SEED}: ${ds} distinct`;
    if (ds === 1) return honoured(`expected one answer with a fixed seed; got ${seen}`);
    // A seed cannot make a deployment repeatable that is not repeatable even when greedy.
    const t0 = await ctx.shared(SAMPLES_T0);
    if (firstFailed(t0) || distinctAnswers(t0) > 1) {
      return inconclusive(`${seen}, but greedy decoding (temperature 0) is not repeatable here either, so the seed cannot be judged`);
    }
    return ignored(`expected one answer with a fixed seed; got ${seen}`);
  },
});
