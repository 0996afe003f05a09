import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { listedCost, priceCall, pricesJsonSchema, readPriceList, NEW_API_QUOTA_PER_USD } from '../../src/billing/prices.js';
import type { MeteredCall, MeteredSet } from '../../src/billing/set.js';
import type { PriceList } from '../../src/engine/prices.js';
import { judgeFollowsUsage, judgeStreamBilling } from '../../suites/support/billing.js';
import { billingView } from '../../src/billing/view.js';
import { delta, refused, reply, streamed } from '../helpers/exchanges.js';
import { ROOT } from '../helpers/cli.js';

const QUOTA = { unit: 'quota units', step: 1 };

describe('a price list, in each form it is read', () => {
  it("chatprobe's own: US dollars per million tokens, and a fee per call", () => {
    const list = readPriceList({ models: { 'gpt-4o': { input: 2.5, output: 10 }, 'dall-e-3': { perCall: 0.04 } } }, 'prices.json');
    expect(list).toMatchObject({ from: 'prices.json', form: 'chatprobe', quotaPerUsd: 500_000, groupRatio: 1 });
    expect(list.models['gpt-4o']).toEqual({ input: 2.5e-6, output: 1e-5, perCall: 0 });
    // 1,000 prompt + 100 completion tokens of gpt-4o: $0.0035, 1,750 quota units, 0.35 cents.
    const gpt = list.models['gpt-4o']!;
    expect(listedCost(list, gpt, { prompt: 1000, completion: 100 }, 'USD')).toBeCloseTo(0.0035, 12);
    expect(listedCost(list, gpt, { prompt: 1000, completion: 100 }, 'quota units')).toBeCloseTo(1750, 6);
    expect(listedCost(list, gpt, { prompt: 1000, completion: 100 }, 'US cents')).toBeCloseTo(0.35, 9);
    expect(listedCost(list, list.models['dall-e-3']!, { prompt: 1000, completion: 100 }, 'USD')).toBeCloseTo(0.04, 12);
    expect(listedCost(list, gpt, { prompt: 1, completion: 1 }, 'credits')).toBeUndefined();
  });

  it("new-api's ratio settings: (prompt + completion × completion ratio) × model ratio × group ratio quota units", () => {
    const list = readPriceList({ ModelRatio: { 'gpt-4o': 1.25, 'gpt-4o-mini': 0.075 }, CompletionRatio: { 'gpt-4o': 4 }, GroupRatio: { default: 1, vip: 0.8 }, group: 'vip' }, 'ratios.json');
    expect(list.form).toBe('new-api ratios');
    expect(list.groupRatio).toBe(0.8);
    // gpt-4o at 1.25 is $2.50 per million prompt tokens, $10 per million completion tokens.
    expect(list.models['gpt-4o']!.input * 1e6).toBeCloseTo(2.5, 9);
    expect(list.models['gpt-4o']!.output * 1e6).toBeCloseTo(10, 9);
    // A model the completion ratios do not name: 1, and said to be a guess.
    expect(list.models['gpt-4o-mini']!.output).toBeCloseTo(list.models['gpt-4o-mini']!.input, 15);
    expect(list.models['gpt-4o-mini']!.outputGuessed).toBe(true);
    expect(list.models['gpt-4o']!.outputGuessed).toBeUndefined();
    // (1000 + 100 × 4) × 1.25 × 0.8 = 1400 quota units.
    expect(listedCost(list, list.models['gpt-4o']!, { prompt: 1000, completion: 100 }, 'quota units')).toBeCloseTo(1400, 6);
  });

  it('new-api keeps each map as JSON text, and bills a model with a fixed price per call whatever its ratio', () => {
    const list = readPriceList({ ModelRatio: '{"gpt-4o": 1.25, "mj": 1}', ModelPrice: '{"mj": 0.1}', GroupRatio: '{"default": 1}', ChatLinkEnabled: true }, 'options.json');
    expect(list.models.mj).toEqual({ input: 0, output: 0, perCall: 0.1 });
    expect(list.groupRatio).toBe(1);
    expect(() => readPriceList({ ModelRatio: '{gpt-4o: 1}' }, 'x')).toThrow(/ModelRatio: a string that is not JSON/);
    expect(() => readPriceList({ ModelRatio: { a: 1 }, GroupRatio: { default: 1, vip: 2 }, group: 'svip' }, 'x')).toThrow(/GroupRatio names no group "svip" \(it has default, vip\)/);
  });

  it("new-api's GET /api/pricing answer, as saved", () => {
    const list = readPriceList(
      {
        success: true,
        data: [
          { model_name: 'gpt-4o', quota_type: 0, model_ratio: 1.25, model_price: 0, completion_ratio: 4, enable_groups: ['default'] },
          { model_name: 'dall-e-3', quota_type: 1, model_ratio: 0, model_price: 0.04, completion_ratio: 1, enable_groups: ['default'] },
        ],
        group_ratio: { default: 1 },
      },
      'pricing.json',
    );
    expect(list.form).toBe('new-api pricing');
    expect(list.models['gpt-4o']!.output * 1e6).toBeCloseTo(10, 9);
    expect(list.models['dall-e-3']).toEqual({ input: 0, output: 0, perCall: 0.04 });
    expect(list.quotaPerUsd).toBe(NEW_API_QUOTA_PER_USD);
  });

  it('says what is wrong, in our words', () => {
    expect(() => readPriceList([], 'x')).toThrow('not a JSON object');
    expect(() => readPriceList({ prices: {} }, 'x')).toThrow(/not a price list: expected "models"/);
    expect(() => readPriceList({ models: { a: { input: -1 } } }, 'x')).toThrow(/^models\.a\.input: /);
    expect(() => readPriceList({ models: { a: { inputs: 1 } } }, 'x')).toThrow(/models\.a/);
  });

  it("reads the README's examples, each form", () => {
    const readme = readFileSync(`${ROOT}README.md`, 'utf8');
    const section = readme.slice(readme.indexOf('#### Price list'), readme.indexOf('#### Billing findings'));
    const blocks = [...section.matchAll(/```jsonc\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!.replace(/^\s*\/\/.*$/gm, '').replace(/\s+\/\/ .*$/gm, '')) as unknown);
    expect(blocks.map((b) => readPriceList(b, 'README').form)).toEqual(['chatprobe', 'new-api ratios']);
    expect(readPriceList(blocks[1], 'README').groupRatio).toBe(0.8);
  });

  it('ships its JSON Schema, generated from the zod models (run npm run schema after changing them)', () => {
    expect(JSON.parse(readFileSync(`${ROOT}schema/prices.schema.json`, 'utf8'))).toEqual(pricesJsonSchema());
  });
});

/**
 * The reference server's fair prices, 10 and 30 quota units a token, as a list that also names a model at
 * twice them and one at half (uniform multiples: a group ratio looks the same), and two priced otherwise:
 * `other` at 10 and 90, `thrifty` at 5 and 30.
 */
const LIST: PriceList = {
  from: 'prices.json',
  form: 'new-api ratios',
  quotaPerUsd: 500_000,
  groupRatio: 1,
  models: {
    m: { input: 10 / 500_000, output: 30 / 500_000, perCall: 0 },
    dear: { input: 20 / 500_000, output: 60 / 500_000, perCall: 0 },
    cheap: { input: 5 / 500_000, output: 15 / 500_000, perCall: 0 },
    other: { input: 10 / 500_000, output: 90 / 500_000, perCall: 0 },
    thrifty: { input: 5 / 500_000, output: 30 / 500_000, perCall: 0 },
  },
};

const plainX = () => reply('1, 2, 3', { finish: 'length', usage: [21, 16] });
const shortX = () => reply('OK', { usage: [14, 1] });
const streamX = () => streamed([delta({ role: 'assistant', content: '1, 2' }), delta({}, 'length'), { id: 's', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 21, completion_tokens: 16, total_tokens: 37 } }]);
const call = (label: MeteredCall['label'], x: MeteredCall['x'], deducted: number, limit = 16): MeteredCall => ({ label, x, limit, deducted, lagMs: 0, sentAt: 0, untilAt: 300 });

function set(plain: number, stream: number, short: number, model = 'm', prices: PriceList | null = LIST): MeteredSet {
  const s: MeteredSet = {
    meter: { kind: 'new-api', route: 'GET /api/usage/token', ...QUOTA },
    calls: [call('plain', plainX(), plain), call('stream', streamX(), stream), call('short', shortX(), short, 64), call('failed', refused(400, 'bad role'), 0)],
    windowMs: 300,
    quiet: { ms: 1500 },
    model,
  };
  if (prices) s.prices = prices;
  return s;
}

describe('each billed call beside the price list', () => {
  it('a deduction within the step and 2% of the listed price is the price', () => {
    expect(priceCall(LIST, 'm', call('plain', plainX(), 690), QUOTA)).toEqual({ expected: 690, matches: true });
    expect(priceCall(LIST, 'm', call('plain', plainX(), 700), QUOTA)).toEqual({ expected: 690, matches: true });
    expect(priceCall(LIST, 'm', call('plain', plainX(), 760), QUOTA)).toEqual({ expected: 690, matches: false });
  });

  it('a deduction that is what another model of the list costs names it; nothing billed names no model', () => {
    expect(priceCall(LIST, 'm', call('plain', plainX(), 1380), QUOTA)).toEqual({ expected: 690, matches: false, pricedAs: ['dear'], near: 1 });
    expect(priceCall(LIST, 'm', call('plain', plainX(), 345), QUOTA)).toEqual({ expected: 690, matches: false, pricedAs: ['cheap'], near: 1 });
    const withFree: PriceList = { ...LIST, models: { ...LIST.models, free: { input: 0, output: 0, perCall: 0 } } };
    expect(priceCall(withFree, 'm', call('stream', streamX(), 0), QUOTA)).toEqual({ expected: 690, matches: false });
  });

  it('nothing to price: the refused call, a call without usage; a model the list does not name, or a balance in another unit, is said', () => {
    expect(priceCall(LIST, 'm', call('failed', refused(400, 'x'), 0), QUOTA)).toBeUndefined();
    expect(priceCall(LIST, 'm', call('plain', reply('x', { usage: null }), 690), QUOTA)).toBeUndefined();
    expect(priceCall(LIST, 'gpt-5', call('plain', plainX(), 690), QUOTA)).toEqual({ missing: 'the price list (prices.json) names no price for gpt-5' });
    expect(priceCall(LIST, 'm', call('plain', plainX(), 690), { unit: 'credits', step: 0 })).toEqual({ missing: 'a balance in credits cannot be set beside prices in US dollars' });
  });
});

describe('billing.usage and billing.stream with a price list', () => {
  it('billed as listed: a note, the verdicts as without a list', () => {
    const usage = judgeFollowsUsage(set(690, 690, 170));
    expect(usage.verdict).toBe('pass');
    expect(usage.findings?.find((f) => f.code === 'listed_price')?.message).toBe('billed as the price list (prices.json) says for m (plain 690, short 170 quota units)');
    expect(judgeStreamBilling(set(690, 690, 170)).findings?.map((f) => f.code)).toEqual(['deductions', 'listed_price']);
  });

  it("billed at another model's price on every call: which one, failing when it is dearer, warning when cheaper", () => {
    // 21 + 16 and 14 + 1 tokens at other's 10 and 90: 1650 and 230; consistent with usage, so only the list can tell.
    const dear = judgeFollowsUsage(set(1650, 1650, 230));
    expect(dear.verdict).toBe('fail');
    expect(dear.findings?.filter((f) => f.code === 'priced_as_other').map((f) => f.message)).toEqual([
      'the plain call was billed 1650 quota units, and the price list (prices.json) says 690 for m at 21 prompt + 16 completion tokens: what other costs there, as every billed call of the set was (billed as another model, dearer)',
      'the short call was billed 230 quota units, and the price list (prices.json) says 170 for m at 14 prompt + 1 completion tokens: what other costs there, as every billed call of the set was (billed as another model, dearer)',
    ]);
    expect(judgeStreamBilling(set(1650, 1650, 230)).verdict).toBe('fail');
    expect(billingView(set(1650, 1650, 230))!.calls.map((c) => c.pricedAs)).toEqual([['other'], ['other'], ['other'], undefined]);
    const cheap = judgeFollowsUsage(set(585, 585, 100));
    expect(cheap.verdict).toBe('warn');
    expect(cheap.findings?.find((f) => f.code === 'priced_as_other')?.message).toContain('what thrifty costs there');
  });

  it('trap: every call at one multiple of the own price (a group ratio, a markup) names no model, though one of the list costs exactly that', () => {
    for (const [plain, short, code] of [
      [1380, 340, 'billed_above_price'],
      [345, 85, 'billed_below_price'],
    ] as const) {
      const v = judgeFollowsUsage(set(plain, plain, short));
      expect(v.findings?.map((f) => f.code)).toContain(code);
      expect(v.findings?.map((f) => f.code)).not.toContain('priced_as_other');
      expect(billingView(set(plain, plain, short))!.calls.every((c) => c.pricedAs === undefined)).toBe(true);
    }
  });

  it("trap: on a long list, a deduction two models' prices explain, or one near another's, names none", () => {
    const twin: PriceList = { ...LIST, models: { ...LIST.models, twin: LIST.models.other! } };
    const both = judgeFollowsUsage(set(1650, 1650, 230, 'm', twin));
    expect(both.findings?.map((f) => f.code)).toEqual(expect.arrayContaining(['billed_above_price']));
    expect(both.findings?.map((f) => f.code)).not.toContain('priced_as_other');
    // 10 and 91: 1666 and 231, within 2% of both deductions though not exactly them: rounding could make either fit.
    const close: PriceList = { ...LIST, models: { ...LIST.models, close: { input: 10 / 500_000, output: 91 / 500_000, perCall: 0 } } };
    expect(judgeFollowsUsage(set(1650, 1650, 230, 'm', close)).findings?.map((f) => f.code)).not.toContain('priced_as_other');
  });

  it('trap: a ratio list that names no completion ratio for the model priced its output at a guess: billed above it only warns', () => {
    const guessed: PriceList = { ...LIST, models: { ...LIST.models, m: { ...LIST.models.m!, outputGuessed: true } } };
    const v = judgeFollowsUsage(set(900, 900, 222, 'm', guessed));
    expect(v.findings?.map((f) => [f.code, f.severity])).toContainEqual(['billed_above_price', 'warn']);
    expect(v.findings?.find((f) => f.code === 'billed_above_price')?.message).toContain('gives no completion ratio for m');
  });

  it('billed off the list, as no model of it: above fails, below warns', () => {
    expect(judgeFollowsUsage(set(900, 900, 222)).findings?.map((f) => [f.code, f.severity])).toContainEqual(['billed_above_price', 'fail']);
    const below = judgeFollowsUsage(set(600, 600, 148));
    expect(below.verdict).toBe('warn');
    expect(below.findings?.map((f) => f.code)).toContain('billed_below_price');
  });

  it('a stream priced apart from the plain call: billing.stream prices the stream, billing.usage the plain and short calls; a stream billed twice is not billed as another model, though dear costs 1380', () => {
    const v = judgeStreamBilling(set(690, 1380, 170));
    expect(v.verdict).toBe('fail');
    expect(v.findings?.map((f) => f.code)).toEqual(['stream_billed_more', 'billed_above_price']);
    expect(judgeFollowsUsage(set(690, 1380, 170)).verdict).toBe('pass');
  });

  it('a model the list does not name: a note, and the verdicts as without a list; no list: nothing said of prices', () => {
    const v = judgeFollowsUsage(set(690, 690, 170, 'gpt-5'));
    expect(v.verdict).toBe('pass');
    expect(v.findings?.find((f) => f.code === 'unpriced')?.message).toBe('the price list (prices.json) names no price for gpt-5: no deduction was set beside a price');
    expect(judgeFollowsUsage(set(690, 690, 170, 'm', null)).findings?.map((f) => f.code)).toEqual(['deductions']);
  });
});
