import { describe, expect, it } from 'vitest';
import { judgeLength } from '../../suites/support/length.js';
import { judgeStop, pickStop } from '../../suites/support/stop.js';
import { errorIn200, refused, reply } from '../helpers/exchanges.js';

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

describe('pickStop (rule 4)', () => {
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
