import type { Exchange } from '../../src/engine/exchange.js';
import { defineShared, type ChatBody, type ProbeContext, type ProbeVerdict } from '../../src/engine/probe.js';
import { answerProblem, honoured, ignored, inconclusive, refusal, warn } from '../../src/engine/verdicts.js';
import { readChoices } from '../../src/wire/completion.js';
import { isObject } from '../../src/wire/json.js';
import type { Finding } from '../../src/results/model.js';
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

/**
 * Priced at one request: the second, without temperature, is a refusal's re-send, beyond the plan as a
 * limit sent again under max_completion_tokens is (engine/cost.ts CapFit). At the default tier it costs the
 * model nothing beyond its plan: a model that refuses temperature 0 refuses the temperature 0 sample set's
 * first sample too, and that set stops there, two requests short of its three.
 */
export const GREEDY_COUNT = defineShared({
  key: 'chat.greedy_count',
  cost: { requests: 1, maxTokens: LIMITS.count, resends: 1 },
  async make(ctx): Promise<GreedyAnswer> {
    const plain: ChatBody = { messages: [user(countingPrompt(COUNT_TO))], max_tokens: LIMITS.count };
    const body = { ...plain, temperature: 0 };
    const x = await ctx.chat(body);
    if (x.ok || x.cause || x.status === undefined || x.status >= 500) return { x, body, greedy: true };
    return { x: await ctx.chat(plain), body: plain, greedy: false };
  },
});

/** Text pieces a tokenizer makes at least about one token of: words, numbers, punctuation marks. */
export function pieces(text: string): number {
  return (text.match(/[\p{L}\p{N}]+|[^\p{L}\p{N}\s]/gu) ?? []).length;
}

/**
 * The completion tokens an answer reports, when they can count its text: fewer than a third of its pieces
 * cannot (no tokenizer makes one token of three words or numbers), and such usage is not the server's count
 * of this answer (a gateway reporting the limit it was asked for, or zeros). Then `unfit` says why.
 */
function countOf(x: Exchange, text: string): { tokens: number | undefined; unfit?: string } {
  const tokens = x.usage?.completionTokens;
  if (tokens === undefined || tokens * 3 >= pieces(text)) return { tokens };
  return { tokens: undefined, unfit: `${tokens} completion tokens reported for an answer of ${pieces(text)} text pieces: the usage does not count the answer` };
}

/** usage.completion_tokens_details.reasoning_tokens, or 0. */
function reasoningTokens(x: Exchange): number {
  const usage = isObject(x.json) && isObject(x.json.usage) ? x.json.usage : undefined;
  const details = usage && isObject(usage.completion_tokens_details) ? usage.completion_tokens_details : undefined;
  return details && typeof details.reasoning_tokens === 'number' ? details.reasoning_tokens : 0;
}

/** What an answer's usage says beside the text it shows: tokens reported for that text, its pieces, and their ratio. */
export interface UsageRatio {
  reported: number;
  pieces: number;
  ratio: number;
}

/**
 * The completion tokens an answer reports per piece of the text it shows. Reasoning is part of the
 * completion and not inflation: reasoning_tokens, where reported, are taken off (the reasoning may be
 * hidden, as OpenAI's o-series keeps it); where they are not, the reasoning text counts as text (a
 * reasoning_content beside a plain count, as llama.cpp and DeepSeek send). Undefined without usage or text.
 */
export function usageRatio(x: Exchange): UsageRatio | undefined {
  const completion = x.usage?.completionTokens;
  const choice = readChoices(x.json)[0];
  if (completion === undefined || !choice) return undefined;
  const thought = reasoningTokens(x);
  const shown = `${choice.content ?? ''}${thought > 0 ? '' : ` ${choice.reasoning ?? ''}`}`;
  const reported = completion - thought;
  const n = pieces(shown);
  if (n === 0 || reported < 0) return undefined;
  return { reported, pieces: n, ratio: reported / n };
}

/**
 * The ratio of completion tokens to text pieces past which a count is inflated rather than a tokenizer's.
 * No tokenizer spends 2.5 tokens a piece on counting text: Llama 2's, which splits numbers into digits and
 * spaces into tokens of their own, comes to about 1.8; tiktoken's about 1. A gateway over-reporting 2×
 * stays under it and is read as a recount (finding `usage_count`, rule below).
 */
