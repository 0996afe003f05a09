import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/engine/exchange.js';
import type { ProbeVerdict } from '../../src/engine/probe.js';
import { TOKENIZER_TABLE } from '../../suites/support/tokenizer-table.js';
import {
  claimedFamily,
  countingTokens,
  HIDDEN_MIN,
  judgeCache,
  judgeCompletion,
  judgeOverhead,
  judgeTokenizer,
  type Series,
} from '../../suites/support/usage.js';
import { COUNTING_TEXT } from '../../suites/support/usage-texts.js';
import { judgeChatUsage } from '../../suites/chat/usage.js';
import { errorIn200, raw, refused, reply } from '../helpers/exchanges.js';

const T = TOKENIZER_TABLE;
const codes = (v: ProbeVerdict) => (v.findings ?? []).map((f) => f.code);
const withUsage = (prompt: number, completion = 1) => reply('OK', { usage: [prompt, completion], finish: 'length' });

/**
 * The series as a server answers it: the smoke prompt at `smoke`, each copy of the unit adding `unit`; the
 * free points `riu` and `count` tokens beyond the smoke prompt (a family's own by default: o200k's).
 */
function series(smoke: number, unit: number, o: { tweak?: (p: number, k: number) => number; riu?: number; count?: number } = {}): Series {
  const tweak = o.tweak ?? ((p) => p);
  return {
    points: [0, 3].map((k) => ({ k, x: withUsage(tweak(smoke + k * unit, k)) })),
    checks: [
      { text: 'ruleInUser', x: withUsage(smoke + (o.riu ?? T.o200k.counts.ruleInUser - 7)) },
      { text: 'countPrompt', x: withUsage(smoke + (o.count ?? T.o200k.counts.countPrompt - 7)) },
    ],
  };
}

/** A family's own series: the texts' tokens and the family's first template (`extra` more on every request). */
const honest = (f: keyof typeof T, extra = 0) =>
  series(T[f].counts.smoke + T[f].templates[0].user + extra, T[f].counts.unitA, { riu: T[f].counts.ruleInUser - T[f].counts.smoke, count: T[f].counts.countPrompt - T[f].counts.smoke });

/** A series with one exchange put in place of a point (by copies) or of a free point (by text). */
function replaced(s: Series, at: number | 'ruleInUser' | 'countPrompt', x: Exchange): Series {
  return typeof at === 'number'
    ? { ...s, points: s.points.map((p) => (p.k === at ? { ...p, x } : p)) }
    : { ...s, checks: s.checks.map((c) => (c.text === at ? { ...c, x } : c)) };
}

describe('claimedFamily', () => {
  it.each([
    ['gpt-4o-mini', 'o200k'],
    ['gpt-4.1', 'o200k'],
    ['o3-mini', 'o200k'],
    ['openai/gpt-oss-20b', 'o200k'],
    ['gpt-4-turbo', 'cl100k'],
    ['gpt-3.5-turbo', 'cl100k'],
    ['meta-llama/Meta-Llama-3.1-8B-Instruct', 'llama3'],
    ['llama3.2:3b', 'llama3'],
    ['Qwen/Qwen2.5-7B-Instruct', 'qwen2'],
    ['models/qwen2.5-0.5b-instruct-q4_k_m.gguf', 'qwen2'],
    ['qwen3-32b', 'qwen2'],
    ['gemma-3-27b-it', 'gemma3'],
    ['mistral-nemo-instruct-2407', 'mistral_nemo'],
    ['mistral-small-3.1-24b-instruct', 'mistral_nemo'],
  ])('%s claims %s', (id, family) => expect(claimedFamily(id)).toBe(family));

  it.each(['claude-3-5-haiku', 'deepseek-chat', 'gemma-2-9b-it', 'mistral-7b-instruct-v0.3', 'llama-2-13b', 'ref-standard', 'tiny-stops'])('%s claims none', (id) => {
    expect(claimedFamily(id)).toBeUndefined();
  });

  it('claims nothing where two families match (a distilled Llama named after Qwen)', () => {
    expect(claimedFamily('qwen-distill-llama-3-8b')).toBeUndefined();
  });
});

