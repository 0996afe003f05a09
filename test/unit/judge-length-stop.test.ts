import { describe, expect, it } from 'vitest';
import { inflatedUsage, judgeLength, usageRatio } from '../../suites/support/length.js';
import { judgeStop, pickStop } from '../../suites/support/stop.js';
import { errorIn200, raw, refused, reply } from '../helpers/exchanges.js';

const ok = reply('OK');
const COUNT = '1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20';
const uncapped = reply(COUNT, { usage: [20, 39] });

describe('judgeLength (rules 3 and 4)', () => {
  const judge = (capped: ReturnType<typeof reply>, full = uncapped) => judgeLength('max_tokens', 5, capped, full, ok);

  it('honours a cut within the limit, by the server\'s count, where the uncapped answer runs longer', () => {
    const v = judge(reply('1, 2, 3', { finish: 'length', usage: [20, 5] }));
    expect(v.verdict).toBe('honoured');
    expect(v.findings).toEqual([]);
  });

  it('trap: a gateway cap in place of the client\'s limit ("length" at 16 tokens for a limit of 5) is ignored, not honoured', () => {
    const capped = reply('1, 2, 3, 4, 5, 6, 7, 8', { finish: 'length', usage: [20, 16] });
    const v = judge(capped, reply('1, 2, 3, 4, 5, 6, 7, 8', { finish: 'length', usage: [20, 16] }));
    expect(v.verdict).toBe('ignored');
    expect(v.findings?.[0]?.code).toBe('other_limit');
  });

  it('calls an answer past the limit ignored', () => {
    expect(judge(reply(COUNT, { usage: [20, 39] })).verdict).toBe('ignored');
  });

  it('without usage, judges from the text: far past the limit is ignored, a short cut honoured with a finding', () => {
    expect(judge(reply(COUNT, { usage: null }), reply(COUNT, { usage: null })).verdict).toBe('ignored');
    const v = judge(reply('1, 2, 3', { finish: 'length', usage: null }), reply(COUNT, { usage: null }));
    expect(v.verdict).toBe('honoured');
    expect(v.findings?.map((f) => f.code)).toEqual(['no_usage']);
  });

  it('is inconclusive when the answer is no longer than the limit even without it (no positive control)', () => {
    expect(judge(reply('OK', { usage: [20, 1] }), reply('OK', { usage: [20, 1] })).verdict).toBe('inconclusive');
  });

  it('honours a cut reported with another finish_reason, with a finding', () => {
    const v = judge(reply('1, 2, 3', { finish: 'stop', usage: [20, 5] }));
    expect(v.verdict).toBe('honoured');
    expect(v.findings?.map((f) => f.code)).toEqual(['finish_reason']);
  });

  it('reads the count when the text went to a reasoning field', () => {
    const v = judge(reply('', { reasoning: '1, 2', finish: 'length', usage: [20, 5] }), reply('', { reasoning: COUNT, usage: [20, 39] }));
    expect(v.verdict).toBe('honoured');
  });

  it('trap: usage that reports the limit asked for beside the whole uncut answer is set aside; the text decides (ignored)', () => {
    // A gateway that dropped the limit but bills by it: "5 completion tokens" for the full count to 20.
    const v = judge(reply(COUNT, { finish: 'stop', usage: [20, 5] }));
    expect(v.verdict).toBe('ignored');
    expect(v.findings?.map((f) => f.code)).toEqual(['usage_count']);
    expect(v.findings?.[0]?.message).toContain('5 completion tokens reported for an answer of 39 text pieces');
  });

  it('trap: zeros for usage on both answers are no count: the text decides, and the uncapped answer still runs longer', () => {
    const v = judge(reply(COUNT, { usage: [0, 0] }), reply(COUNT, { usage: [0, 0] }));
    expect(v.verdict).toBe('ignored');
    expect(v.observed).not.toContain('no longer than the limit');
    expect(v.findings?.map((f) => f.code)).toEqual(['usage_count']);
    // A real cut beside zeros is honoured from the text, with the finding, not "no usage".
    const cut = judge(reply('1, 2, 3', { finish: 'length', usage: [0, 0] }), reply(COUNT, { usage: [0, 0] }));
    expect(cut.verdict).toBe('honoured');
    expect(cut.findings?.map((f) => f.code)).toEqual(['usage_count']);
  });

  it('trap: a count a little past the limit beside a text cut with "length" at the limit is the limit at work, counted otherwise (honoured, usage_count)', () => {
    // A gateway recounting with another tokenizer: the model stopped at 5 of its tokens ("1, 2, 3"), the gateway says 7.
    const v = judge(reply('1, 2, 3', { finish: 'length', usage: [20, 7] }));
    expect(v.verdict).toBe('honoured');
    expect(v.findings?.map((f) => f.code)).toEqual(['usage_count']);
    // Not when the text runs past the limit, nor without "length", nor when the uncapped answer is as short.
    expect(judge(reply('1, 2, 3, 4, 5', { finish: 'length', usage: [20, 9] })).verdict).toBe('ignored');
    expect(judge(reply('1, 2, 3', { finish: 'stop', usage: [20, 7] })).verdict).toBe('ignored');
    expect(judge(reply('1, 2, 3', { finish: 'length', usage: [20, 7] }), reply('1, 2, 3, 4, 5, 6', { finish: 'length', usage: [20, 11] })).verdict).toBe('ignored');
    // Not a count far past the limit, nor one beside reasoning that ran on: the server spent far more than asked.
    expect(judge(reply('1, 2', { finish: 'length', usage: [20, 4000] })).verdict).toBe('ignored');
    expect(judge(reply('', { reasoning: 'Let me count. One, two, three…', finish: 'length', usage: [20, 2048] })).verdict).toBe('ignored');
    expect(judge(reply('1, 2', { reasoning: 'count', finish: 'length', usage: [20, 8] })).verdict).toBe('ignored');
  });

  it('rejects on a refusal, and is inconclusive on an error in a 200 or a missing uncapped answer', () => {
    expect(judge(refused(400, "Unsupported parameter: 'max_tokens'")).verdict).toBe('rejected');
    expect(judge(errorIn200()).verdict).toBe('inconclusive');
    expect(judge(reply('1, 2', { finish: 'length', usage: [20, 5] }), errorIn200()).verdict).toBe('inconclusive');
  });
});

