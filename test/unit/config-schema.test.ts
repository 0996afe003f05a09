import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { AuditFlags, parseConfig, resolveOptions } from '../../src/config/options.js';
import { configJsonSchema, CONFIG_SCHEMA_URL } from '../../src/config/schema.js';
import { ROOT } from '../helpers/cli.js';

const shipped = JSON.parse(readFileSync(`${ROOT}schema/config.schema.json`, 'utf8')) as Record<string, unknown>;
const validate = new Ajv2020({ strict: false }).compile(shipped);

/** The config example the README shows (the one fenced JSON block that has a baseUrl). */
const readmeExample = (): Record<string, unknown> => {
  const readme = readFileSync(`${ROOT}README.md`, 'utf8');
  const block = [...readme.matchAll(/```json\n(\{[^\n]*"baseUrl"[^\n]*\})\n```/g)].map((m) => m[1]!);
  expect(block).toHaveLength(1);
  return JSON.parse(block[0]!) as Record<string, unknown>;
};

describe('config.schema.json', () => {
  it('is shipped as generated from the zod schema the file is validated with (run npm run schema after changing the options)', () => {
    expect(shipped).toEqual(configJsonSchema());
    expect(shipped.$id).toBe(CONFIG_SCHEMA_URL);
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('schema');
    // Every option a flag has, the file has.
    expect(Object.keys(shipped.properties as object)).toEqual(expect.arrayContaining(Object.keys(AuditFlags.shape)));
  });

  it("accepts the README's example, which points $schema at it, and chatprobe reads that example", () => {
    const example = readmeExample();
    expect(example.$schema).toBe(CONFIG_SCHEMA_URL);
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
    expect(parseConfig(example, 'chatprobe.config.json')).toMatchObject({ models: ['gpt-4o*', 'claude-*'], concurrency: 2 });
  });

  it('agrees with chatprobe on what it refuses: an unknown key, a number out of range, a string where a number goes', () => {
    for (const bad of [{ concurency: 2 }, { concurrency: 0 }, { timeout: '30' }, { models: [1] }]) {
      expect(validate(bad), JSON.stringify(bad)).toBe(false);
      expect(() => parseConfig(bad, 'c.json'), JSON.stringify(bad)).toThrow(/invalid config c\.json/);
    }
  });
});

describe('config values take what the flags take', () => {
  it('a list option as one string, separated by commas or spaces, as --models a,b and --models a b', () => {
    for (const models of ['a,b', 'a b', 'a, b', ['a,b'], ['a', 'b']]) {
      const config = { models };
      expect(validate(config), JSON.stringify(config)).toBe(true);
      expect(resolveOptions({ baseUrl: 'http://h/v1' }, {}, parseConfig(config, 'c.json')).models, JSON.stringify(config)).toEqual(['a', 'b']);
    }
    // A header is one header, whatever it holds.
    const header = resolveOptions({ baseUrl: 'http://h/v1' }, {}, parseConfig({ header: 'X-Route: a, b' }, 'c.json')).headers;
    expect(header).toEqual({ 'x-route': 'a, b' });
  });

  it('a bad value is said in our words: the key, what it takes, what it got', () => {
    const message = (raw: unknown) => {
      try {
        parseConfig(raw, 'c.json');
      } catch (e) {
        return (e as Error).message;
      }
      return 'accepted';
    };
    expect(message({ concurrency: 'four' })).toBe('invalid config c.json: key "concurrency": expected a whole number from 1 to 64, got a string');
    expect(message({ timeout: 5000 })).toBe('invalid config c.json: key "timeout": expected a number above 0, at most 3600, got 5000');
    expect(message({ timeout: '30' })).toBe('invalid config c.json: key "timeout": expected a number above 0, at most 3600, got the string "30"');
    expect(message({ billing: 'no' })).toBe('invalid config c.json: key "billing": expected true or false, got a string');
    // A string is never shown: a key pasted in the wrong place is the likeliest one.
    expect(message({ apiKeyEnv: ['sk-secret-value'] })).toBe('invalid config c.json: key "apiKeyEnv": expected a string, got a list');
    expect(message({ baseUrl: [7] })).toBe('invalid config c.json: key "baseUrl": expected a list of strings, or one string, got a list');
  });
});

describe('a config file that cannot be read', () => {
  it('is said in our words, not Node\'s or V8\'s', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { loadConfig } = await import('../../src/config/file.js');
    const dir = mkdtempSync(`${tmpdir()}/chatprobe-config-`);
    const message = (path: string) => {
      try {
        loadConfig(path);
      } catch (e) {
        return (e as Error).message;
      }
      return 'read';
    };
    writeFileSync(`${dir}/bad.json`, '{\n "models": [gpt-4o]\n}\n');
    writeFileSync(`${dir}/empty.json`, '');
    expect(message(`${dir}/bad.json`)).toBe(`invalid config ${dir}/bad.json: not JSON (check it with a JSON linter: keys and strings in double quotes, no trailing commas)`);
    expect(message(`${dir}/empty.json`)).toBe(`invalid config ${dir}/empty.json: not JSON (the file is empty)`);
    expect(message(`${dir}/none.json`)).toBe(`cannot read config ${dir}/none.json: no such file`);
    expect(message(dir)).toBe(`cannot read config ${dir}: it is a folder`);
  });
});