describe('countingTokens', () => {
  it('cuts numbers in the family\'s digit groups; every comma and space is a token', () => {
    expect(countingTokens('1, 2, 3', 3)).toBe(7);
    expect(countingTokens('9, 10, 11', 3)).toBe(7);
    expect(countingTokens('9, 10, 11', 1)).toBe(9);
    expect(countingTokens(COUNTING_TEXT, 3)).toBe(58);
    expect(countingTokens(COUNTING_TEXT, 1)).toBe(69);
  });
});

describe('judgeTokenizer (usage.tokenizer)', () => {
  it('names the family from an exact fit whose slope is its count of the unit, the free points counted as it counts them', () => {
    const v = judgeTokenizer('qwen2.5-7b-instruct', honest('qwen2'));
    expect(v.verdict).toBe('pass');
    expect(codes(v)).toEqual(['tokenizer']);
    expect(v.observed).toContain(`exact, the unit ${T.qwen2.counts.unitA} tokens a copy, as Qwen 2 / 2.5 / 3 counts it, and the instruction in a user message and the counting prompt as it counts them, the family the name claims`);
    // The evidence: every fitted point.
    expect(v.observed).toMatch(/^prompt_tokens 15 and 87 for the unit × 0 and 3; 26 for the instruction in a user message; 25 for the counting prompt/);
  });

  it('passes a name that claims no family, naming the family that counts like the server', () => {
    const v = judgeTokenizer('deepseek-chat', honest('o200k'));
    expect(v.verdict).toBe('pass');
    expect(v.findings?.[0]?.message).toContain('counts like o200k');
  });

  it('warns when the name claims one family and the count is another\'s (another model, or a gateway counting itself)', () => {
    const v = judgeTokenizer('meta-llama-3.1-8b-instruct', honest('cl100k'));
    expect(v.verdict).toBe('warn');
    expect(codes(v)).toEqual(['tokenizer', 'tokenizer_mismatch']);
    expect(v.observed).toContain('the name claims Llama 3 (the unit 19 tokens), but the endpoint counts like cl100k');
    expect(v.observed).toContain('a gateway counts the prompt itself');
  });

  it('trap: a gateway recounting every prompt with tiktoken (cl100k) in front of a Qwen model is that warning, never a pass for Qwen', () => {
    // new-api's count: 3 per message, the role, the content, 3 for the reply.
    const recount = series(T.cl100k.counts.smoke + 7, T.cl100k.counts.unitA);
    const v = judgeTokenizer('qwen-max', recount);
    expect(v.verdict).toBe('warn');
    expect(codes(v)).toContain('tokenizer_mismatch');
  });

  it('trap: a near fit is no fit: one point a token off the line names nothing', () => {
    const v = judgeTokenizer('qwen2.5-7b-instruct', series(15, 24, { tweak: (p, k) => (k === 3 ? p + 1 : p) }));
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toContain('3 copies add 73 tokens, not the same whole number for each, and a near fit is no fit');
    expect(codes(v)).toEqual([]);
  });

  it('trap: a gateway\'s estimate (characters / 4, rounded up) is no family\'s count of the unit or the texts, and names nothing', () => {
    const chars = (k: number) => 30 + 24 * k;
    const estimate = series(0, 0, { tweak: (_, k) => Math.ceil(chars(k) / 4) + 7, riu: 13, count: 8 });
    const v = judgeTokenizer('gpt-4o', estimate);
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toContain('the unit counted as 6 tokens, which no tokenizer of the table counts so');
  });

  it('trap: a slope that is one family\'s count of the unit, while the free points are counted otherwise, names nothing', () => {
    // An estimate that happens to make 17 tokens of the unit, as o200k does, and 9 of the instruction, where o200k makes 11.
    const v = judgeTokenizer('gpt-4o', series(14, 17, { riu: 9 }));
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toContain('but the instruction in a user message counts 9 tokens beyond the smoke prompt, where o200k (GPT-4o, GPT-4.1, o-series, GPT-5) counts 11');
  });

  it('names the family from the series alone where a free point has no count', () => {
    const v = judgeTokenizer('m', replaced(honest('gemma3'), 'countPrompt', refused(400, 'temperature must be 1')));
    expect(v.verdict).toBe('pass');
    expect(v.observed).toContain('as Gemma 3 counts it, and the instruction in a user message as it counts them');
  });

  it('an exact fit of a tokenizer outside the table is inconclusive, naming the slope and the claim', () => {
    const v = judgeTokenizer('qwen2.5-7b-instruct', series(14, 9));
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toContain('the unit counted as 9 tokens, which no tokenizer of the table counts so');
    expect(v.observed).toContain('the name claims Qwen 2 / 2.5 / 3: the unit 24');
  });

  it('counts that do not grow with the prompt count nothing of it', () => {
    expect(judgeTokenizer('m', series(42, 0)).observed).toContain('prompt_tokens do not grow with the prompt');
  });

  it('trap: a server without usage is inconclusive', () => {
    const v = judgeTokenizer('qwen2.5-7b-instruct', replaced(honest('qwen2'), 3, reply('OK', { usage: null })));
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toContain('answered without usage');
  });

  it('trap: an error body in a 200 is no count, said with its finding', () => {
    const v = judgeTokenizer('qwen2.5-7b-instruct', replaced(honest('qwen2'), 3, errorIn200()));
    expect(v.verdict).toBe('inconclusive');
    expect(codes(v)).toEqual(['error_in_2xx']);
  });

  it('a refused series request is inconclusive; a 5xx is an error with its cause; a missing point says so', () => {
    expect(judgeTokenizer('m', replaced(honest('qwen2'), 3, refused(400, 'content filter'))).observed).toContain('was refused (HTTP 400: content filter)');
    const down = refused(503, 'no channel');
    down.cause = 'upstream';
    expect(judgeTokenizer('m', replaced(honest('qwen2'), 3, down)).verdict).toBe('error');
    const short = honest('qwen2');
    expect(judgeTokenizer('m', { ...short, points: short.points.slice(0, 1) }).observed).toContain('was not sent');
  });

  it('trap: our own cut of a body is ours', () => {
    const x = raw(200, '{"id":');
    x.truncated = true;
    expect(judgeTokenizer('m', replaced(honest('qwen2'), 3, x)).observed).toContain('chatprobe stopped reading at its own cap');
  });
});

