import { describe, expect, it } from 'vitest';
import { judgeEffort } from '../../suites/reasoning/effort.js';
import { judgeReasoningField } from '../../suites/reasoning/field.js';
import { judgeReasoningStream } from '../../suites/reasoning/stream.js';
import { judgeReasoningUsage } from '../../suites/reasoning/usage.js';
import { readJson } from '../../suites/support/json-answer.js';
import { delta, raw, refused, reply, streamed } from '../helpers/exchanges.js';

/** A completion whose message and usage are given whole: reasoning fields and token details as servers send them. */
function answer(message: Record<string, unknown>, usage?: Record<string, unknown>, finish = 'stop') {
  const body: Record<string, unknown> = { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }] };
  if (usage) body.usage = usage;
  return raw(200, JSON.stringify(body));
}
const counts = (p: number, c: number, r?: number, t = p + c) => ({ prompt_tokens: p, completion_tokens: c, total_tokens: t, ...(r === undefined ? {} : { completion_tokens_details: { reasoning_tokens: r } }) });
const deepseek = answer({ content: 'OK', reasoning_content: 'The user wants one word.' }, counts(10, 12, 10));
const plain = reply('OK');

describe('reasoning.field', () => {
  it.each([
    ['message.reasoning_content', deepseek, 'pass'],
    ['message.reasoning', answer({ content: 'OK', reasoning: 'One word.' }), 'pass'],
    ['only a token count (hidden)', answer({ content: 'OK' }, counts(10, 40, 38)), 'pass'],
    ['<think> tags in the content', answer({ content: '<think>One word.</think>OK' }), 'warn'],
    ['an empty content at "stop", everything in the reasoning', answer({ content: '', reasoning_content: 'OK' }), 'warn'],
    ['no reasoning: said once, the rest skipped', plain, 'inconclusive'],
  ])('%s: %s', (_name, x, verdict) => {
    expect(judgeReasoningField(x).verdict).toBe(verdict);
  });

  it('does not blame the model for an empty content the limit cut', () => {
    const cut = judgeReasoningField(answer({ content: '', reasoning_content: 'Thinking about it at length' }, undefined, 'length'));
    expect(cut.verdict).toBe('pass');
    expect(cut.findings!.map((f) => f.code)).toContain('cut');
  });
});

describe('reasoning.stream', () => {
  const stream = (d: Record<string, unknown>[]) => streamed([delta({ role: 'assistant', content: '' }), ...d.map((x) => delta(x)), delta({}, 'stop')]);
  it('passes reasoning streamed in the field the non-stream answer uses', () => {
    expect(judgeReasoningStream(stream([{ reasoning_content: 'Hmm.' }, { content: '1, 2' }]), deepseek).verdict).toBe('pass');
  });
  it('warns when the stream uses another field, or drops the reasoning while content comes', () => {
    const other = judgeReasoningStream(stream([{ reasoning: 'Hmm.' }, { content: '1, 2' }]), deepseek);
    expect(other.findings!.map((f) => f.code)).toContain('field_differs');
    const dropped = judgeReasoningStream(stream([{ content: '1, 2' }]), deepseek);
    expect(dropped.verdict).toBe('warn');
    expect(dropped.findings!.map((f) => f.code)).toContain('no_reasoning_in_stream');
  });
  it('skips a model whose plain answer shows no reasoning', () => {
    expect(judgeReasoningStream(stream([{ content: '1, 2' }]), plain).observed).toMatch(/^skipped: no reasoning seen/);
  });
});

describe('reasoning.usage', () => {
  it('passes reasoning_tokens within the completion, total = prompt + completion', () => {
    expect(judgeReasoningUsage(deepseek).verdict).toBe('pass');
  });
  it.each([
    ['reasoning billed on top', counts(10, 12, 20), 'fail', 'over'],
    ['a total that leaves the reasoning out', counts(10, 12, 10, 12), 'fail', 'total'],
    ['no reasoning_tokens reported', counts(10, 12), 'warn', 'no_reasoning_tokens'],
    ['reasoning_tokens 0 beside a reasoning text: not broken out, not "uncounted"', counts(10, 12, 0), 'warn', 'not_broken_out'],
  ])('%s', (_name, usage, verdict, code) => {
    const v = judgeReasoningUsage(answer({ content: 'OK', reasoning_content: 'The user wants one word, so I answer OK.' }, usage));
    expect(v.verdict).toBe(verdict);
    expect(v.findings!.map((f) => f.code)).toContain(code);
  });
});

describe('reasoning.effort', () => {
  const thought = (tokens: number, finish = 'stop') => answer({ content: '16', reasoning_content: 'step '.repeat(tokens) }, counts(20, tokens + 1, tokens), finish);
  const pair = (a: number, b: number = a, finish = 'stop') => [thought(a, finish), thought(b, finish)];
  it('is honoured when high reasons at least twice as much, and clearly more', () => {
    expect(judgeEffort(pair(10), pair(60), refused(400, "Invalid value for 'reasoning_effort'", { param: 'reasoning_effort' }), plain).verdict).toBe('honoured');
  });
  it('is never ignored: no clear difference, or a low answer cut by our limit, is inconclusive', () => {
    expect(judgeEffort(pair(30), pair(34), undefined, plain).verdict).toBe('inconclusive');
    expect(judgeEffort(pair(500, 500, 'length'), pair(512, 512, 'length'), undefined, plain).verdict).toBe('inconclusive');
    // Twice as much, but only 8 tokens more: chance, not effort.
    expect(judgeEffort(pair(4), pair(12), undefined, plain).verdict).toBe('inconclusive');
  });
  it('is not fooled by reasoning that merely varies: one pair twice apart, the other not (the control against chance)', () => {
    expect(judgeEffort(pair(40, 120), pair(90, 250), undefined, plain).verdict).toBe('inconclusive');
  });
  it('says when a bogus effort is accepted, and rejects an effort refused by name', () => {
    const v = judgeEffort(pair(10), pair(60), thought(10), plain);
    expect(v.findings!.map((f) => f.code)).toContain('no_validation');
    expect(judgeEffort([refused(400, "Unsupported parameter: 'reasoning_effort'", { param: 'reasoning_effort' }), thought(10)], pair(60), undefined, plain).verdict).toBe('rejected');
  });
});

describe('JSON after a <think> block', () => {
  it('reads the JSON the format shaped, not the thinking before it', () => {
    expect(readJson('<think>the sky</think>{"sky":"blue"}')).toEqual({ kind: 'json', value: { sky: 'blue' } });
    expect(readJson('<think>the sky</think>The sky is blue.').kind).toBe('prose');
  });
});
