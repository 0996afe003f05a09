import { describe, expect, it } from 'vitest';
import { diagnose } from '../../src/engine/diagnose.js';
import { errorMember, MAX_ERROR_MESSAGE, preview, readError } from '../../src/wire/error.js';
import { assembleStream } from '../../src/wire/stream.js';
import { judgeErrorInBand } from '../../suites/streaming/error-in-band.js';
import { answerProblem, namesAny } from '../../src/engine/verdicts.js';
import { raw, refused, streamed, delta } from '../helpers/exchanges.js';

describe('readError', () => {
  const cases: [string, unknown, string, string, { message?: string; code?: string; shape: string }][] = [
    ['OpenAI envelope', { error: { message: 'bad', type: 'invalid_request_error', code: 'x' } }, '', 'application/json', { message: 'bad', code: 'x', shape: 'openai' }],
    ['numeric code', { error: { message: 'bad', code: 400 } }, '', 'application/json', { message: 'bad', code: '400', shape: 'openai' }],
    ['error string', { error: 'nope' }, '', 'application/json', { message: 'nope', shape: 'error_string' }],
    ['FastAPI detail', { detail: [{ msg: 'field required' }, { msg: 'extra' }] }, '', 'application/json', { message: 'field required; extra', shape: 'fastapi' }],
    ['old vLLM top level', { object: 'error', message: 'boom', code: 400 }, '', 'application/json', { message: 'boom', code: '400', shape: 'top_level' }],
    ['Gemini array', [{ error: { message: 'arr', code: 400, status: 'INVALID_ARGUMENT' } }], '', 'application/json', { message: 'arr', code: '400', shape: 'array' }],
  ];
  it.each(cases)('reads %s', (_name, json, _t, ct, want) => {
    const text = JSON.stringify(json);
    expect(readError(json, text, ct)).toMatchObject(want);
  });

  it('reads HTML by its title and plain text as it is', () => {
    expect(readError(undefined, '<html><title>502 Bad Gateway</title></html>', 'text/html')).toEqual({ message: '502 Bad Gateway', code: undefined, shape: 'html' });
    expect(readError(undefined, 'Internal Server Error', 'text/plain')).toEqual({ message: 'Internal Server Error', code: undefined, shape: 'text' });
    expect(readError(undefined, '', '')).toMatchObject({ shape: 'empty' });
  });
});