describe('judgeTokenizer without a free point to confirm the slope', () => {
  it('trap: the series alone is one number a tokenizer outside the table may share: no family named, no mismatch claimed', () => {
    const s = honest('o200k');
    const alone: Series = { ...s, checks: s.checks.map((c) => ({ ...c, x: reply('OK', { usage: null }) })) };
    const v = judgeTokenizer('llama-3.1-8b-instruct', alone);
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toContain('no other prompt of the audit had a count to confirm it');
    expect(codes(v)).not.toContain('tokenizer_mismatch');
  });
});

describe('judgeOverhead (usage.prompt_overhead)', () => {
  const sys = (f: keyof typeof T, extra = 0) => withUsage(T[f].counts.rule + T[f].counts.question + T[f].templates[0].system + extra);

  it('passes a count that is the text and a known template, naming the template', () => {
    const v = judgeOverhead(honest('qwen2'), sys('qwen2'));
    expect(v.verdict).toBe('pass');
    expect(v.findings?.[0]?.message).toContain('8 for the template, exactly what ChatML (Qwen 3) adds');
    const q25 = series(T.qwen2.counts.smoke + 29, T.qwen2.counts.unitA, { riu: 11, count: 10 });
    expect(judgeOverhead(q25, sys('qwen2')).findings?.[0]?.message).toContain('exactly what Qwen 2.5 adds');
  });

  it('trap: prompt_tokens that do not grow with the prompt (a constant a gateway makes up) count nothing: no hidden prompt read from their size', () => {
    const constant = series(400, 0, { riu: 0, count: 0 });
    const v = judgeOverhead(constant, withUsage(400));
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toContain('do not grow with the prompt');
    expect(codes(v)).not.toContain('hidden_prompt');
  });

  it('trap: a template that differs by a few tokens is no hidden prompt (a note says so)', () => {
    const v = judgeOverhead(honest('gemma3', 6), sys('gemma3', 6));
    expect(v.verdict).toBe('pass');
    expect(codes(v)).toEqual(['template']);
    expect(v.findings?.[0]?.message).toContain('6 more than the family\'s known templates add (Gemma 3 9): a template the table does not know, or an addition under 100 tokens');
  });

  it('fails a prompt injected into every request, with its size, when the request with its own system message counts it too', () => {
    const v = judgeOverhead(honest('o200k', 400), sys('o200k', 400));
    expect(v.verdict).toBe('fail');
    expect(codes(v)).toEqual(['template', 'hidden_prompt']);
    expect(v.observed).toContain('a hidden prompt of 400 tokens is added to every request, with or without a system message of the client\'s');
  });

  it('trap: a default system prompt the client\'s own replaces (a large template) is a note, not a hidden prompt', () => {
    const v = judgeOverhead(honest('mistral_nemo', 300), sys('mistral_nemo'));
    expect(v.verdict).toBe('pass');
    expect(codes(v)).toEqual(['template', 'default_prompt']);
    expect(v.findings?.[1]?.message).toContain('a default system prompt of 300 tokens is counted when the request has no system message, and gone when it brings one');
  });

  it('a large excess without the control (the system message refused, or no usage there) is inconclusive', () => {
    expect(judgeOverhead(honest('o200k', 400), refused(400, 'system messages are not supported')).verdict).toBe('inconclusive');
    expect(judgeOverhead(honest('o200k', 400), reply('Paris', { usage: null })).verdict).toBe('inconclusive');
  });

  it('an excess that neither stays nor clearly goes with a system message is inconclusive', () => {
    expect(judgeOverhead(honest('o200k', 130), sys('o200k', 100)).verdict).toBe('inconclusive');
  });

  it('fails a prompt added only to requests that bring a system message', () => {
    const v = judgeOverhead(honest('o200k'), sys('o200k', 500));
    expect(v.verdict).toBe('fail');
    expect(v.observed).toContain('to a request that brings its own system message');
  });

  it('judges thousands of tokens for a short message without a named tokenizer: no tokenizer makes more tokens than bytes', () => {
    // "What is 1+1?" billed 4,186 input tokens (a public audit); the series fits no family here.
    const v = judgeOverhead(series(4186, 9), withUsage(4200));
    expect(v.verdict).toBe('fail');
    expect(v.observed).toContain('a hidden prompt of at least');
  });

  it('without a named tokenizer, an ordinary count passes with no note of a template', () => {
    const v = judgeOverhead(series(14, 9), withUsage(27));
    expect(v.verdict).toBe('pass');
    expect(v.findings).toEqual([]);
  });

  it('trap: a server without usage is inconclusive; so is an error body in a 200 for the smoke call', () => {
    const none = honest('qwen2');
    const bare = { points: none.points.map((p) => ({ ...p, x: reply('OK', { usage: null }) })), checks: none.checks.map((c) => ({ ...c, x: reply('OK', { usage: null }) })) };
    expect(judgeOverhead(bare, sys('qwen2')).verdict).toBe('inconclusive');
    const v = judgeOverhead(replaced(honest('qwen2'), 0, errorIn200()), sys('qwen2'));
    expect(v.verdict).toBe('inconclusive');
    expect(codes(v)).toEqual(['error_in_2xx']);
  });

  it('keeps the threshold: just under HIDDEN_MIN above the largest known template is no finding', () => {
    const top = Math.max(...T.llama3.templates.map((t) => t.user));
    const v = judgeOverhead(series(T.llama3.counts.smoke + top + HIDDEN_MIN, T.llama3.counts.unitA, { riu: 11, count: 9 }), sys('llama3'));
    expect(v.verdict).toBe('pass');
  });
});

