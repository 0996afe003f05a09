import { describe, expect, it } from 'vitest';
import { judgeJsonObject, judgeJsonSchema, readJson } from '../../suites/support/json-answer.js';
import { judgeN } from '../../suites/parameters/n.js';
import { judgeLogprobs } from '../../suites/parameters/logprobs.js';
import { PROSE_PROMPT, SKY_SCHEMA } from '../../suites/support/prompts.js';
import { runContrast } from '../helpers/contrast.js';
import { errorIn200, refused, reply } from '../helpers/exchanges.js';

const ok = reply('OK');
const prose = reply('The sky is blue on a clear day, and the Earth has one moon.');
const FITS = '{"sky":"blue","moons":1,"source":"chatprobe"}';
// What a capable model writes in JSON mode for the prose prompt: its own keys, not the schema's.
const JSON_MODE = reply('{"colour":"blue","moons":1}');

describe('the JSON prompt and schema (rule 1)', () => {
  it('never names what the schema enforces: a required key and an enum value the prompt does not mention', () => {
    const prompt = PROSE_PROMPT.toLowerCase();
    const unnamed = SKY_SCHEMA.required.filter((k) => !prompt.includes(k));
    expect(unnamed.length).toBeGreaterThan(0);
    for (const k of unnamed) for (const v of (SKY_SCHEMA.properties[k] as { enum?: readonly string[] }).enum ?? []) expect(prompt).not.toContain(v);
  });
});

describe('judgeJsonObject', () => {
  const obj = reply('{"colour":"blue"}');
  it.each([
    ['JSON objects where the plain prompt gets prose, in enough answers to rule out chance', [obj, obj], [prose, prose, prose], 'honoured', [2, 3]],
    ['a JSON object, but the plain prompt gets JSON too', [obj], [reply('{"a":1}')], 'inconclusive', [1, 1]],
    ['prose', [prose], [prose], 'ignored', [1, 1]],
    ['JSON in a Markdown fence', [reply('```json\n{"colour":"blue"}\n```')], [prose], 'ignored', [1, 1]],
    ['a JSON array', [reply('[1, 2]')], [prose], 'ignored', [1, 1]],
    ['JSON cut by the output limit', [reply('{"colour":"bl', { finish: 'length' })], [prose], 'inconclusive', [1, 1]],
    ['an error in a 200', [errorIn200()], [prose], 'inconclusive', [1, 1]],
    ['a refusal', [refused(400, "Invalid parameter: 'response_format' of type 'json_object' is not supported", { param: 'response_format' })], [prose], 'rejected', [1, 1]],
    // A gateway that drops response_format in front of a model that answers this prompt with JSON half the time.
    ['trap: JSON by chance, then prose in JSON mode', [obj, prose], [prose, prose], 'ignored', [2, 2]],
    ['trap: JSON by chance, and a later plain answer is JSON too', [obj, obj], [prose, obj], 'inconclusive', [1, 2]],
  ] as const)('%s', (_, xs, plain, verdict, used) => {
    const v = runContrast((w, wo) => judgeJsonObject(w, wo, ok), xs, plain);
    expect(v.verdict).toBe(verdict);
    expect(v.used).toEqual(used);
  });

  it('says the chance it ruled out', () => {
    const v = runContrast((w, wo) => judgeJsonObject(w, wo, ok), [reply('{"colour":"blue"}'), reply('{"c":1}')], [prose, prose, prose]);
    expect(v.observed).toContain('every answer on its side, 2 with it and 3 without: a model showing the effect at random does that at most 3.5% of the time');
  });
});

describe('readJson', () => {
  it('reads the JSON after a reasoning model’s thinking, the opening tag written or left to the template', () => {
    expect(readJson('<think>JSON then.</think>{"a":1}')).toEqual({ kind: 'json', value: { a: 1 } });
    expect(readJson('Plain prose will not do, JSON then.\n</think>\n\n{"a":1}')).toEqual({ kind: 'json', value: { a: 1 } });
    expect(readJson('The sky is blue.')).toEqual({ kind: 'prose' });
  });
});