/** A completion whose usage breaks out reasoning_tokens, as OpenAI's o-series (hidden reasoning) reports it. */
function reasoned(content: string, o: { finish?: string; completion: number; reasoningTokens: number; reasoning?: string }) {
  const message: Record<string, unknown> = { role: 'assistant', content };
  if (o.reasoning) message.reasoning_content = o.reasoning;
  const usage = { prompt_tokens: 20, completion_tokens: o.completion, total_tokens: 20 + o.completion, completion_tokens_details: { reasoning_tokens: o.reasoningTokens } };
  return raw(200, JSON.stringify({ id: 'chatcmpl-r', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message, finish_reason: o.finish ?? 'stop' }], usage }));
}

describe('judgeLength: usage read for what it is', () => {
  const judge = (capped: ReturnType<typeof reply>, full = uncapped) => judgeLength('max_tokens', 5, capped, full, ok);
  const codes = (v: ReturnType<typeof judge>) => v.findings?.map((f) => f.code) ?? [];
  // COUNT is 39 text pieces; "1, 2, 3" is 5. A gateway counting 3× reports 117 and 15 for them.
  const inflatedFull = reply(COUNT, { usage: [20, 117] });

  it('honest usage: no finding, whatever the tokenizer costs per piece (Llama 2 splits digits: about 1.8)', () => {
    expect(judge(reply('1, 2, 3', { finish: 'length', usage: [20, 5] }))).toMatchObject({ verdict: 'honoured', findings: [] });
    const v = judge(reply('1, 2', { finish: 'length', usage: [20, 5] }), reply(COUNT, { usage: [20, 70] }));
    expect(v).toMatchObject({ verdict: 'honoured', findings: [] });
  });

  it('usage inflated 3× in both answers: the limit is honoured from the cut, and the ratio is a billing finding', () => {
    const v = judge(reply('1, 2, 3', { finish: 'length', usage: [20, 15] }), inflatedFull);
    expect(v.verdict).toBe('honoured');
    expect(codes(v)).toEqual(['usage_inflated']);
    expect(v.findings?.[0]?.severity).toBe('warn');
    expect(v.findings?.[0]?.message).toContain("usage reports 3.0× the completion tokens its text can hold (15 for the 5 text pieces of the capped answer; 117 for the uncapped answer's 39): a billing fault");
    expect(v.observed).toContain('cut with "length" at 5 pieces, of an uncapped answer of 39');
    expect(inflatedUsage(reply('1, 2, 3', { finish: 'length', usage: [20, 15] }), inflatedFull)?.ratio).toBe(3);
  });

  it('usage inflated 2× stays the recount it may be (a tokenizer can cost 2 a piece): honoured with usage_count, not called inflated', () => {
    const v = judge(reply('1, 2, 3', { finish: 'length', usage: [20, 10] }), reply(COUNT, { usage: [20, 78] }));
    expect(v.verdict).toBe('honoured');
    expect(codes(v)).toEqual(['usage_count']);
  });

  it('trap: inflated in the capped answer only is no endpoint habit: the server\'s count past the limit stands (ignored), no billing finding', () => {
    const v = judge(reply('1, 2, 3', { finish: 'length', usage: [20, 15] }));
    expect(v.verdict).toBe('ignored');
    expect(codes(v)).not.toContain('usage_inflated');
    // Inflated in the uncapped answer only: the capped count is within the limit, and honest beside its text.
    const w = judge(reply('1, 2, 3', { finish: 'length', usage: [20, 5] }), inflatedFull);
    expect(w).toMatchObject({ verdict: 'honoured', findings: [] });
  });

  it('trap: usage deflated below the text (fake) is set aside, not read as a ratio: the text decides', () => {
    const cut = judge(reply('1, 2, 3', { finish: 'length', usage: [20, 1] }), reply(COUNT, { usage: [20, 10] }));
    expect(cut.verdict).toBe('honoured');
    expect(codes(cut)).toEqual(['usage_count']);
    const uncut = judge(reply(COUNT, { usage: [20, 10] }), reply(COUNT, { usage: [20, 10] }));
    expect(uncut.verdict).toBe('ignored');
    expect(codes(uncut)).toEqual(['usage_count']);
  });

  it('trap: a limit truly ignored behind inflated usage stays ignored (the text is not cut), with the billing finding', () => {
    const v = judge(reply(COUNT, { usage: [20, 117] }), inflatedFull);
    expect(v.verdict).toBe('ignored');
    expect(codes(v)).toEqual(['usage_inflated']);
  });

  it('trap: text that is no counting (gibberish mixing scripts, prose) costs many tokens a piece honestly: never called inflated', () => {
    const gibberish = 'oxidation wintersですねhaving不好意思เชื่อ BlueprintReadOnly montageอาจาร sortable伫อาจาร麼双向isors skirtsisors burseヌ홑곡位列 montage oxidation visualisors';
    expect(inflatedUsage(reply('oxidation wintersですね', { finish: 'length', usage: [20, 5] }), reply(gibberish, { usage: [20, 48] }))).toBeUndefined();
    expect(codes(judge(reply('oxidation wintersですね', { finish: 'length', usage: [20, 5] }), reply(gibberish, { usage: [20, 48] })))).not.toContain('usage_inflated');
  });

  it('trap: a model with no usage has no ratio: judged from the text as before, no billing finding', () => {
    const v = judge(reply('1, 2, 3', { finish: 'length', usage: null }), reply(COUNT, { usage: null }));
    expect(v.verdict).toBe('honoured');
    expect(codes(v)).toEqual(['no_usage']);
    expect(inflatedUsage(reply('1, 2, 3', { usage: null }), reply(COUNT, { usage: null }))).toBeUndefined();
  });

  it('trap: completion tokens that include reasoning are not inflation (reasoning_tokens taken off, or the reasoning text counted)', () => {
    // o-series: 80 hidden reasoning tokens in the 119 of a 39-piece answer: 3.05 a piece naively, 1.0 in truth.
    const hidden = reasoned(COUNT, { completion: 119, reasoningTokens: 80 });
    expect(usageRatio(hidden)).toEqual({ reported: 39, pieces: 39, ratio: 1 });
    const v = judge(reasoned('1, 2, 3', { finish: 'length', completion: 5, reasoningTokens: 0 }), hidden);
    expect(v).toMatchObject({ verdict: 'honoured', findings: [] });
    // llama.cpp or DeepSeek: reasoning_content beside a plain count that covers it.
    const thought = 'Let me count from one to twenty, separated by commas, and nothing else, as asked'.repeat(4);
    const shown = reply(COUNT, { reasoning: thought, usage: [20, 39 + 4 * 16] });
    expect(usageRatio(shown)?.ratio).toBeCloseTo(1, 1);
    expect(inflatedUsage(reply('1, 2, 3', { finish: 'length', usage: [20, 5] }), shown)).toBeUndefined();
    // A reasoning model counted past the limit as its reasoning runs on is still ignored, not excused.
    expect(judge(reasoned('1, 2', { finish: 'length', completion: 40, reasoningTokens: 37 }), hidden).verdict).toBe('ignored');
  });

  it('trap: reasoning beside inflated usage: the count cannot say whether reasoning ran past the limit (inconclusive)', () => {
    const v = judge(reply('1, 2', { reasoning: 'count up', finish: 'length', usage: [20, 15] }), inflatedFull);
    expect(v.verdict).toBe('inconclusive');
    expect(codes(v)).toEqual(['usage_inflated']);
  });

  it('trap: a cut text with "stop" instead of "length" beside inflated usage: nothing says the limit made the cut (inconclusive)', () => {
    const v = judge(reply('1, 2, 3', { finish: 'stop', usage: [20, 15] }), inflatedFull);
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toContain('finish_reason is "stop", not "length"');
    expect(codes(v)).toEqual(['usage_inflated']);
  });

  it('trap: inflated usage beside a text a little past the limit, or an uncapped answer not clearly longer, is inconclusive', () => {
    expect(judge(reply('1, 2, 3, 4', { finish: 'length', usage: [20, 21] }), inflatedFull).verdict).toBe('inconclusive');
    const short = reply('1, 2, 3, 4, 5, 6, 7', { usage: [20, 39] });
    expect(judge(reply('1, 2, 3', { finish: 'length', usage: [20, 15] }), short).verdict).toBe('inconclusive');
  });
});