export const INFLATED_RATIO = 2.5;
/** How far the capped answer's ratio may stray from the uncapped one's and still be the same: a cut of
 *  about five pieces is off by one piece either way, 20%, and a tokenizer's cost per piece varies a little. */
const SAME_RATIO = 1.5;
/** The fewest pieces an uncapped answer needs for its ratio to be the endpoint's, not rounding. */
const RATIO_PIECES = 12;

/** Text that is the counting answer: at least two in five of its pieces are numbers ("1, 2, 3" is three in five). */
function countingText(text: string): boolean {
  const all = pieces(text);
  return all > 0 && (text.match(/\p{N}+/gu) ?? []).length / all >= 0.4;
}

/**
 * Usage inflated by the endpoint: the uncapped answer reports INFLATED_RATIO or more completion tokens per
 * piece of its text, and the capped answer the same ratio (the control: one answer's odd count is not the
 * endpoint's habit, and a count that matches its text in one answer only says something about that answer).
 */
export function inflatedUsage(capped: Exchange, uncapped: Exchange): { ratio: number; capped: UsageRatio; uncapped: UsageRatio } | undefined {
  // The bound holds for counting text only: a word run of letters (prose, CJK, a tiny model's gibberish
  // mixing scripts) costs a tokenizer many tokens a piece, and says nothing about inflation.
  if (!countingText(readChoices(uncapped.json)[0]?.content ?? '')) return undefined;
  const c = usageRatio(capped);
  const u = usageRatio(uncapped);
  if (!c || !u || u.pieces < RATIO_PIECES || u.ratio < INFLATED_RATIO || c.ratio === 0) return undefined;
  if (Math.max(c.ratio, u.ratio) / Math.min(c.ratio, u.ratio) > SAME_RATIO) return undefined;
  return { ratio: u.ratio, capped: c, uncapped: u };
}

