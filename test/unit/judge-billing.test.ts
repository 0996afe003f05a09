import { describe, expect, it } from 'vitest';
import { METERS, readMeter, type Meter, type Reading } from '../../src/billing/meter.js';
import type { MeteredCall, MeteredLabel, MeteredSet } from '../../src/billing/set.js';
import type { Exchange, StreamExchange } from '../../src/engine/exchange.js';
import type { ChatBody, ProbeContext } from '../../src/engine/probe.js';
import { CALIBRATION_MS, deductionRange, judgeFailedCall, judgeFollowsUsage, judgeStreamBilling, METERED_SET } from '../../suites/support/billing.js';
import { delta, raw, refused, reply, streamed, timedOut } from '../helpers/exchanges.js';

const NEW_API = { kind: 'new-api' as const, route: 'GET /api/usage/token', unit: 'quota units', step: 1 };
const USD = { kind: 'openrouter' as const, route: 'GET /v1/key', unit: 'USD', step: 0 };

/** A stream of `n` content chunks and a final usage chunk ([prompt, completion]), or none. */
function usageStream(n: number, usage: [number, number] | null): StreamExchange {
  const chunks: unknown[] = [delta({ role: 'assistant', content: '' })];
  for (let i = 1; i <= n; i++) chunks.push(delta({ content: `${i}, ` }));
  chunks.push(delta({}, 'length'));
  if (usage) chunks.push({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: usage[0], completion_tokens: usage[1], total_tokens: usage[0] + usage[1] } });
  return streamed(chunks);
}

const plainX = (usage: [number, number] | null = [21, 16]) => reply('1, 2, 3, 4, 5, 6, 7, 8', { finish: 'length', usage });
const shortX = (usage: [number, number] | null = [14, 1]) => reply('OK', { usage });
const failedX = () => refused(400, "Invalid value: 'chatprobe-invalid-role'.", { param: 'messages[0].role' });

const c = (label: MeteredLabel, x: Exchange, deducted: number, limit = 16): MeteredCall => ({ label, x, limit, deducted, lagMs: deducted ? 0 : undefined });

/** A whole set as an honest gateway bills it: 10 per prompt token, 30 per completion token. */
function fairSet(over: Partial<Record<MeteredLabel, MeteredCall>> = {}, meter: MeteredSet['meter'] = NEW_API): MeteredSet {
  const calls = [
    over.plain ?? c('plain', plainX(), 690),
    over.stream ?? c('stream', usageStream(16, [21, 16]), 690),
    over.short ?? c('short', shortX(), 170, 64),
    over.failed ?? c('failed', failedX(), 0),
  ];
  return { meter, calls, windowMs: 300 };
}

describe('the bounds a deduction may take', () => {
  it('lies between 1 (a fee), the prompt ratio and the completion ratio', () => {
    expect(deductionRange({ prompt: 20, completion: 16 }, { prompt: 20, completion: 16 })).toEqual([1, 1]);
    expect(deductionRange({ prompt: 20, completion: 16 }, { prompt: 10, completion: 4 })).toEqual([0.25, 1]);
    expect(deductionRange({ prompt: 10, completion: 10 }, { prompt: 30, completion: 10 })).toEqual([1, 3]);
    // No completion tokens on the reference call: only the fee and the prompt ratio bound it.
    expect(deductionRange({ prompt: 10, completion: 0 }, { prompt: 20, completion: 5 })).toEqual([1, 2]);
  });
});

