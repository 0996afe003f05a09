import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/config/options.js';
import { CannotTestError } from '../../src/engine/errors.js';

const resolve = (flags: Record<string, unknown>, env: Record<string, string> = {}) => resolveOptions(flags, env);
const failure = (flags: Record<string, unknown>, env: Record<string, string> = {}) => {
  try {
    resolve(flags, env);
  } catch (e) {
    expect(e).toBeInstanceOf(CannotTestError);
    return `${(e as CannotTestError).message} | ${(e as CannotTestError).advice ?? ''}`;
  }
  throw new Error('expected a CannotTestError');
};

describe('resolveOptions', () => {
  it('applies defaults and reads the key from the named variable', () => {
    const o = resolve({ baseUrl: 'https://host/v1/' }, { OPENAI_API_KEY: 'k1', OTHER: 'k2' });
    expect(o).toMatchObject({ baseUrl: 'https://host/v1', apiKey: 'k1', out: 'reports', concurrency: 4, timeoutMs: 60_000, models: [], probes: [] });
    expect(resolve({ baseUrl: 'https://host/v1', apiKeyEnv: 'OTHER' }, { OTHER: 'k2' }).apiKey).toBe('k2');
  });

  it('takes the base URL from OPENAI_BASE_URL when no flag is given', () => {
    expect(resolve({}, { OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1' }).baseUrl).toBe('http://127.0.0.1:8000/v1');
  });

  it('splits comma lists and removes repeats', () => {
    expect(resolve({ baseUrl: 'http://h/v1', models: ['a,b', 'b', ' c '] }).models).toEqual(['a', 'b', 'c']);
  });

  it('parses headers, keeps secret-looking values for redaction, and refuses Authorization', () => {
    const o = resolve({ baseUrl: 'http://h/v1', header: ['X-Route: blue', 'X-Api-Key: s3cret'] });
    expect(o.headers).toEqual({ 'x-route': 'blue', 'x-api-key': 's3cret' });
    expect(o.secrets).toEqual(['s3cret']);
    expect(failure({ baseUrl: 'http://h/v1', header: ['no colon'] })).toContain('expected "Name: value"');
    expect(failure({ baseUrl: 'http://h/v1', header: ['Authorization: Bearer x'] })).toContain('--api-key-env');
  });

  it('explains bad base URLs', () => {
    expect(failure({})).toContain('no base URL');
    expect(failure({ baseUrl: 'not a url' })).toContain('invalid base URL');
    expect(failure({ baseUrl: 'ftp://h/v1' })).toContain('not http or https');
    expect(failure({ baseUrl: 'https://h/v1/chat/completions' })).toContain('ends in /completions');
    expect(failure({ baseUrl: 'https://user:pw@h/v1' })).toContain('credentials');
    expect(failure({ baseUrl: 'https://h/v1?x=1' })).toContain('query');
  });

  it('names the bad flag and the rule it breaks', () => {
    expect(failure({ baseUrl: 'http://h/v1', concurrency: 0 })).toContain('--concurrency');
    expect(failure({ baseUrl: 'http://h/v1', timeout: -1 })).toContain('--timeout');
    expect(failure({ baseUrl: 'http://h/v1', apiKeyEnv: 'sk-abc' })).toContain('not an environment variable name');
  });
});