describe('judgeJsonSchema', () => {
  it('honours JSON fitting a schema whose key and value no prompt names', () => {
    expect(judgeJsonSchema(reply(FITS), JSON_MODE, prose, ok).verdict).toBe('honoured');
  });

  it('trap: a route that downgrades json_schema to JSON mode is ignored, with a finding, not honoured', () => {
    const v = judgeJsonSchema(JSON_MODE, JSON_MODE, prose, ok);
    expect(v.verdict).toBe('ignored');
    expect(v.findings?.[0]?.code).toBe('json_mode_only');
  });

  it('is inconclusive when JSON mode or the plain prompt fit the schema too (the negative controls)', () => {
    expect(judgeJsonSchema(reply(FITS), reply(FITS), prose, ok).verdict).toBe('inconclusive');
    expect(judgeJsonSchema(reply(FITS), JSON_MODE, reply(FITS), ok).verdict).toBe('inconclusive');
  });

  it.each([
    ['prose', prose, 'ignored'],
    ['JSON outside the enum', reply('{"sky":"blue","moons":1,"source":"me"}'), 'ignored'],
    ['JSON cut by the output limit', reply('{"sky":"blue","mo', { finish: 'length' }), 'inconclusive'],
    ['an empty content', reply(''), 'inconclusive'],
    ['an error in a 200', errorIn200(), 'inconclusive'],
    ['a 400 naming response_format', refused(400, 'response_format json_schema is not supported', { param: 'response_format' }), 'rejected'],
  ])('%s', (_, x, verdict) => {
    expect(judgeJsonSchema(x, JSON_MODE, prose, ok).verdict).toBe(verdict);
  });
});

describe('judgeN', () => {
  it.each([
    ['two choices indexed 0 and 1', reply('OK', { more: [{ content: 'OK' }] }), 'honoured'],
    ['one choice', reply('OK'), 'ignored'],
    ['two choices both indexed 0', (() => { const x = reply('OK', { more: [{ content: 'OK' }] }); (x.json as { choices: { index: number }[] }).choices[1]!.index = 0; return x; })(), 'inconclusive'],
    ['an error in a 200', errorIn200(), 'inconclusive'],
    ['"n must be at most 1"', refused(400, 'n must be at most 1', { param: 'n' }), 'rejected'],
    ['trap: a server that answers two choices whatever n says (the smoke call got two)', reply('OK', { more: [{ content: 'OK' }] }), 'inconclusive', reply('OK', { more: [{ content: 'OK' }] })],
  ] as [string, ReturnType<typeof reply>, string, ReturnType<typeof reply>?][])('%s', (_, x, verdict, control = ok) => {
    expect(judgeN(x, control).verdict).toBe(verdict);
  });
});

describe('judgeLogprobs', () => {
  const entry = (token: string) => ({ token, logprob: -0.1, top_logprobs: [{ token, logprob: -0.1 }, { token: 'x', logprob: -2 }] });
  it.each([
    ['per-token logprobs', reply('OK', { logprobs: { content: [entry('OK')] } }), 'honoured', []],
    ['tokens that do not spell the content', reply('OK', { logprobs: { content: [entry('No')] } }), 'honoured', ['tokens']],
    ['the legacy shape', reply('OK', { logprobs: { tokens: ['OK'], token_logprobs: [-0.1] } }), 'honoured', ['legacy_shape']],
    ['no logprobs', reply('OK'), 'ignored', []],
    ['an empty logprobs.content', reply('OK', { logprobs: { content: [] } }), 'ignored', []],
    ['an error in a 200', errorIn200(), 'inconclusive', ['error_in_2xx']],
    ['a refusal', refused(400, 'logprobs is not supported', { param: 'logprobs' }), 'rejected', ['clean_refusal']],
  ])('%s', (_, x, verdict, codes) => {
    const v = judgeLogprobs(x, ok);
    expect(v.verdict).toBe(verdict);
    expect((v.findings ?? []).map((f) => f.code)).toEqual(codes);
  });
});