describe('judgeCompletion (usage.completion)', () => {
  const greedy = (text: string, completion: number, o: { finish?: string; reasoning?: string; details?: number } = {}): Exchange => {
    const body: Record<string, unknown> = {
      id: 'c1',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: text, ...(o.reasoning ? { reasoning_content: o.reasoning } : {}) }, finish_reason: o.finish ?? 'length' }],
      usage: { prompt_tokens: 20, completion_tokens: completion, total_tokens: 20 + completion, ...(o.details !== undefined ? { completion_tokens_details: { reasoning_tokens: o.details } } : {}) },
    };
    return raw(200, JSON.stringify(body));
  };
  const cut = COUNTING_TEXT.slice(0, COUNTING_TEXT.indexOf('16,') + 3); // what a limit of 48 lets through in the GPT families
  const smoke = reply('OK');

  it('passes completion tokens that are the family\'s count of the text (cut by the limit or whole, an end token allowed)', () => {
    expect(countingTokens(cut, 3)).toBe(47);
    const v = judgeCompletion(honest('o200k'), greedy(cut, 47), smoke);
    expect(v.verdict).toBe('pass');
    expect(v.observed).toContain('47 completion tokens for the start of the counting text, which o200k');
    expect(judgeCompletion(honest('o200k'), greedy(COUNTING_TEXT, 59, { finish: 'stop' }), smoke).verdict).toBe('pass');
  });

  it('warns usage_inflated, as the length probes name it, for a multiple of the text\'s tokens', () => {
    const v = judgeCompletion(honest('gemma3'), greedy(COUNTING_TEXT.slice(0, 50), 3 * countingTokens(COUNTING_TEXT.slice(0, 50), 1)), smoke);
    expect(v.verdict).toBe('warn');
    expect(codes(v)).toEqual(['usage_inflated']);
    expect(v.observed).toContain('usage reports 3.0× the completion tokens of the text');
  });

  it('warns completion_count for an answer counted otherwise (a gateway recounting it with another tokenizer)', () => {
    // Qwen counts the prompt; the answer is counted in threes of digits, as tiktoken does.
    const v = judgeCompletion(honest('qwen2'), greedy(COUNTING_TEXT, 58, { finish: 'stop' }), smoke);
    expect(v.verdict).toBe('warn');
    expect(codes(v)).toEqual(['completion_count']);
  });

  it('trap: a model too weak to echo the counting text gives nothing to count', () => {
    const v = judgeCompletion(honest('qwen2'), greedy('ĠrandomÃ gibberish 1, 2', 48), smoke);
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toContain('a model too weak to write it');
    expect(judgeCompletion(honest('qwen2'), greedy('1, 2, 3,', 8), smoke).observed).toContain('too short');
  });

  it('takes reported reasoning tokens off; reasoning without them is inconclusive', () => {
    expect(judgeCompletion(honest('o200k'), greedy(cut, 47 + 30, { reasoning: 'thinking…', details: 30 }), smoke).verdict).toBe('pass');
    expect(judgeCompletion(honest('o200k'), greedy(cut, 47 + 30, { reasoning: 'thinking…' }), smoke).verdict).toBe('inconclusive');
    // The plain answer showed reasoning; this one shows none, and says nothing of its reasoning tokens.
    expect(judgeCompletion(honest('o200k'), greedy(cut, 47 + 30), reply('OK', { reasoning: 'hm' })).verdict).toBe('inconclusive');
  });

  it('needs a named tokenizer: a near fit or a tokenizer outside the table leaves the answer uncounted', () => {
    expect(judgeCompletion(series(14, 9), greedy(cut, 47), smoke).observed).toContain('no tokenizer named to count the answer with');
  });

  it('trap: an error body in a 200, and an answer without usage, are inconclusive', () => {
    const v = judgeCompletion(honest('o200k'), errorIn200(), smoke);
    expect(v.verdict).toBe('inconclusive');
    expect(codes(v)).toEqual(['error_in_2xx']);
    expect(judgeCompletion(honest('o200k'), reply(cut, { usage: null }), smoke).verdict).toBe('inconclusive');
  });
});