/**
 * A length limit (verdict contract, rules 3 and 4): `capped` is the counting request with the limit,
 * `uncapped` the same request under a generous limit. Honoured needs the cut within the limit, by the
 * server's own count where it reports one; ignored needs an answer past the limit while the uncapped
 * answer shows the prompt runs longer (the positive control). Both answers cut at the same length
 * above the limit is another limit at work (a gateway's own cap), and the client's is ignored.
 *
 * The count and the text must agree. A count that cannot cover the text (fewer tokens than a third of its
 * pieces) is set aside and the text decides. A count past the limit beside a text cut with "length" to at
 * most `limit` pieces of an uncapped answer over three times as long is the cut the limit made, counted
 * otherwise (a gateway recounting with another tokenizer, or a server adding its own tokens): honoured,
 * with the finding `usage_count`, when the count is at most twice the limit and no reasoning ran (a server
 * may cut the visible answer at the limit while its reasoning runs on, counted).
 *
 * Usage the endpoint inflates (a gateway seen reporting 3× the completion tokens of every answer) is
 * no evidence about the limit: where both answers report INFLATED_RATIO or more tokens per text piece, and
 * the same ratio, the text decides, with the finding `usage_inflated` naming the ratio (a billing fault).
 * Honoured then needs the text cut with "length" to at most `limit` pieces of an uncapped answer over three
 * times as long, no reasoning, and ignored a text past three times the limit; anything between is
 * inconclusive ("stop" beside a short text: neither the count nor the finish says the limit cut it).
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
  const count = countOf(capped, text);
  const fullCount = countOf(uncapped, full);
  const { tokens } = count;
  const fullTokens = fullCount.tokens;
  const reported = (x: Exchange) => x.usage?.completionTokens ?? 'no';
  const seen = `finish_reason ${JSON.stringify(choice.finishReason ?? null)}, ${reported(capped)} completion tokens reported, ${pieces(text)} text pieces; uncapped: ${uncapped.usage?.completionTokens ?? '?'} tokens, ${pieces(full)} pieces`;
  const expected = `expected at most ${limit} tokens, cut with "length"`;
  // Positive control: the prompt's answer must run past the limit, else no limit shows.
  const runsLonger = fullTokens !== undefined ? fullTokens > limit : pieces(full) > 2 * limit;
  if (!runsLonger) return inconclusive(`${expected}; got ${seen}: the answer is no longer than the limit even without it`);
  const findings: Finding[] = [];
  const unfit = count.unfit ?? fullCount.unfit;
  if (unfit) findings.push(warn('usage_count', unfit));
  const reasons = Boolean(choice.reasoning) || reasoningTokens(capped) > 0;
  const inflated = unfit ? undefined : inflatedUsage(capped, uncapped);
  if (inflated) {
    // The endpoint counts every answer k times over: its count says nothing of where the limit cut, and the
    // text decides. The controls: the uncapped answer shows the same ratio (so this is the endpoint's habit,
    // not this answer's spending), and it runs clearly longer than the cut.
    const { ratio, capped: c, uncapped: u } = inflated;
    const k = ratio.toFixed(1);
    findings.push(warn('usage_inflated', `usage reports ${k}× the completion tokens its text can hold (${c.reported} for the ${c.pieces} text pieces of the capped answer; ${u.reported} for the uncapped answer's ${u.pieces}): a billing fault (a client billed by this usage pays for tokens it never got), and no evidence about the limit`));
    const said = `${expected}; got ${seen}: the usage is ${k}× the text in both answers, so the text decides`;
    const p = pieces(text);
    if (p > 3 * limit) return { ...ignored(`${said}, and it runs past three times the limit`), findings };
    if (reasons) return { ...inconclusive(`${said}, and reasoning ran, which a server may let run on past the limit and count: whether the limit held cannot be told`), findings };
    if (p > limit) return { ...inconclusive(`${said}, and it runs past the limit by a little (${p} pieces): the limit counted otherwise, or another cap`), findings };
    if (pieces(full) <= 3 * limit) return { ...inconclusive(`${said}, and the uncapped answer (${pieces(full)} pieces) is not clearly longer than the limit`), findings };
    if (choice.finishReason !== 'length') {
      return { ...inconclusive(`${said}, but finish_reason is ${JSON.stringify(choice.finishReason ?? null)}, not "length": neither the count nor the finish says the limit made the cut`), findings };
    }
    return { ...honoured(`${said}: cut with "length" at ${p} pieces, of an uncapped answer of ${pieces(full)}`), findings };
  }
  if (tokens !== undefined) {
    if (tokens > limit) {
      // Only a count a recount explains: a little past the limit (at most twice it), and no reasoning, which
      // a server may run on past a limit it applies to the visible answer alone, and count.
      const cutByLimit = !reasons && tokens <= 2 * limit && choice.finishReason === 'length' && pieces(text) <= limit && pieces(full) > 3 * limit;
      if (cutByLimit) {
        findings.push(warn('usage_count', `${tokens} completion tokens reported for an answer cut with "length" at ${pieces(text)} text pieces, under a limit of ${limit} (the uncapped answer runs to ${pieces(full)}): the limit cut it, and the usage counts it otherwise (a gateway recounting with another tokenizer, or tokens added that the text does not show)`));
        return { ...honoured(`${expected}; got ${seen}`), findings };
      }
      const v = ignored(`${expected}; got ${seen}`);
      if (choice.finishReason === 'length' && tokens === fullTokens) {
        findings.push(warn('other_limit', `both answers were cut at ${tokens} tokens: a limit other than the client's is applied (a gateway's own cap?)`));
      }
      return { ...v, findings };
    }
  } else {
    // Without a count, the text decides: each piece is about a token, so three times the limit is past it.
    if (pieces(text) > 3 * limit) return { ...ignored(`${expected}; got ${seen}`), findings };
    if (!(pieces(text) < pieces(full))) return inconclusive(`${expected}; got ${seen}: the answer is not shorter than without the limit`);
    if (pieces(text) > 2 * limit) return inconclusive(`${expected}; got ${seen}: no usage to count the tokens, and the text may be past the limit`);
    if (!count.unfit) findings.push(warn('no_usage', 'no usage reported: the cut is judged from the text'));
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