describe('readError: every shape real servers send', () => {
  const read = (body: unknown, contentType = 'application/json') => readError(body, JSON.stringify(body), contentType);

  it('reads the OpenAI envelope for its message, code, param and a numeric code as the status it states', () => {
    expect(read({ error: { message: "Unsupported parameter: 'max_tokens'", type: 'invalid_request_error', param: 'max_tokens', code: 'unsupported_parameter' } })).toEqual({
      message: "Unsupported parameter: 'max_tokens'",
      code: 'unsupported_parameter',
      param: 'max_tokens',
      status: undefined,
      shape: 'openai',
    });
    // Google's envelope: the HTTP status in `code`, a word in `status`.
    expect(read({ error: { code: 400, message: 'Invalid value', status: 'INVALID_ARGUMENT' } })).toMatchObject({ message: 'Invalid value', code: '400', status: 400, shape: 'openai' });
    // Anthropic's: the kind in `type`.
    expect(read({ type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: too large' } })).toMatchObject({ message: 'max_tokens: too large', code: 'invalid_request_error', shape: 'openai' });
  });

  it('reads a Node gateway\'s {error: reason phrase, message} for the message, and vLLM\'s {error} alone', () => {
    const body = { error: 'Internal Server Error', message: 'OpenAI API Error (500): image input is not supported', statusCode: 500 };
    expect(read(body)).toMatchObject({ message: body.message, status: 500, shape: 'error_string' });
    expect(read({ error: 'The model does not support tools' })).toMatchObject({ message: 'The model does not support tools', shape: 'error_string' });
  });

  it('reads FastAPI: a detail string, and pydantic\'s list with the field in loc', () => {
    expect(read({ detail: 'Not Found' })).toMatchObject({ message: 'Not Found', shape: 'fastapi' });
    expect(read({ detail: [{ loc: ['body', 'temperature'], msg: 'Input should be less than or equal to 2', type: 'less_than_equal' }] })).toMatchObject({
      message: 'Input should be less than or equal to 2',
      code: 'less_than_equal',
      param: 'temperature',
      shape: 'fastapi',
    });
  });

  it('reads {message, code} at the top level, Chinese APIs\' msg, and a status_code beside it', () => {
    expect(read({ message: 'rate limited', code: 'too_many', status_code: 429 })).toMatchObject({ message: 'rate limited', code: 'too_many', status: 429, shape: 'top_level' });
    expect(read({ code: 400, msg: '参数错误: temperature', data: null })).toMatchObject({ message: '参数错误: temperature', code: '400', status: 400, shape: 'top_level' });
    // Laravel: a generic message, the field in `errors`.
    expect(read({ message: 'The given data was invalid.', errors: { temperature: ['must be at most 2'] } }).message).toBe('The given data was invalid.: {"temperature":["must be at most 2"]}');
  });

  it('reads {errors: [...]} of objects or strings, and Google\'s array of errors', () => {
    expect(read({ success: false, errors: [{ code: 7003, message: 'No route for that URI' }], result: null })).toMatchObject({ message: 'No route for that URI', code: '7003', shape: 'errors_list' });
    expect(read({ errors: ['n must be 1', 'stop is too long'] })).toMatchObject({ message: 'n must be 1; stop is too long', shape: 'errors_list' });
    expect(read({ errors: [{ message: 'is invalid', field: 'temperature' }] })).toMatchObject({ message: 'is invalid', param: 'temperature', shape: 'errors_list' });
    expect(read([{ error: { code: 400, message: 'first', status: 'INVALID_ARGUMENT' } }, { error: { message: 'second' } }])).toMatchObject({ message: 'first; second', code: '400', status: 400, shape: 'array' });
  });

  it('keeps what OpenRouter\'s provider said (metadata.raw) beside "Provider returned error"', () => {
    const inner = { error: { message: 'image input is not supported', param: 'messages' } };
    const body = { error: { message: 'Provider returned error', code: 400, metadata: { raw: JSON.stringify(inner), provider_name: 'Groq' } } };
    expect(read(body)).toMatchObject({ message: 'Provider returned error (Groq: image input is not supported)', param: 'messages', status: 400, shape: 'openai' });
    // Raw text that is not JSON is kept as it is.
    expect(read({ error: { message: 'Provider returned error', metadata: { raw: 'upstream said: logprobs unsupported' } } }).message).toBe('Provider returned error (upstream said: logprobs unsupported)');
  });

  it('reads plain text as it is, HTML by its title (or first heading), and an empty body as empty', () => {
    expect(readError(undefined, '  upstream connect error\n', 'text/plain')).toMatchObject({ message: 'upstream connect error', shape: 'text' });
    expect(readError(undefined, '<!DOCTYPE html><html><head><title lang="en">503 Service Unavailable</title></head></html>', '')).toMatchObject({ message: '503 Service Unavailable', shape: 'html' });
    expect(readError(undefined, '<html><body><h1>Bad Gateway</h1></body></html>', 'text/html')).toMatchObject({ message: 'Bad Gateway', shape: 'html' });
    expect(readError(undefined, '<html><body>nothing</body></html>', 'text/html')).toMatchObject({ message: 'an HTML page', shape: 'html' });
    expect(readError(undefined, ' \n ', 'application/json')).toMatchObject({ message: undefined, shape: 'empty' });
  });

  it('reads JSON of no known shape as its text, cut', () => {
    const body = { status: 'failed', reason: 'x'.repeat(1000) };
    const e = readError(body, JSON.stringify(body), 'application/json');
    expect(e.shape).toBe('json_other');
    expect(e.message!.length).toBeLessThan(400);
    expect(e.message).toMatch(/cut by chatprobe\]$/);
  });
});

describe('readError: the traps', () => {
  it('finds no error in a success body whose "error" is null, in a 2xx or in a stream chunk', () => {
    const ok = { id: 'c1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }], error: null };
    expect(errorMember(ok)).toBeUndefined();
    expect(answerProblem(raw(200, JSON.stringify(ok)))).toBeUndefined();
    // A stream whose every chunk carries "error": null finished without an error event.
    const chunk = (d: Record<string, unknown>, finish: string | null = null) => ({ ...delta(d, finish), error: null });
    const s = streamed([chunk({ role: 'assistant', content: '' }), chunk({ content: 'Hi' }), chunk({}, 'stop')]);
    expect(s.assembled!.errors).toEqual([]);
    expect(judgeErrorInBand(s).verdict).toBe('pass');
  });

  it('reads a message that is not a string: a number written out, an object shown bounded, true as no message', () => {
    expect(readError({ error: { message: 404 } }).message).toBe('404');
    expect(readError({ error: { message: { text: 'bad temperature' } } }).message).toBe('{"text":"bad temperature"}');
    expect(readError({ error: { message: ['n is not supported', 'use 1'] } }).message).toBe('n is not supported; use 1');
    expect(readError({ error: { message: true, code: 'x' } })).toMatchObject({ message: 'true', code: 'x', shape: 'openai' });
    expect(readError({ error: { code: 500 } })).toMatchObject({ message: undefined, status: 500, shape: 'openai' });
  });

  it('cuts a huge message to its bound, the cut said as ours', () => {
    const message = `temperature ${'y'.repeat(5_000_000)}`;
    const e = readError({ error: { message } });
    expect(e.message!.length).toBeLessThan(MAX_ERROR_MESSAGE + 100);
    expect(e.message).toMatch(/^temperature y+… \[\d+ more characters cut by chatprobe\]$/);
  });

  it('finds a message nested in wrappers a gateway added, and stops descending at its bound', () => {
    expect(readError({ error: { error: { error: { message: 'max_tokens is too large' } } } }).message).toBe('max_tokens is too large');
    expect(readError({ detail: { error: { message: 'logit_bias is not supported' } } }).message).toBe('logit_bias is not supported');
    // A million wrappers: read to its bound, no stack overflow, and no message made up.
    let deep: unknown = { message: 'unreachable' };
    for (let i = 0; i < 1_000_000; i++) deep = { error: deep };
    const e = readError({ error: deep });
    expect(e.shape).toBe('openai');
    expect(e.message).toBeUndefined();
  });

  it('keeps the rules that read an error working through it: a refusal names the parameter from any shape', () => {
    expect(namesAny(refused(400, '', { body: { error: 'Internal Server Error', message: 'logprobs is not supported' } }), ['logprobs'])).toBe(true);
    expect(namesAny(refused(422, '', { body: { detail: [{ loc: ['body', 'seed'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }] } }), ['seed'])).toBe(true);
    expect(namesAny(refused(400, '', { body: { errors: [{ message: 'stop: too many sequences' }] } }), ['stop'])).toBe(true);
    const routed = { error: { message: 'Provider returned error', code: 400, metadata: { raw: '{"error":{"message":"tools are not supported"}}' } } };
    expect(namesAny(refused(400, '', { body: routed }), ['tools'])).toBe(true);
  });

  it('says the message and the status an error in a 2xx states', () => {
    const x = raw(200, JSON.stringify({ error: 'Internal Server Error', message: 'upstream timed out', status_code: 504 }));
    expect(answerProblem(x)).toBe('HTTP 200 with an error body: "upstream timed out" (the 2xx body carries an "error" member, status 504 in the body)');
  });

  it('reads an in-band stream error for its message, not the raw object', () => {
    const s = assembleStream([{ at: 1, data: JSON.stringify({ error: { message: 'upstream failed', code: 502, detail: 'x'.repeat(100_000) } }) }] as never);
    expect(s.errors).toEqual([{ message: 'upstream failed', code: '502', param: undefined, status: 502, shape: 'openai' }]);
    const v = judgeErrorInBand(streamed([delta({ content: 'Hi' }), { error: { message: 'upstream failed', code: 502 } }, delta({}, 'stop')]));
    expect(v.verdict).toBe('fail');
    expect(v.observed).toBe('an error inside the stream after 200: "upstream failed" (status 502 in the event)');
  });

  it('previews any value bounded, however deep or wide', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(preview(deep)).toBe('[[[[[…]]]]]');
    const wide = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]));
    expect(preview(wide).length).toBeLessThanOrEqual(300 + 30);
  });
});

