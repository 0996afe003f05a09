import { defineProbe } from '../../src/engine/probe.js';
import { honoured, inconclusive, refusal } from '../../src/engine/verdicts.js';
import { distinctAnswers, firstFailed, unreadableAmong } from '../support/params.js';
import { SAMPLES_T0, SAMPLES_T1 } from '../support/shared.js';

export default defineProbe({
  id: 'parameters.temperature',
  area: 'parameters',
  kind: 'capability',
  requirement: 'temperature 0 makes an open prompt answer the same every time; temperature 1 lets the answers vary.',
  // Never `ignored`: a model that varies at 0 may ignore temperature or be random at 0, and one that never
  // varies at 1 may ignore it or be unable to vary on this prompt; samples cannot tell these apart.
  verdicts: ['honoured', 'rejected', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0, shared: [SAMPLES_T0, SAMPLES_T1] },
  async run(ctx) {
    const t0 = await ctx.shared(SAMPLES_T0);
    const t1 = await ctx.shared(SAMPLES_T1);
    const k = ctx.options.samples;
    const refused0 = firstFailed(t0);
    const refused1 = firstFailed(t1);
    if (refused0 && !refused1) return refusal(refused0, ctx.control(), 'temperature: 0 (temperature: 1 was accepted)', 'temperature');
    if (refused1 && !refused0) return refusal(refused1, ctx.control(), 'temperature: 1 (temperature: 0 was accepted)', 'temperature');
    if (refused0) return refusal(refused0, ctx.control(), 'temperature: 0 and 1', 'temperature');
    const none = unreadableAmong([...t0, ...t1]);
    if (none) return none;
    const d0 = distinctAnswers(t0);
    const d1 = distinctAnswers(t1);
    const seen = `${k} samples at 0: ${d0} distinct; at 1: ${d1} distinct`;
    if (d0 > 1) return inconclusive(`${seen}: the answers vary at temperature 0, so either it is ignored or the model is random at 0`);
    if (d1 === 1) return inconclusive(`${seen}: no variety at 1 either, so the prompt cannot show sampling for this model`);
    return honoured(`expected one answer at 0 and several at 1; got ${seen}`);
  },
});
