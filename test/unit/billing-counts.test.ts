import { describe, expect, it } from 'vitest';
import type { MeteredCall, MeteredLabel, MeteredSet } from '../../src/billing/set.js';
import type { PriceList } from '../../src/engine/prices.js';
import type { Exchange, StreamExchange } from '../../src/engine/exchange.js';
import type { ProbeVerdict } from '../../src/engine/probe.js';
import { judgeFollowsUsage, judgeStreamBilling } from '../../suites/support/billing.js';
import { countedAnswer, countedPrompt, counterOf, type Series } from '../../suites/support/usage.js';
import { TOKENIZER_TABLE as T } from '../../suites/support/tokenizer-table.js';
import { delta, refused, reply, streamed } from '../helpers/exchanges.js';

/**
 * Deductions against the tokens the tokenizer the usage series named counts (billing.usage, billing.stream
 * with --prices): the plain call and the stream send a known prompt and get a known answer ("1, 2, …"), so
 * what an honest count of them costs is known, whatever usage the endpoint reports.
 */

const withUsage = (prompt: number, completion = 1) => reply('OK', { usage: [prompt, completion], finish: 'length' });

/** A Qwen 2 series as a server counting like it answers, `extra` tokens more on every request (a hidden prompt). */
function qwenSeries(overhead: number, extra = 0): Series {
  const q = T.qwen2.counts;
  const smoke = q.smoke + overhead + extra;
  return {
    points: [0, 3].map((k) => ({ k, x: withUsage(smoke + k * q.unitA) })),
    checks: [
      { text: 'ruleInUser', x: withUsage(smoke - q.smoke + q.ruleInUser) },
      { text: 'countPrompt', x: withUsage(smoke - q.smoke + q.countPrompt) },
    ],
  };
}

const NEW_API = { kind: 'new-api' as const, route: 'GET /api/usage/token', unit: 'quota units', step: 1 };
/** The reference server's prices: 10 quota units a prompt token, 30 a completion token. */
const LIST: PriceList = { from: 'prices.json', form: 'new-api ratios', quotaPerUsd: 500_000, groupRatio: 1, models: { m: { input: 10 / 500_000, output: 30 / 500_000, perCall: 0 } } };

/** The answer the plain call gets: 16 tokens of counting as Qwen 2 cuts it ("1", ",", " " and so on). */
const ANSWER = '1, 2, 3, 4, 5, 6';
const PROMPT = T.qwen2.counts.billingPrompt + 29; // Qwen 2.5's template

const plainX = (usage: [number, number]) => reply(ANSWER, { finish: 'length', usage });
function streamX(usage: [number, number]): StreamExchange {
  return streamed([delta({ role: 'assistant', content: '' }), delta({ content: ANSWER }), delta({}, 'length'), { id: 's', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: usage[0], completion_tokens: usage[1], total_tokens: usage[0] + usage[1] } }]);
}
const c = (label: MeteredLabel, x: Exchange, deducted: number, limit = 16, counted?: MeteredCall['counted']): MeteredCall => ({ label, x, limit, deducted, lagMs: deducted ? 0 : undefined, sentAt: 1500, untilAt: 1800, ...(counted ? { counted } : {}) });

/** A set billed `plain`/`stream` for usage [prompt, completion], the calls counted as Qwen 2 counts them (16 completion tokens). */
function set(usage: [number, number], deducted: number, counted: number | false = 16): MeteredSet {
  const n = counted === false ? undefined : { prompt: PROMPT, completion: counted };
  return {
    meter: NEW_API,
    calls: [c('plain', plainX(usage), deducted, 16, n), c('stream', streamX(usage), deducted, 16, n), c('short', reply('OK', { usage: [36, 1] }), 390, 64), c('failed', refused(400, 'bad role'), 0)],
    windowMs: 300,
    quiet: { ms: 1500 },
    model: 'm',
    prices: LIST,
    ...(counted !== false ? { countedBy: "Qwen 2 / 2.5 / 3 (usage.tokenizer's exact fit), the prompt with Qwen 2.5's template (29, as the smoke call showed)" } : {}),
  };
}
const codes = (v: ProbeVerdict) => (v.findings ?? []).map((f) => f.code);
const cost = (p: number, k: number) => p * 10 + k * 30;