describe('billing.failed_call', () => {
  it('passes when the refused request moved nothing and the plain call did', () => {
    const v = judgeFailedCall(fairSet());
    expect(v.verdict).toBe('pass');
    expect(v.observed).toContain('not billed; the plain call was billed 690 quota units');
  });

  it('fails when a refused request was billed, saying what and beside what', () => {
    const v = judgeFailedCall(fairSet({ failed: c('failed', failedX(), 480) }));
    expect(v.verdict).toBe('fail');
    expect(v.observed).toContain('a refused request was billed: failed: HTTP 400');
    expect(v.observed).toContain('billed 480 quota units; plain: HTTP 200, usage 21 prompt + 16 completion tokens, billed 690 quota units');
  });

  it('a billed 5xx is a billed failure too', () => {
    expect(judgeFailedCall(fairSet({ failed: c('failed', refused(502, 'bad gateway'), 3) })).verdict).toBe('fail');
  });

  it('is inconclusive when the request meant to fail was answered: no refusal was seen', () => {
    const v = judgeFailedCall(fairSet({ failed: c('failed', reply('OK'), 120) }));
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toContain('was answered (HTTP 200)');
  });

  it('trap: a free model (the plain call moved nothing) proves nothing about refused calls', () => {
    const set: MeteredSet = { meter: NEW_API, calls: [c('plain', plainX(), 0)], windowMs: CALIBRATION_MS, unbilled: 'the balance did not move within 12.7 s of the plain call' };
    for (const judge of [judgeFailedCall, judgeStreamBilling, judgeFollowsUsage]) {
      const v = judge(set);
      expect(v.verdict).toBe('inconclusive');
      expect(v.observed).toContain('did not move');
    }
  });

  it('trap: a balance that moves on its own makes every billing cell inconclusive', () => {
    const set: MeteredSet = { ...fairSet({ failed: c('failed', failedX(), 40) }), unmeasurable: 'the balance moved by 3 quota units in 12.7 s while chatprobe sent nothing' };
    for (const judge of [judgeFailedCall, judgeStreamBilling, judgeFollowsUsage]) expect(judge(set).verdict).toBe('inconclusive');
  });

  it('a plain call that timed out is an error with its cause, not a verdict on billing', () => {
    const set: MeteredSet = { meter: NEW_API, calls: [c('plain', timedOut(), 0)], windowMs: CALIBRATION_MS, unbilled: 'did not move' };
    const v = judgeFailedCall(set);
    expect(v.verdict).toBe('error');
    expect(v.cause).toBe('timeout');
  });
});

describe('billing.stream', () => {
  it('passes when the same usage is billed the same, within the meter step', () => {
    expect(judgeStreamBilling(fairSet()).verdict).toBe('pass');
    // new-api rounds each charge to whole quota units.
    expect(judgeStreamBilling(fairSet({ stream: c('stream', usageStream(16, [21, 16]), 691) })).verdict).toBe('pass');
  });

  it('fails a stream that was answered and billed nothing', () => {
    const v = judgeStreamBilling(fairSet({ stream: c('stream', usageStream(16, [21, 16]), 0) }));
    expect(v.verdict).toBe('fail');
    expect(v.observed).toMatch(/answered \(\d+ chunks\) and billed nothing/);
  });

  it('fails a stream billed twice', () => {
    const v = judgeStreamBilling(fairSet({ stream: c('stream', usageStream(16, [21, 16]), 1380) }));
    expect(v.verdict).toBe('fail');
    expect(v.findings?.[0]?.code).toBe('stream_billed_more');
  });

  it('weighs a stream that used fewer tokens by its usage: a smaller charge is no fault', () => {
    // 21 + 8 tokens: 210 + 240 = 450 at the same prices.
    expect(judgeStreamBilling(fairSet({ stream: c('stream', usageStream(8, [21, 8]), 450) })).verdict).toBe('pass');
    // … but less than its tokens allow under any price is.
    expect(judgeStreamBilling(fairSet({ stream: c('stream', usageStream(8, [21, 8]), 200) })).verdict).toBe('fail');
  });

  it('without the stream usage: more than the same request that used its whole limit fails, less is inconclusive', () => {
    expect(judgeStreamBilling(fairSet({ stream: c('stream', usageStream(16, null), 900) })).verdict).toBe('fail');
    const v = judgeStreamBilling(fairSet({ stream: c('stream', usageStream(10, null), 400) }));
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toContain('reported no usage');
  });

  it('uses a relative tolerance on meters in dollars', () => {
    const set = fairSet({ plain: c('plain', plainX(), 0.00138), stream: c('stream', usageStream(16, [21, 16]), 0.001381) }, USD);
    expect(judgeStreamBilling(set).verdict).toBe('pass');
  });
});