describe('judgeCache (usage.cache)', () => {
  const ans = (text: string, id?: string) => reply(text, id ? { id } : {});

  it('passes answers each with its own id, varied at temperature 1', () => {
    const v = judgeCache([ans('123456'), ans('654321'), ans('111222'), ans('123456')], [ans('5'), ans('5')], [reply('OK')]);
    expect(v.verdict).toBe('pass');
    expect(v.observed).toContain('4 identical requests at temperature 1 and 2 at 0: each answer its own id, 3 distinct answers');
  });

  it('warns cached_replay when identical requests get an earlier answer back, id and text the same', () => {
    const v = judgeCache([ans('123456', 'c1'), ans('123456', 'c1'), ans('123456', 'c1'), ans('999999', 'c4')], [], [reply('OK')]);
    expect(v.verdict).toBe('warn');
    expect(codes(v)).toEqual(['cached_replay']);
    expect(v.observed).toContain('3 of the 4 answers at temperature 1 are "c1", "123456"');
  });

  it('trap: ids a server gives every answer alike (the smoke call\'s too) say nothing of a replay', () => {
    const v = judgeCache([ans('1', 'same'), ans('1', 'same')], [], [reply('OK', { id: 'same' })]);
    expect(v.verdict).toBe('inconclusive');
  });

  it('answers all alike at temperature 1, each with its own id, are inconclusive: a cache renewing ids, or no sampling', () => {
    const v = judgeCache([ans('123456'), ans('123456'), ans('123456')], [], [reply('OK')]);
    expect(v.verdict).toBe('inconclusive');
  });

  it('trap: a greedy server repeating its text at temperature 0 under an id made from the time (or a small random range) is no cache', () => {
    const v = judgeCache([ans('123456', 'a1'), ans('654321', 'a2')], [ans('5', 't0'), ans('5', 't0')], [reply('OK')]);
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toContain('only among the answers at temperature 0');
  });

  it('trap: an id that came with two different texts is not made per answer, so a repeat of it says nothing', () => {
    const v = judgeCache([ans('123456', 'r7'), ans('123456', 'r7'), ans('999999', 'r7')], [], [reply('OK')]);
    expect(v.verdict).toBe('inconclusive');
    expect(v.observed).toContain('ids are not made per answer');
  });

  it('trap: an error body in a 200 is no sample; a refused set has nothing to compare', () => {
    const v = judgeCache([ans('1'), errorIn200()], [], [reply('OK')]);
    expect(v.verdict).toBe('inconclusive');
    expect(codes(v)).toEqual(['error_in_2xx']);
    expect(judgeCache([refused(400, "temperature must be 1")], [], [reply('OK')]).observed).toContain('fewer than two answers');
  });

  it('reads a model whose answer went to its reasoning field', () => {
    const r = (n: string) => reply('', { reasoning: n, finish: 'stop' });
    expect(judgeCache([r('1'), r('2')], [], [reply('OK')]).verdict).toBe('pass');
  });
});

