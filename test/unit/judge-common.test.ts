import { describe, expect, it } from 'vitest';
import { answerProblem, mentions, namesAny, refusal, unreadable } from '../../src/engine/verdicts.js';
import { hasLimit, ModelCaller, refusesKey, renameLimit } from '../../src/engine/requests.js';
import type { CallLog } from '../../src/engine/calls.js';
import type { HttpRequest } from '../../src/http/client.js';
import { judgeAcceptance } from '../../suites/support/params.js';
import { jsonOf } from '../../src/wire/completion.js';
import { errorIn200, raw, refused, reply, timedOut } from '../helpers/exchanges.js';

const ok = reply('OK');

describe('naming a feature (verdict contract, rule 10)', () => {
  it.each([
    ['n', 'Unsupported parameter: n is not supported', true],
    ['n', 'this model does not support that', false],
    ['name', 'Invalid model_name', false],
    ['stop', "'stop' is not supported with this model", true],
    ['image', 'Image input is not supported - hint: you may need to provide the mmproj', true],
    ['max_tokens', 'use max_completion_tokens instead', false],
    ['max_tokens', 'max_tokens is too large', true],
    ['n', 'N must be 1', true],
  ])('%s in %j: %s', (word, text, expected) => {
    expect(mentions(text, word)).toBe(expected);
  });

  it('reads the same word in text after text alike (its pattern kept, holding no state)', () => {
    const texts = ['stop is not supported', 'no such thing', 'the stop sequences', 'stops', 'STOP: unsupported'];
    for (let round = 0; round < 3; round++) expect(texts.map((t) => mentions(t, 'stop'))).toEqual([true, false, true, false, true]);
  });

  it('reads error.param, and paths inside it', () => {
    expect(namesAny(refused(400, 'bad', { param: 'messages[0].role' }), ['messages[0].role'])).toBe(true);
    expect(namesAny(refused(400, 'bad', { param: 'stop[4]' }), ['stop'])).toBe(true);
    expect(namesAny(refused(400, 'bad', { param: 'stream_options' }), ['stream'])).toBe(false);
  });
});

describe('a readable answer (rule 3)', () => {
  it.each([
    ['an answer', reply('Paris'), undefined],
    ['a 200 with an error body', errorIn200(), 'error body'],
    ['JSON without choices', raw(200, '{"id":"x","object":"chat.completion"}'), 'no choice'],
    ['an HTML page with 200', raw(200, '<html></html>', 'text/html'), 'not JSON'],
    ['an empty content', reply(''), 'empty content'],
    ['text in a reasoning field only', reply('', { reasoning: 'thinking…' }), 'reasoning field'],
    ['a refusal', refused(400, 'no'), 'HTTP 400'],
  ])('%s', (_, x, problem) => {
    const got = answerProblem(x);
    if (problem === undefined) expect(got).toBeUndefined();
    else expect(got).toContain(problem);
  });

  it('counts white space of any kind as no content', () => {
    expect(answerProblem(reply(' \n\t\u00a0'))).toContain('empty content');
    expect(answerProblem(reply(' x '))).toBeUndefined();
  });

  it('reads a JSON text as JSON.parse does, and prose as no JSON without parsing it', () => {
    const texts = ['{"a":1}', ' \n[1,2]', '"x"', '-1.5', '0', 'true', 'false', 'null', 'nul', 'The sky is blue.', '', ' ', '\u00a0{"a":1}', '{"a":', '```json\n{}\n```', 'tomorrow'];
    const parsed = (t: string) => {
      try {
        return JSON.parse(t) as unknown;
      } catch {
        return undefined;
      }
    };
    for (const t of texts) expect(jsonOf(t), t).toEqual(parsed(t));
    expect(jsonOf('null')).toBeNull();
  });

  it('makes a 200 error body inconclusive with a finding, never a verdict on the feature', () => {
    const v = unreadable(errorIn200('seed is not supported'))!;
    expect(v.verdict).toBe('inconclusive');
    expect(v.findings?.[0]?.code).toBe('error_in_2xx');
  });
});