describe('what the named tokenizer counts of a billed call', () => {
  it("the prompt under the template the smoke call showed, where it is a known one of the family; else the largest known and a BOS, at most", () => {
    const honest = counterOf(qwenSeries(29))!;
    expect(honest).toMatchObject({ family: 'qwen2', overhead: 29 });
    expect(honest.template).toContain("Qwen 2.5's template (29");
    expect(countedPrompt(honest, 'billingPrompt')).toBe(T.qwen2.counts.billingPrompt + 29);
    // 400 tokens more on every request: no known template adds that; the count allows the largest and a BOS.
    const hidden = counterOf(qwenSeries(29, 400))!;
    expect(hidden.overhead).toBe(30);
    expect(hidden.template).toContain('at most 30 for a known template of the family and a BOS (the smoke call showed 429)');
    // No family named (counts no tokenizer's exactly): nothing is counted.
    expect(counterOf({ ...qwenSeries(29), points: [{ k: 0, x: withUsage(36) }, { k: 3, x: withUsage(36 + 70) }] })).toBeUndefined();
  });

  it("the answer only where it is the start of the counting text, in the family's digit groups", () => {
    const q = counterOf(qwenSeries(29))!;
    expect(countedAnswer(q, ANSWER, 50)).toBe(16);
    expect(countedAnswer(q, '10, 11', 50)).toBeUndefined();
    expect(countedAnswer(q, 'Sure! 1, 2, 3', 50)).toBeUndefined();
    expect(countedAnswer(q, '1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11', 50)).toBe(11 + 2 + 20);
  });
});

describe('deductions against the tokenizer’s count (--prices)', () => {
  it('an honest gateway: billed the list price of the usage it reports, which is what the tokenizer counts: nothing said of counts', () => {
    const usage = judgeFollowsUsage(set([PROMPT, 16], cost(PROMPT, 16)));
    expect(usage.verdict).toBe('pass');
    expect(codes(usage)).toContain('listed_price');
    expect(codes(usage)).not.toContain('billed_above_count');
    expect(judgeStreamBilling(set([PROMPT, 16], cost(PROMPT, 16))).verdict).toBe('pass');
  });

  it('usage inflated and billed by it: the deduction is the list price of the usage reported, and more than the tokens the tokenizer counts', () => {
    const s = set([PROMPT, 48], cost(PROMPT, 48));
    const usage = judgeFollowsUsage(s);
    expect(usage.verdict).toBe('fail');
    const found = usage.findings!.find((f) => f.code === 'billed_above_count')!;
    expect(found.message).toBe(
      `the plain call was billed ${cost(PROMPT, 48)} quota units, and the price list (prices.json) says at most ${cost(PROMPT, 18)} for the tokens Qwen 2 / 2.5 / 3 (usage.tokenizer's exact fit), the prompt with Qwen 2.5's template (29, as the smoke call showed) counts: ${PROMPT} prompt (the prompt sent) + 16 completion (the answer's text), 2 more for an end of turn; usage reports ${PROMPT} + 48, more than the tokenizer counts, and the bill follows it: usage inflated, or a prompt added unseen (usage.prompt_overhead and usage.completion say which)`,
    );
    // The price list alone sees nothing: the bill is the list's price of the usage reported.
    expect(codes(usage)).not.toContain('billed_above_price');
    const stream = judgeStreamBilling(s);
    expect(stream.verdict).toBe('fail');
    expect(codes(stream)).toContain('billed_above_count');
  });

  it('honest usage, a bill for more (200 prompt tokens charged unseen): above the list price and above the count', () => {
    const v = judgeFollowsUsage(set([PROMPT, 16], cost(PROMPT + 200, 16)));
    expect(v.verdict).toBe('fail');
    expect(codes(v)).toEqual(expect.arrayContaining(['billed_above_price', 'billed_above_count']));
    expect(v.findings!.find((f) => f.code === 'billed_above_count')!.message).toContain(`usage reports ${PROMPT} + 16, what the tokenizer counts, yet the bill is more: charged for tokens the usage does not show`);
  });

  it('trap: an end-of-turn token or two beyond the text is no inflation', () => {
    // The text counts 14 tokens; 16 were reported and billed (what a model ending its turn counts).
    const v = judgeFollowsUsage(set([PROMPT, 16], cost(PROMPT, 16), 14));
    expect(v.verdict).toBe('pass');
    expect(codes(v)).not.toContain('billed_above_count');
  });

  it('trap: with no tokenizer named, or an answer whose text is not known, nothing is weighed against counts', () => {
    const v = judgeFollowsUsage(set([PROMPT, 48], cost(PROMPT, 48), false));
    expect(codes(v)).not.toContain('billed_above_count');
    // Without a price list, no count is priced either.
    const unpriced = { ...set([PROMPT, 48], cost(PROMPT, 48)), prices: undefined };
    expect(codes(judgeFollowsUsage(unpriced))).not.toContain('billed_above_count');
  });
});
