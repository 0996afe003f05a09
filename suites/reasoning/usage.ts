import type { Exchange } from '../../src/engine/exchange.js';
import { defineProbe, type ProbeVerdict } from '../../src/engine/probe.js';
import { conformance, fail, inconclusive, note, warn } from '../../src/engine/verdicts.js';
import type { Finding } from '../../src/results/model.js';
import { notReasoning, reasoningOf } from '../support/reasoning.js';

/**
 * How a reasoning answer is counted: `completion_tokens_details.reasoning_tokens` at most `completion_tokens`
 * (reasoning is part of the completion, and billed as such), `total_tokens` = prompt + completion. A
 * reasoning text with no reasoning_tokens reported warns (what is billed for it cannot be told); a count
 * of 0 reasoning tokens beside a reasoning text warns too (the reasoning is not broken out).
 */
export function judgeReasoningUsage(smoke: Exchange): ProbeVerdict {
  const skip = notReasoning(smoke);
  if (skip) return inconclusive(`skipped: ${skip}`);
  const r = reasoningOf(smoke);
  if (r.completionTokens === undefined || r.promptTokens === undefined || r.totalTokens === undefined) return inconclusive('the answer reports no usage to check');
  const findings: Finding[] = [];
  const counts = `prompt ${r.promptTokens}, completion ${r.completionTokens}, reasoning ${r.reasoningTokens ?? 'not reported'}, total ${r.totalTokens}`;
  if (r.promptTokens + r.completionTokens !== r.totalTokens) findings.push(fail('total', `total_tokens ${r.totalTokens} ≠ prompt ${r.promptTokens} + completion ${r.completionTokens} (reasoning counted apart?)`));
  if (r.reasoningTokens === undefined) {
    findings.push(warn('no_reasoning_tokens', 'usage.completion_tokens_details.reasoning_tokens is not reported: how much of the completion is reasoning cannot be told'));
  } else {
    if (r.reasoningTokens > r.completionTokens) findings.push(fail('over', `reasoning_tokens ${r.reasoningTokens} > completion_tokens ${r.completionTokens}: the reasoning is billed on top, or miscounted`));
    // The reasoning may well be in completion_tokens: 0 says only that it is not broken out.
    if (r.reasoningTokens === 0 && r.text.length >= 40) findings.push(warn('not_broken_out', `${r.text.length} characters of reasoning, yet reasoning_tokens 0: how much of the completion is reasoning cannot be told`));
  }
  findings.push(note('counts', counts));
  return conformance(findings, counts);
}

export default defineProbe({
  id: 'reasoning.usage',
  area: 'reasoning',
  kind: 'conformance',
  tier: 'quick',
  requirement: 'A reasoning answer reports completion_tokens_details.reasoning_tokens ≤ completion_tokens, and total_tokens = prompt_tokens + completion_tokens.',
  verdicts: ['pass', 'warn', 'fail', 'inconclusive'],
  cost: { requests: 0, maxTokens: 0 },
  run: async (ctx) => judgeReasoningUsage(ctx.control()),
});
