import type { ProbeContext, ProbeVerdict } from '../../src/engine/probe.js';
import { honoured, ignored, inconclusive, refusal } from '../../src/engine/verdicts.js';
import { distinctAnswers, firstFailed, unreadableAmong } from './params.js';
import { SAMPLES_T0, SAMPLES_T1, sampleSet } from './shared.js';

/**
 * A parameter that should collapse the variety of sampling at temperature 1 to one answer (top_p near 0,
 * a fixed seed). Honoured: the temperature 1 baseline varies and the samples with the parameter do not.
 * Ignored only when greedy decoding is repeatable: otherwise variety under the parameter proves nothing.
 */
export async function judgeCollapse(ctx: ProbeContext, param: string, value: unknown): Promise<ProbeVerdict> {
  const feature = `${param} ${JSON.stringify(value)}`;
  const t1 = await ctx.shared(SAMPLES_T1);
  if (firstFailed(t1)) return inconclusive(`the temperature 1 baseline was refused, so there is no variety for ${feature} to collapse`);
  const none = unreadableAmong(t1);
  if (none) return none;
  const d1 = distinctAnswers(t1);
  if (d1 === 1) return inconclusive(`${t1.length} samples at temperature 1 gave 1 distinct answer: no variety for ${feature} to collapse`);
  const withParam = await sampleSet(ctx, { temperature: 1, [param]: value });
  const refused = firstFailed(withParam);
  if (refused) return refusal(refused, ctx.control(), `${param}: ${JSON.stringify(value)}`, param);
  const dp = distinctAnswers(withParam);
  const seen = `${withParam.length} samples at temperature 1: ${d1} distinct; with ${feature}: ${dp} distinct`;
  if (dp === 1) return honoured(`expected one answer with ${feature}; got ${seen}`);
  const t0 = await ctx.shared(SAMPLES_T0);
  if (firstFailed(t0) || distinctAnswers(t0) > 1) {
    return inconclusive(`${seen}, but greedy decoding (temperature 0) is not repeatable here either, so the variety proves nothing`);
  }
  return ignored(`expected one answer with ${feature}; got ${seen}`);
}
