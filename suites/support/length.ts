import type { Exchange } from '../../src/engine/exchange.js';
import { defineShared, type ChatBody, type ProbeContext, type ProbeVerdict } from '../../src/engine/probe.js';
import { answerProblem, honoured, ignored, inconclusive, refusal, warn } from '../../src/engine/verdicts.js';
import { readChoices } from '../../src/spec/completion.js';
import type { Finding } from '../../src/report/model.js';
import { COUNT_TO, countingPrompt, LIMITS, user } from './prompts.js';

/** The limit parameters.max_tokens and max_completion_tokens send: far below the counting answer. */
export const LENGTH_LIMIT = 5;

/**
 * The model's own long answer at temperature 0, under a generous limit: the uncapped answer a length limit
 * is judged against, the text stop strings are taken from, and (streamed) the request whose usage the
 * stream is compared with. A model that refuses temperature 0 (reasoning models take only 1) is asked
 * without it; `greedy` then says the answer may not repeat.
 */
export interface GreedyAnswer {
  x: Exchange;
  body: ChatBody;
  greedy: boolean;
}

export const GREEDY_COUNT = defineShared({
  key: 'chat.greedy_count',
  cost: { requests: 2, maxTokens: 2 * LIMITS.count },
  async make(ctx): Promise<GreedyAnswer> {
    const plain: ChatBody = { messages: [user(countingPrompt(COUNT_TO))], max_tokens: LIMITS.count };
    const body = { ...plain, temperature: 0 };
    const x = await ctx.chat(body);
    if (x.ok || x.cause || x.status === undefined || x.status >= 500) return { x, body, greedy: true };
    return { x: await ctx.chat(plain), body: plain, greedy: false };
  },
});

/** The completion tokens an answer reports, if any. */
const tokensOf = (x: Exchange) => x.usage?.completionTokens;

/** Text pieces a tokenizer makes at least about one token of: words, numbers, punctuation marks. */
export function pieces(text: string): number {
  return (text.match(/[\p{L}\p{N}]+|[^\p{L}\p{N}\s]/gu) ?? []).length;
}

/**
 * A length limit (verdict contract, rules 3 and 4): `capped` is the counting request with the limit,
 * `uncapped` the same request under a generous limit. Honoured needs the cut within the limit, by the
 * server's own count where it reports one; ignored needs an answer past the limit while the uncapped
 * answer shows the prompt runs longer (the positive control). Both answers cut at the same length
 * above the limit is another limit at work (a gateway's own cap), and the client's is ignored.
 */
export function judgeLength(param: string, limit: number, capped: Exchange, uncapped: Exchange, control: Exchange): ProbeVerdict {
  const feature = `${param}: ${limit}`;
  if (!capped.ok) return refusal(capped, control, feature, param);
  const problem = answerProblem(capped, 'choice');
  if (problem) return inconclusive(`${problem}: no answer to measure`);
  const basis = answerProblem(uncapped, 'choice');
  if (basis) return inconclusive(`the same request under a generous limit got no answer to compare with (${basis})`);
  const choice = readChoices(capped.json)[0]!;
  const text = choice.content ?? '';
  const full = readChoices(uncapped.json)[0]!.content ?? '';
  const tokens = tokensOf(capped);
  const fullTokens = tokensOf(uncapped);
  const seen = `finish_reason ${JSON.stringify(choice.finishReason ?? null)}, ${tokens ?? 'no'} completion tokens reported, ${pieces(text)} text pieces; uncapped: ${fullTokens ?? '?'} tokens, ${pieces(full)} pieces`;
  const expected = `expected at most ${limit} tokens, cut with "length"`;
  // Positive control: the prompt's answer must run past the limit, else no limit shows.
  const runsLonger = fullTokens !== undefined ? fullTokens > limit : pieces(full) > 2 * limit;
  if (!runsLonger) return inconclusive(`${expected}; got ${seen}: the answer is no longer than the limit even without it`);
  const findings: Finding[] = [];
  if (tokens !== undefined) {
    if (tokens > limit) {
      const v = ignored(`${expected}; got ${seen}`);
      if (choice.finishReason === 'length' && tokens === fullTokens) {
        v.findings = [warn('other_limit', `both answers were cut at ${tokens} tokens: a limit other than the client's is applied (a gateway's own cap?)`)];
      }
      return v;
    }
  } else {
    // Without usage, the text decides: each piece is about a token, so three times the limit is past it.
    if (pieces(text) > 3 * limit) return ignored(`${expected}; got ${seen}`);
    if (!(pieces(text) < pieces(full))) return inconclusive(`${expected}; got ${seen}: the answer is not shorter than without the limit`);
    if (pieces(text) > 2 * limit) return inconclusive(`${expected}; got ${seen}: no usage to count the tokens, and the text may be past the limit`);
    findings.push(warn('no_usage', 'no usage reported: the cut is judged from the text'));
  }
  if (choice.finishReason !== 'length') findings.push(warn('finish_reason', `cut within the limit, but finish_reason is ${JSON.stringify(choice.finishReason ?? null)}, not "length"`));
  return { ...honoured(`${expected}; got ${seen}`), findings };
}

/** Sends the counting request with the limit under `param` as written, and judges it against the greedy answer. */
export async function probeLength(ctx: ProbeContext, param: 'max_tokens' | 'max_completion_tokens'): Promise<ProbeVerdict> {
  const g = await ctx.shared(GREEDY_COUNT);
  const { max_tokens: _, ...rest } = g.body;
  const capped = await ctx.chat({ ...rest, [param]: LENGTH_LIMIT }, { raw: true });
  return judgeLength(param, LENGTH_LIMIT, capped, g.x, ctx.control());
}
