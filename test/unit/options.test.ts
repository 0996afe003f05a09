import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/config/options.js';
import { CannotTestError } from '../../src/errors.js';
import { tempDir } from '../helpers/tmp.js';

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

  it('splits comma lists and removes repeats; an empty list is every model (the library’s default)', () => {
    expect(resolve({ baseUrl: 'http://h/v1', models: ['a,b', 'b', ' c '] }).models).toEqual(['a', 'b', 'c']);
    expect(resolve({ baseUrl: 'http://h/v1', models: [] }).models).toEqual([]);
  });

  it('refuses an empty baseline or output path (a config templated from an unset variable), and never echoes a bad key variable name', () => {
    expect(() => resolve({ baseUrl: 'http://h/v1', baseline: '' })).toThrow('invalid --baseline: empty');
    expect(() => resolve({ baseUrl: 'http://h/v1', out: ' ' })).toThrow('invalid --out: empty');
    expect(() => resolve({ baseUrl: 'http://h/v1', apiKeyEnv: 'sk-proj-abcdef123456' })).toThrow(/^invalid --api-key-env: not an environment variable name \(the value is not shown/);
  });

  it('parses headers, keeps secret-looking values for redaction, and refuses Authorization', () => {
    const o = resolve({ baseUrl: 'http://h/v1', header: ['X-Route: blue', 'X-Api-Key: s3cret'] });
    expect(o.headers).toEqual({ 'x-route': 'blue', 'x-api-key': 's3cret' });
    expect(o.secrets).toEqual([{ value: 's3cret', label: 'the value of --header X-Api-Key' }]);
    expect(failure({ baseUrl: 'http://h/v1', header: ['no colon'] })).toContain('expected "Name: value"');
    // A key part of the name is a secret; a word that merely ends in "key" is not (Portkey's route headers).
    const secretOf = (h: string) => resolve({ baseUrl: 'http://h/v1', header: [h] }).secrets.length === 1;
    for (const h of ['Ocp-Apim-Subscription-Key: a1b2c3d4e5', 'x-portkey-api-key: a1b2c3d4e5', 'x-portkey-virtual-key: a1b2c3d4e5', 'apikey: a1b2c3d4e5', 'x-session-auth: a1b2c3d4e5', 'cf-aig-authorization: a1b2c3d4e5', 'x-password: a1b2c3d4e5']) {
      expect(secretOf(h), h).toBe(true);
    }
    for (const h of ['x-portkey-custom-host: http://127.0.0.1:9/v1', 'x-portkey-provider: openai', 'x-route: blue']) expect(secretOf(h), h).toBe(false);
    expect(failure({ baseUrl: 'http://h/v1', header: ['Authorization: Bearer x'] })).toContain('--api-key-env');
    // Headers the client writes itself, and values that cannot be sent, are the user's mistake (exit 2), not a network failure.
    expect(failure({ baseUrl: 'http://h/v1', header: ['Content-Length: 5'] })).toContain('invalid --header "Content-Length": chatprobe\'s HTTP client sets it');
    expect(failure({ baseUrl: 'http://h/v1', header: ['Host: other'] })).toContain('invalid --header "Host"');
    const broken = failure({ baseUrl: 'http://h/v1', header: ['X-Token: s3cr3t-value\nX-Evil: 1'] });
    expect(broken).toContain('line break');
    expect(broken).not.toContain('s3cr3t');
  });

  it('bounds --max-duration and --rpm by what a timer holds (past it Node fires at once)', () => {
    expect(failure({ baseUrl: 'http://h/v1', maxDuration: 9_999_999 })).toContain('--max-duration');
    expect(failure({ baseUrl: 'http://h/v1', rpm: 0.000001 })).toContain('--rpm');
    expect(resolve({ baseUrl: 'http://h/v1', maxDuration: 2_000_000, rpm: 0.001 }).maxDurationMs).toBe(2_000_000_000);
  });

  it('takes a tier and the spending caps given, and only those', () => {
    expect(resolve({ baseUrl: 'http://h/v1' })).toMatchObject({ tier: undefined, caps: {} });
    expect(resolve({ baseUrl: 'http://h/v1', tier: 'quick', maxRequests: 40, maxTokensPerModel: 500 })).toMatchObject({ tier: 'quick', caps: { maxRequests: 40, maxTokensPerModel: 500 } });
    expect(failure({ baseUrl: 'http://h/v1', tier: 'fast' })).toContain('invalid --tier: expected one of quick, default, extended');
    expect(failure({ baseUrl: 'http://h/v1', maxRequestsPerModel: 0 })).toContain('invalid --max-requests-per-model');
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

describe('config file', () => {
  it('names the bad key and the expected type', async () => {
    const { parseConfig } = await import('../../src/config/options.js');
    expect(() => parseConfig({ concurrency: 'four' }, 'c.json')).toThrow(/invalid config c\.json: key "concurrency": expected a whole number/);
    expect(() => parseConfig({ concurency: 4 }, 'c.json')).toThrow(/unknown key "concurency"/);
    expect(() => parseConfig({ apiKey: 'sk-x' }, 'c.json')).toThrow(/read only from the environment/);
    const withSchema = parseConfig({ $schema: 'https://example.com/config.json', concurrency: 2 }, 'c.json');
    expect(withSchema).toMatchObject({ concurrency: 2 });
    expect(withSchema).not.toHaveProperty('$schema');
  });

  it('is overridden by OPENAI_BASE_URL and by flags', () => {
    const config = { baseUrl: 'http://config/v1', concurrency: 2, models: ['a'] };
    expect(resolveOptions({}, {}, config)).toMatchObject({ baseUrl: 'http://config/v1', concurrency: 2, models: ['a'] });
    expect(resolveOptions({}, { OPENAI_BASE_URL: 'http://env/v1' }, config).baseUrl).toBe('http://env/v1');
    expect(resolveOptions({ baseUrl: 'http://flag/v1', concurrency: 8 }, { OPENAI_BASE_URL: 'http://env/v1' }, config)).toMatchObject({
      baseUrl: 'http://flag/v1',
      concurrency: 8,
      models: ['a'],
    });
  });

  it('parses --shard i/n and refuses impossible shards', () => {
    expect(resolveOptions({ baseUrl: 'http://h/v1', shard: '2/3' }, {}).shard).toEqual({ index: 2, count: 3 });
    expect(failure({ baseUrl: 'http://h/v1', shard: '4/3' })).toContain('--shard');
    expect(failure({ baseUrl: 'http://h/v1', shard: 'two' })).toContain('expected i/n');
  });
});

describe('keyFlaw', () => {
  it('names whitespace a copy, echo or a file read left in the key, without the key', async () => {
    const { keyFlaw } = await import('../../src/config/options.js');
    expect(keyFlaw('sk-abc123')).toBeUndefined();
    expect(keyFlaw('sk-abc123\r\n')).toBe('ends with a line break');
    expect(keyFlaw('sk-abc123 ')).toBe('ends with whitespace');
    expect(keyFlaw('\tsk-abc123')).toBe('starts with whitespace');
    expect(keyFlaw('sk-abc\n123')).toBe('holds a line break inside it');
    expect(keyFlaw('bearer sk-abc123')).toMatch(/starts with the word "Bearer"/);
    // What "tr -d [:space:]" leaves of it.
    expect(keyFlaw('Bearersk-abc123')).toMatch(/starts with the word "Bearer"/);
    for (const k of ['sk-abc123\n', ' sk-abc123', 'Bearer sk-abc123']) expect(keyFlaw(k)).not.toContain('abc123');
  });
});

describe('--prices', () => {
  it('reads and checks the price list before anything is sent; none given, none', async () => {
    const dir = await tempDir();
    const good = join(dir, 'prices.json');
    await writeFile(good, JSON.stringify({ ModelRatio: { 'gpt-4o': 1.25 }, CompletionRatio: { 'gpt-4o': 4 } }));
    expect(resolve({ baseUrl: 'http://h/v1', prices: good }).prices).toMatchObject({ from: good, form: 'new-api ratios', models: { 'gpt-4o': { perCall: 0 } } });
    expect(resolve({ baseUrl: 'http://h/v1' }).prices).toBeUndefined();
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ models: { 'gpt-4o': { input: '2.5' } } }));
    expect(failure({ baseUrl: 'http://h/v1', prices: bad })).toMatch(/^invalid --prices .*bad\.json: models\.gpt-4o\.input: .* \| see "Price list" in the README/);
    const text = join(dir, 'text.json');
    await writeFile(text, 'input: 2.5');
    expect(failure({ baseUrl: 'http://h/v1', prices: text })).toMatch(/^invalid --prices .*text\.json: not JSON/);
    expect(failure({ baseUrl: 'http://h/v1', prices: join(dir, 'none.json') })).toMatch(/^cannot read --prices .*none\.json/);
    expect(failure({ baseUrl: 'http://h/v1', prices: ' ' })).toMatch(/^invalid --prices: empty/);
  });
});
