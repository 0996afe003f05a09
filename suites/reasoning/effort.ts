import type { Exchange } from '../../src/engine/exchange.js';
import { defineProbe, type ProbeVerdict } from '../../src/engine/probe.js';
import { answerProblem, honoured, inconclusive, note, refusal, warn } from '../../src/engine/verdicts.js';
import type { Finding } from '../../src/report/model.js';
import { user } from '../support/prompts.js';
import { notReasoning, REASONING_LIMIT, reasoningOf, THINKING_PROMPT } from '../support/reasoning.js';

/** How much a answer reasoned: its reasoning tokens when reported, else its reasoning text's length. */
function amount(x: Exchange, unit: 'tokens' | 'characters'): number {
  const r = reasoningOf(x);
  return unit === 'tokens' ? (r.reasoningTokens ?? 0) : r.text.length;
}

/**
 * reasoning_effort "high" against "low" on the same question. Honoured: high reasons at least twice as much
 * (reasoning tokens where both report them, else characters) and clearly more (16 tokens, 64 characters),
 * with the low answer not cut by chatprobe's limit (a cut low answer understates nothing, a cut high one
 * only understates). Never ignored: a question may need as little thought at any effort. A bogus value
 * ("extreme") answered 200 is a finding: the value is not validated.
 */
export function judgeEffort(low: Exchange, high: Exchange, bogus: Exchange | undefined, smoke: Exchange): ProbeVerdict {
  for (const [x, name] of [
    [low, 'reasoning_effort: "low"'],
    [high, 'reasoning_effort: "high"'],
  ] as const) {
    if (!x.ok) return refusal(x, smoke, name, 'reasoning_effort');
    const problem = answerProblem(x, 'choice');
    if (problem) return inconclusive(`${name}: ${problem}`);
  }
  const findings: Finding[] = [];
  if (bogus?.ok && !answerProblem(bogus, 'choice')) findings.push(warn('no_validation', 'reasoning_effort: "extreme" (no such value) was answered with HTTP 200: the value is not validated'));
  else if (bogus && bogus.status !== undefined && bogus.status >= 400 && bogus.status < 500) findings.push(note('validated', `reasoning_effort: "extreme" was refused with HTTP ${bogus.status}`));
  const both = reasoningOf(low).reasoningTokens !== undefined && reasoningOf(high).reasoningTokens !== undefined;
  const unit = both ? 'tokens' : 'characters';
  const [l, h] = [amount(low, unit), amount(high, unit)];
  const seen = `low: ${l} reasoning ${unit}${reasoningOf(low).finishReason === 'length' ? ' (cut by the limit)' : ''}, high: ${h}${reasoningOf(high).finishReason === 'length' ? ' (cut by the limit)' : ''}`;
  const withFindings = (v: ProbeVerdict): ProbeVerdict => ({ ...v, findings: [...findings, ...(v.findings ?? [])] });
  if (reasoningOf(low).finishReason === 'length') return withFindings(inconclusive(`the low-effort answer ran into the limit chatprobe sends (${seen}): its whole reasoning is unknown`));
  if (h >= 2 * l && h - l >= (unit === 'tokens' ? 16 : 64)) return withFindings(honoured(`high effort reasoned at least twice as much as low on the same question (${seen})`));
  if (l >= 2 * h && l - h >= (unit === 'tokens' ? 16 : 64)) return withFindings(inconclusive(`low effort reasoned more than high (${seen})`));
  return withFindings(inconclusive(`no clear difference between low and high effort (${seen}): the effort may be ignored, or the question needs as little thought at any effort`));
}

export default defineProbe({
  id: 'reasoning.effort',
  area: 'reasoning',
  kind: 'capability',
  requirement: 'reasoning_effort changes how much a reasoning model reasons: "high" reasons clearly more than "low" on the same question; an unknown value is refused.',
  verdicts: ['honoured', 'rejected', 'inconclusive'],
  cost: { requests: 3, maxTokens: 2 * REASONING_LIMIT + 16 },
  async run(ctx) {
    const skip = notReasoning(ctx.control());
    if (skip) return inconclusive(`skipped: ${skip}`);
    const ask = (effort: string, limit = REASONING_LIMIT) => ctx.chat({ messages: [user(THINKING_PROMPT)], reasoning_effort: effort, max_tokens: limit });
    const [low, high, bogus] = await Promise.all([ask('low'), ask('high'), ask('extreme', 16)]);
    return judgeEffort(low, high, bogus, ctx.control());
  },
});