describe('diagnose', () => {
  const d = (status: number | undefined, message?: string, code?: string) => diagnose({ status, message, code });
  it('maps statuses and real wordings to causes', () => {
    expect(d(401, 'Incorrect API key provided')).toBe('auth');
    expect(d(403, '无效的令牌')).toBe('auth');
    expect(d(402, 'Insufficient credits')).toBe('quota');
    expect(d(403, '用户额度不足', 'insufficient_user_quota')).toBe('quota');
    expect(d(429, 'You exceeded your current quota', 'insufficient_quota')).toBe('quota');
    expect(d(503, '当前分组 default 下对于模型 x 无可用渠道')).toBe('model_not_in_group');
    expect(d(403, '该令牌无权使用模型：gpt-4')).toBe('model_not_in_group');
    expect(d(404, 'The model `x` does not exist', 'model_not_found')).toBe('model_not_in_group');
    expect(d(429, 'Rate limit reached')).toBe('rate_limited');
    expect(d(500, 'boom')).toBe('upstream');
    expect(d(502, undefined)).toBe('upstream');
  });

  it('recognises new-api and one-api wordings', () => {
    expect(d(401, '无效的令牌', 'invalid_token')).toBe('auth');
    expect(d(401, '未提供令牌')).toBe('auth');
    expect(d(403, '该令牌无权使用模型：claude-opus', '')).toBe('model_not_in_group');
    expect(d(503, '当前分组 vip 下对于模型 gemini-pro 无可用渠道', 'model_not_found')).toBe('model_not_in_group');
    expect(d(503, 'No available channel for model x under group default', 'model_not_found')).toBe('model_not_in_group');
    expect(d(403, '用户额度不足, 剩余额度: $0.000000', 'insufficient_user_quota')).toBe('quota');
    expect(d(403, 'pre-consume quota failed', 'pre_consume_token_quota_failed')).toBe('quota');
    expect(d(429, '当前分组上游负载已饱和，请稍后再试')).toBe('rate_limited');
    expect(d(502, 'upstream error: do request failed', 'do_request_failed')).toBe('upstream');
  });

  it('does not blame the group for a 404 that is about the path', () => {
    expect(d(404, '404 page not found')).toBeUndefined();
    expect(d(404, 'Not Found')).toBeUndefined();
  });

  it('leaves client errors attributable to the request', () => {
    expect(d(400, "Unsupported parameter: 'max_tokens'")).toBeUndefined();
    expect(d(422, 'extra_forbidden')).toBeUndefined();
    expect(d(200)).toBeUndefined();
  });

  it('maps transport failures to their own causes', () => {
    expect(diagnose({ status: undefined, message: 'x', code: undefined, transport: { code: 'timeout' } })).toBe('timeout');
    expect(diagnose({ status: 200, message: 'x', code: undefined, transport: { code: 'network' } })).toBe('network');
  });
});
