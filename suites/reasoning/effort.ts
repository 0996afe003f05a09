import type { Exchange } from '../../src/engine/exchange.js';
import { defineProbe, type ProbeVerdict } from '../../src/engine/probe.js';
import { answerProblem, honoured, inconclusive, note, refusal, warn } from '../../src/engine/verdicts.js';
import type { Finding } from '../../src/results/model.js';
import { user } from '../support/prompts.js';
import { notReasoning, REASONING_LIMIT, reasoningOf, THINKING_PROMPT } from '../support/reasoning.js';

/** How much an answer reasoned: its reasoning tokens when reported, else its reasoning text's length. */
function amount(x: Exchange, unit: 'tokens' | 'characters'): number {
  const r = reasoningOf(x);
  return unit === 'tokens' ? (r.reasoningTokens ?? 0) : r.text.length;
}

/** Samples at each effort: one pair could differ twice over by chance (reasoning lengths vary widely). */
export const EFFORT_SAMPLES = 2;

/**
 * reasoning_effort "high" against "low" on the same question, EFFORT_SAMPLES answers each. Honoured: the
 * least high answer reasons at least twice as much as the most low answer (reasoning tokens where all
 * report them, else characters) and clearly more (16 tokens, 64 characters). Every pair must agree, so a
 * model whose reasoning merely varies a lot is not taken for one that follows the effort (the control
 * against chance). A low answer cut by chatprobe's limit is inconclusive (its whole reasoning is unknown);
 * a cut high one only understates. Never ignored: a question may need as little thought at any effort.
 * A bogus value ("extreme") answered 200 is a finding: the value is not validated.
 */
export function judgeEffort(lows: readonly Exchange[], highs: readonly Exchange[], bogus: Exchange | undefined, smoke: Exchange): ProbeVerdict {
  for (const [xs, name] of [
    [lows, 'reasoning_effort: "low"'],
    [highs, 'reasoning_effort: "high"'],
  ] as const) {
    for (const x of xs) {
      if (!x.ok) return refusal(x, smoke, name, 'reasoning_effort');
      const problem = answerProblem(x, 'choice');
      if (problem) return inconclusive(`${name}: ${problem}`);
    }
  }
  const findings: Finding[] = [];
  if (bogus?.ok && !answerProblem(bogus, 'choice')) findings.push(warn('no_validation', 'reasoning_effort: "extreme" (no such value) was answered with HTTP 200: the value is not validated'));
  else if (bogus && bogus.status !== undefined && bogus.status >= 400 && bogus.status < 500) findings.push(note('validated', `reasoning_effort: "extreme" was refused with HTTP ${bogus.status}`));
  const unit = [...lows, ...highs].every((x) => reasoningOf(x).reasoningTokens !== undefined) ? 'tokens' : 'characters';
  const cut = (x: Exchange) => (reasoningOf(x).finishReason === 'length' ? ' (cut by the limit)' : '');
  const list = (xs: readonly Exchange[]) => xs.map((x) => `${amount(x, unit)}${cut(x)}`).join(', ');
  const seen = `reasoning ${unit} at low: ${list(lows)}; at high: ${list(highs)}`;
  const withFindings = (v: ProbeVerdict): ProbeVerdict => ({ ...v, findings: [...findings, ...(v.findings ?? [])] });
  if (lows.some((x) => cut(x))) return withFindings(inconclusive(`a low-effort answer ran into the limit chatprobe sends (${seen}): its whole reasoning is unknown`));
  const mostLow = Math.max(...lows.map((x) => amount(x, unit)));
  const leastHigh = Math.min(...highs.map((x) => amount(x, unit)));
  const margin = unit === 'tokens' ? 16 : 64;
  if (leastHigh >= 2 * mostLow && leastHigh - mostLow >= margin) return withFindings(honoured(`every high-effort answer reasoned at least twice as much as every low-effort one on the same question (${seen})`));
  return withFindings(inconclusive(`no clear, consistent difference between low and high effort (${seen}): the effort may be ignored, the question may need as little thought at any effort, or the reasoning varies too much to tell`));
}

export default defineProbe({
  id: 'reasoning.effort',
  area: 'reasoning',
  kind: 'capability',
  tier: 'extended',
  requirement: 'reasoning_effort changes how much a reasoning model reasons: "high" reasons clearly more than "low" on the same question; an unknown value is refused.',
  verdicts: ['honoured', 'rejected', 'inconclusive'],
  cost: { requests: 2 * EFFORT_SAMPLES + 1, maxTokens: 2 * EFFORT_SAMPLES * REASONING_LIMIT + 16 },
  async run(ctx) {
    const skip = notReasoning(ctx.control());
    if (skip) return inconclusive(`skipped: ${skip}`);
    // The limit is sized for a reasoning model already: sent as written, with no room added (engine/room.ts).
    const ask = (effort: string, limit = REASONING_LIMIT) => ctx.chat({ messages: [user(THINKING_PROMPT)], reasoning_effort: effort, max_tokens: limit }, { exact: true });
    const samples = (effort: string) => Promise.all(Array.from({ length: EFFORT_SAMPLES }, () => ask(effort)));
    const [lows, highs, bogus] = await Promise.all([samples('low'), samples('high'), ask('extreme', 16)]);
    return judgeEffort(lows, highs, bogus, ctx.control());
  },
});
