import { describe, expect, it } from 'vitest';
import { diagnose } from '../../src/engine/diagnose.js';
import { readError } from '../../src/engine/exchange.js';

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

describe('diagnose', () => {
  const d = (status: number | undefined, message?: string, code?: string) => diagnose({ status, message, code });
  it('maps statuses and real wordings to causes in the spec order', () => {
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