describe('judgeChatUsage (chat.usage: the counting request as the longer prompt)', () => {
  it('passes prompt tokens that grow by what the longer text holds more, in any tokenizer', () => {
    for (const f of Object.keys(T) as (keyof typeof T)[]) expect(judgeChatUsage(withUsage(15), withUsage(15 + T[f].counts.countPrompt - T[f].counts.smoke)).verdict, f).toBe('pass');
    expect(judgeChatUsage(withUsage(14), withUsage(14 + 3)).verdict).toBe('pass');
  });

  it('warns a count that does not follow the prompt (the same number whatever is sent, too little more, or far more)', () => {
    const v = judgeChatUsage(withUsage(42), withUsage(42));
    expect(v.verdict).toBe('warn');
    expect(codes(v)).toEqual(['growth']);
    expect(v.findings?.[0]?.message).toContain('grow by 3–');
    expect(judgeChatUsage(withUsage(42), withUsage(44)).verdict).toBe('warn');
    expect(judgeChatUsage(withUsage(42), withUsage(42 + 80)).verdict).toBe('warn');
    expect(judgeChatUsage(withUsage(42), withUsage(42 + 60)).verdict).toBe('pass');
  });

  it('leaves the growth unchecked where the longer prompt got no count; fails a broken invariant; warns no usage', () => {
    expect(codes(judgeChatUsage(withUsage(15), refused(400, 'content filter')))).toEqual(['growth_unchecked']);
    const broken = raw(200, JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'OK' }, finish_reason: 'stop' }], usage: { prompt_tokens: 15, completion_tokens: 1, total_tokens: 20 } }));
    expect(judgeChatUsage(broken, withUsage(87)).verdict).toBe('fail');
    expect(judgeChatUsage(reply('OK', { usage: null }), withUsage(87)).verdict).toBe('warn');
  });
});