describe('refusal (rules 8 and 10)', () => {
  it('calls a 4xx rejected when the plain request answered; clean when the envelope names the parameter', () => {
    const v = refusal(refused(400, "Unsupported parameter: 'stop' is not supported"), ok, 'stop', 'stop');
    expect(v.verdict).toBe('rejected');
    expect(v.findings?.[0]?.code).toBe('clean_refusal');
  });

  it('calls a 4xx that does not name the parameter a dirty refusal', () => {
    const v = refusal(refused(400, 'Bad request'), ok, 'n: 2', 'n');
    expect(v.verdict).toBe('rejected');
    expect(v.findings?.[0]?.code).toBe('dirty_refusal');
  });

  it('makes a refusal inconclusive when the plain request got no answer either, or an error in a 200', () => {
    expect(refusal(refused(400, 'stop'), refused(400, 'stop'), 'stop', 'stop').verdict).toBe('inconclusive');
    expect(refusal(refused(400, 'stop'), errorIn200(), 'stop', 'stop').verdict).toBe('inconclusive');
  });

  it('calls a 5xx twice that names the feature a dirty refusal with a conformance finding (llama.cpp, no mmproj)', () => {
    const msg = 'image input is not supported - hint: if this is unexpected, you may need to provide the mmproj';
    const v = refusal(refused(500, msg, { firstTry: { status: 500 } }), ok, 'an image part', ['image', 'mmproj']);
    expect(v.verdict).toBe('rejected');
    expect(v.findings?.map((f) => f.code)).toEqual(['dirty_refusal', 'server_error_for_client_error']);
  });

  it('calls a 5xx an error when it came once, or does not name the feature', () => {
    expect(refusal(refused(500, 'image input is not supported'), ok, 'an image part', ['image']).verdict).toBe('error');
    expect(refusal(refused(500, 'upstream timed out', { firstTry: { status: 500 } }), ok, 'an image part', ['image']).verdict).toBe('error');
  });

  it('never rejects a feature for a refusal of the output limit chatprobe adds', () => {
    const v = refusal(refused(400, "Unsupported parameter: 'max_completion_tokens'", { param: 'max_completion_tokens' }), ok, 'stop', 'stop');
    expect(v.verdict).toBe('inconclusive');
    // …but the limit's own probe is rejected by it, even when the message names the other key too.
    const own = refusal(refused(400, "'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."), ok, 'max_tokens: 5', 'max_tokens');
    expect(own.verdict).toBe('rejected');
  });

  it('calls rate limits and timeouts errors', () => {
    expect(refusal(refused(429, 'Rate limit reached'), ok, 'stop', 'stop').verdict).toBe('error');
    expect(refusal(timedOut(), ok, 'stop', 'stop').verdict).toBe('error');
  });
});

describe('acceptance', () => {
  it.each([
    ['an answer', reply('OK'), 'accepted'],
    ['an empty content (a reasoning model under a small limit)', reply('', { finish: 'length' }), 'accepted'],
    ['an answer streamed unasked', raw(200, 'data: {"choices":[]}\n\ndata: [DONE]\n\n', 'text/event-stream'), 'accepted'],
    ['a 200 with an error body', errorIn200(), 'inconclusive'],
    ['a 400', refused(400, 'user is not allowed'), 'rejected'],
    ['a 500', refused(500, 'boom'), 'error'],
  ])('%s', (_, x, verdict) => {
    expect(judgeAcceptance(x, ok, 'user: "chatprobe"', 'user').verdict).toBe(verdict);
  });
});

describe('the output limit every request carries (rule 7)', () => {
  it('sends a model’s requests with the model first, then the probe’s fields in order, and a renamed limit last', async () => {
    const sent: string[] = [];
    // A call log that records each body as it would go on the wire; the first request refuses max_tokens.
    const log = {
      send: (req: HttpRequest) => (sent.push(JSON.stringify(req.body)), Promise.resolve(sent.length === 1 ? refused(400, "Unsupported parameter: 'max_tokens'", { param: 'max_tokens' }) : reply('OK'))),
      stream: (req: HttpRequest) => (sent.push(JSON.stringify(req.body)), Promise.resolve(reply('OK'))),
    } as unknown as CallLog;
    const caller = new ModelCaller(log, 'm');
    await caller.chat({ messages: [], max_tokens: 5, temperature: 0 }, 'p');
    await caller.stream({ messages: [], max_tokens: 5, temperature: 0 }, 'p');
    await caller.chat({ messages: [], max_tokens: 5, temperature: 0 }, 'p', { raw: true });
    expect(sent).toEqual([
      '{"model":"m","messages":[],"max_tokens":5,"temperature":0}',
      '{"model":"m","messages":[],"temperature":0,"max_completion_tokens":5}',
      '{"model":"m","messages":[],"temperature":0,"stream":true,"max_completion_tokens":5}',
      '{"model":"m","messages":[],"max_tokens":5,"temperature":0}',
    ]);
  });

  it('is checked, and renamed for models that refuse max_tokens', () => {
    expect(hasLimit({ messages: [], max_tokens: 5 })).toBe(true);
    expect(hasLimit({ messages: [], max_completion_tokens: 5 })).toBe(true);
    expect(hasLimit({ messages: [] })).toBe(false);
    expect(renameLimit({ messages: [], max_tokens: 5, stop: ['x'] })).toEqual({ messages: [], max_completion_tokens: 5, stop: ['x'] });
    // As sent: the renamed limit last, and the value sent as max_tokens kept when both keys were given.
    expect(JSON.stringify(renameLimit({ messages: [], max_tokens: 5, temperature: 0 }))).toBe('{"messages":[],"temperature":0,"max_completion_tokens":5}');
    expect(JSON.stringify(renameLimit({ messages: [], max_tokens: 5, max_completion_tokens: 9 }))).toBe('{"messages":[],"max_completion_tokens":5}');
    expect(refusesKey(refused(400, "Unsupported parameter: 'max_tokens' is not supported with this model."), 'max_tokens')).toBe(true);
    expect(refusesKey(refused(400, 'stop is not supported'), 'max_tokens')).toBe(false);
    expect(refusesKey(refused(503, 'max_tokens'), 'max_tokens')).toBe(false);
  });
});