describe('pickStop (rule 4)', () => {

  it('takes the string from the answer after a <think> block, never from the thinking', () => {
    const text = '<think>step step step step step step step step step step step step</think>1, 2, 3, 4, 5, 6, 7, 8, 9, 10';
    const p = pickStop(text)!;
    expect(p.at).toBeGreaterThan(text.indexOf('</think>'));
    expect(text.indexOf(p.stop)).toBe(p.at);
    expect(pickStop('<think>a long thought that goes on and on</think>OK')).toBeUndefined();
  });
  it('takes a piece that first occurs near 40% of the answer, at a word start', () => {
    const p = pickStop(COUNT)!;
    expect(COUNT.indexOf(p.stop)).toBe(p.at);
    expect(p.at).toBeGreaterThanOrEqual(Math.floor(COUNT.length * 0.4));
    expect(COUNT[p.at - 1]).toBe(' ');
    expect(p.stop.length).toBeGreaterThanOrEqual(3);
  });

  it('works on gibberish without spaces, and gives up on a short answer', () => {
    const text = '漢字かなカナ漢字abcabcabcXYZ漢字';
    const p = pickStop(text)!;
    expect(text.indexOf(p.stop)).toBe(p.at);
    expect(pickStop('OK.')).toBeUndefined();
  });
});