describe('billing.usage', () => {
  it('passes a charge that follows usage, and says the rate per token', () => {
    const v = judgeFollowsUsage(fairSet());
    expect(v.verdict).toBe('pass');
    expect(v.observed).toContain('billed 170 quota units for 14+1 tokens and 690 quota units for 21+16');
  });

  it('fails a charge made by the limit: the short call cost more than the long one', () => {
    // 14 prompt + 64 (its limit) completion at 10/30: 2060.
    const v = judgeFollowsUsage(fairSet({ short: c('short', shortX(), 2060, 64) }));
    expect(v.verdict).toBe('fail');
    expect(v.observed).toContain('billed as if by its limit of 64 rather than the 1 tokens it used?');
  });

  it('passes a fee per call, and says so', () => {
    const v = judgeFollowsUsage(fairSet({ plain: c('plain', plainX(), 500), stream: c('stream', usageStream(16, [21, 16]), 500), short: c('short', shortX(), 500, 64) }));
    expect(v.verdict).toBe('pass');
    expect(v.findings?.map((f) => f.code)).toContain('per_call');
  });

  it('is inconclusive when the short call used most of its limit: billing by the limit looks the same', () => {
    const v = judgeFollowsUsage(fairSet({ short: c('short', shortX([14, 60]), 1940, 64) }));
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toContain('used 60 of its 64 tokens');
  });

  it('fails a charge below what the usage requires under any price', () => {
    // More prompt and more completion tokens than the plain call, billed less.
    expect(judgeFollowsUsage(fairSet({ short: c('short', shortX([30, 20]), 300, 64) })).verdict).toBe('fail');
  });

  it('is inconclusive without usage', () => {
    expect(judgeFollowsUsage(fairSet({ plain: c('plain', plainX(null), 690) })).verdict).toBe('inconclusive');
  });

  it('warns of usage past the limit the deductions follow: a relay inflating every count 3× is billed past the limit, consistently', () => {
    // 21 prompt + 48 completion (3 × 16) at 10/30: 1650; the short call's 3 (3 × 1): 230.
    const v = judgeFollowsUsage(
      fairSet({
        plain: c('plain', plainX([21, 48]), 1650),
        stream: c('stream', usageStream(16, [21, 48]), 1650),
        short: c('short', shortX([14, 3]), 230, 64),
      }),
    );
    expect(v.verdict).toBe('warn');
    expect(v.findings?.map((f) => f.code)).toEqual(['usage_over_limit', 'deductions']);
    expect(v.observed).toContain('usage reports more completion tokens than the limit allows (plain: 48 under a limit of 16; stream: 48 under a limit of 16)');
    // Honest usage at the limit is not past it.
    expect(judgeFollowsUsage(fairSet()).findings?.map((f) => f.code)).not.toContain('usage_over_limit');
  });
});

describe('the balance routes', () => {
  const kind = (k: string) => METERS.find((m) => m.kind === k)!;
  const answer = (body: unknown, status = 200) => raw(status, JSON.stringify(body));
  it('reads each gateway\'s shape, and nothing else', () => {
    expect(readMeter(kind('new-api'), answer({ code: true, message: 'ok', data: { object: 'token_usage', total_used: 12345, total_available: 1, unlimited_quota: false } }))).toBe(12345);
    expect(readMeter(kind('openrouter'), answer({ data: { label: 'sk-or-v1-116...0ce', limit: 5, usage: 0.1015644762 } }))).toBe(0.1015644762);
    expect(readMeter(kind('litellm'), answer({ key: 'hashed', info: { spend: 0.25, max_budget: null } }))).toBe(0.25);
    expect(readMeter(kind('one-api'), answer({ object: 'list', total_usage: 123.4 }))).toBe(123.4);
    // Another gateway's shape, a login page, a refusal: not this meter.
    expect(readMeter(kind('new-api'), answer({ object: 'list', total_usage: 1 }))).toBe('no data.total_used number');
    expect(readMeter(kind('openrouter'), raw(200, '<html></html>', 'text/html'))).toBe('not JSON');
    expect(readMeter(kind('litellm'), answer({ error: 'not found' }, 404))).toBe('HTTP 404');
    expect(readMeter(kind('one-api'), answer({ object: 'list', total_usage: '12' }))).toBe('no total_usage number');
  });
});

/**
 * The set as sent: a scripted meter (each read returns the next amount; waits return at once, so no test
 * sleeps) and a context that answers each call as given.
 */
function scripted(amounts: number[]): { meter: Meter; reads: () => number; waited: number[] } {
  let i = 0;
  const waited: number[] = [];
  const meter: Meter = {
    kind: 'new-api',
    route: 'GET /api/usage/token',
    unit: 'quota units',
    step: 1,
    read: async (): Promise<Reading> => ({ used: amounts[Math.min(i++, amounts.length - 1)]!, callId: `r${i}` }),
    wait: async (ms) => {
      waited.push(ms);
    },
  };
  return { meter, reads: () => i, waited };
}

function context(meter: Meter, sent: ChatBody[]): ProbeContext {
  const answer = (body: ChatBody): Exchange => {
    sent.push(body);
    const role = (body.messages[0] as { role: string }).role;
    if (role !== 'user') return failedX();
    return body.max_tokens === 64 ? shortX() : plainX();
  };
  return {
    model: 'm',
    options: { strict: false, requireAuth: false, samples: 4, hasKey: true },
    meter,
    chat: async (body) => answer(body),
    stream: async (body) => {
      sent.push(body);
      return usageStream(16, [21, 16]);
    },
    send: async () => {
      throw new Error('not used');
    },
    control: () => plainX(),
    runaway: () => undefined,
    listing: () => raw(200, '{}'),
    sequence: (fn) => fn({}),
    loopLagMs: () => 0,
    shared: async () => {
      throw new Error('not used');
    },
  };
}

describe('the billing set, against a scripted meter', () => {
  it('reads before and after each call and gives each call its deduction', async () => {
    // quiet: 100, 100 · plain: 790, 790 · stream: 1480, 1480 · short: 1650, 1650 · failed: 1650 ×3 · final: 1650
    const m = scripted([100, 100, 790, 790, 1480, 1480, 1650, 1650, 1650]);
    const sent: ChatBody[] = [];
    const set = await METERED_SET.make(context(m.meter, sent));
    expect(set.unmeasurable).toBeUndefined();
    expect(set.calls.map((x) => [x.label, x.deducted])).toEqual([
      ['plain', 690],
      ['stream', 690],
      ['short', 170],
      ['failed', 0],
    ]);
    // Every request carries its limit; the stream asks for its usage.
    expect(sent.map((b) => b.max_tokens)).toEqual([16, 16, 64, 16]);
    expect(sent[1]!.stream_options).toEqual({ include_usage: true });
    // A quick meter: after the calibrating call, a zero is believed after 300 ms of watching.
    expect(set.windowMs).toBe(300);
  });

  it('waits for a meter that shows charges late, and watches later calls for four times that long', async () => {
    // The plain call's charge shows at the third read after it (0.3 s).
    const m = scripted([100, 100, 100, 100, 790, 790, 1480, 1480, 1650, 1650, 1650]);
    const set = await METERED_SET.make(context(m.meter, []));
    expect(set.calls[0]).toMatchObject({ label: 'plain', deducted: 690, lagMs: 300 });
    expect(set.windowMs).toBe(1200);
    expect(set.calls.map((x) => x.deducted)).toEqual([690, 690, 170, 0]);
  });

  it('trap: a balance that moves with nothing sent is never given to a call', async () => {
    const m = scripted(Array.from({ length: 40 }, (_, k) => 100 + k));
    const sent: ChatBody[] = [];
    const set = await METERED_SET.make(context(m.meter, sent));
    expect(set.unmeasurable).toContain('while chatprobe sent nothing');
    expect(sent).toEqual([]);
  });

  it('trap: a charge that arrives after its call seemed settled spoils the attribution', async () => {
    // The failed call's window ends at 1650; the final control read sees 2130 (the refused call, billed late).
    const m = scripted([100, 100, 790, 790, 1480, 1480, 1650, 1650, 1650, 1650, 1650, 2130]);
    const set = await METERED_SET.make(context(m.meter, []));
    expect(set.unmeasurable).toContain('after the last call had settled');
    expect(judgeFailedCall(set).verdict).toBe('inconclusive');
  });

  it('a free model: the plain call moved nothing, and nothing more is sent', async () => {
    const m = scripted([100]);
    const sent: ChatBody[] = [];
    const set = await METERED_SET.make(context(m.meter, sent));
    expect(set.unbilled).toContain('did not move within 12.7 s');
    expect(sent).toHaveLength(1);
    expect(m.waited.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(CALIBRATION_MS + 300);
  });

  it('a refund (the amount used going down) is not read as a negative charge', async () => {
    const m = scripted([100, 100, 790, 790, 1480, 1480, 1000, 1000]);
    const set = await METERED_SET.make(context(m.meter, []));
    expect(set.unmeasurable).toContain('went down by 480');
  });
});