describe('judgeStop (rules 1, 4 and 5)', () => {
  const { stop, at } = pickStop(COUNT)!;
  const greedy = { x: uncapped, repeatable: true };
  const judge = (x: ReturnType<typeof reply>, g: typeof greedy | undefined = greedy) => judgeStop(x, g, stop, at, ok, 'stop: [one string]');

  it('honours the greedy answer cut just before the stop string, which the model otherwise goes past', () => {
    expect(judge(reply(COUNT.slice(0, at))).verdict).toBe('honoured');
  });

  it('trap: a kept stop string (TGI) is honoured with a finding, not ignored', () => {
    const v = judge(reply(COUNT.slice(0, at + stop.length)));
    expect(v.verdict).toBe('honoured');
    expect(v.findings?.[0]?.code).toBe('stop_kept');
  });

  it('calls an answer that goes on after the stop string ignored', () => {
    expect(judge(reply(COUNT)).verdict).toBe('ignored');
  });

  it('is inconclusive when the answer leaves the greedy text, or ends early for another reason', () => {
    expect(judge(reply('one, two, three')).verdict).toBe('inconclusive');
    expect(judge(reply(COUNT.slice(0, 5))).verdict).toBe('inconclusive');
  });

  it('is inconclusive without a greedy answer to compare with, unless the stop string shows in the middle', () => {
    expect(judge(reply('1, 2, 3'), undefined).verdict).toBe('inconclusive');
  });

  it('rejects on a refusal; an error in a 200 says nothing', () => {
    expect(judge(refused(400, "Invalid 'stop': array too long", { param: 'stop' })).verdict).toBe('rejected');
    expect(judge(errorIn200()).verdict).toBe('inconclusive');
  });
});
