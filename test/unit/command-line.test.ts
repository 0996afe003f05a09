import { describe, expect, it } from 'vitest';
import { readCommandLine } from '../../src/cli/command-line.js';

/** What the line says is wrong with it, or undefined. */
const problem = (argv: string[]) => readCommandLine(argv).problem;
/** The values read from a line that has no problem. */
const values = (argv: string[]) => {
  const line = readCommandLine(argv);
  expect(line.problem, argv.join(' ')).toBeUndefined();
  return line.values;
};

describe('the command line', () => {
  it('is read by the command the first argument names, else the audit', () => {
    expect(readCommandLine(['doctor', '--json']).command.name).toBe('doctor');
    expect(readCommandLine(['--json']).command.name).toBe('audit');
    expect(readCommandLine(['audit', '--json'])).toMatchObject({ named: true, problem: undefined });
    // A command's name later on the line is not one.
    expect(problem(['--out', 'r', 'doctor'])).toBe('unknown argument: doctor');
  });

  it('types each value by its declaration, under the camelCase keys the commands and the config file use', () => {
    expect(values(['--json', '--timeout', '0.5', '--baseline=b.json', '--base-url', 'http://h/v1'])).toEqual({ json: true, timeout: 0.5, baseline: 'b.json', baseUrl: ['http://h/v1'] });
    expect(values(['--concurrency=4', '--shard', '1/2', '--dry-run'])).toEqual({ concurrency: 4, shard: '1/2', dryRun: true });
    // The camelCase spelling is the same flag.
    expect(values(['--baseUrl', 'http://h/v1', '--apiKeyEnv', 'K'])).toEqual({ baseUrl: ['http://h/v1'], apiKeyEnv: 'K' });
    // --base-url takes several endpoints, repeated or in a row.
    expect(values(['--base-url', 'http://a/v1', '--baseUrl', 'http://b/v1'])).toEqual({ baseUrl: ['http://a/v1', 'http://b/v1'] });
    // A command's declared defaults are applied; the audit's are not (the schema applies them after the config file).
    expect(values(['serve'])).toEqual({ profile: 'default', port: 0, host: '127.0.0.1' });
    expect(values(['serve', '--port', '0', '--host', '::1'])).toEqual({ profile: 'default', port: 0, host: '::1' });
    expect(values([])).toEqual({});
  });

  it('takes a list flag repeated, or with several words after it, and positionals in their order', () => {
    expect(values(['--models', 'a', '--models', 'b'])).toEqual({ models: ['a', 'b'] });
    expect(values(['--models', 'a', 'b', '--json'])).toEqual({ models: ['a', 'b'], json: true });
    expect(values(['--models=a,b', 'c'])).toEqual({ models: ['a,b', 'c'] });
    expect(values(['--header', 'A: 1', '--header=B: 2', 'C: 3'])).toEqual({ header: ['A: 1', 'B: 2', 'C: 3'] });
    expect(values(['merge', 'a', '--json', 'b', '--out', 'x'])).toEqual({ dirs: ['a', 'b'], json: true, out: 'x', quiet: false });
    expect(values(['compare', 'a', 'b'])).toMatchObject({ a: 'a', b: 'b' });
    expect(values(['repro', 'r', 'm', 'p'])).toMatchObject({ report: 'r', model: 'm', probe: 'p' });
    expect(values(['passthrough', '--upstream', 'http://u', '--models', 'm'])).toEqual({ upstream: 'http://u', models: ['m'] });
  });

  it('reads a switch alone, as --no-NAME, or with =true / =false; the last one given counts', () => {
    expect(values(['--no-billing'])).toEqual({ billing: false });
    expect(values(['--billing=false', '--strict=true'])).toEqual({ billing: false, strict: true });
    expect(values(['--json', 'false'])).toEqual({ json: false });
    expect(values(['--json', '--no-json'])).toEqual({ json: false });
    expect(values(['--no-quiet', '--quiet', '--quiet'])).toEqual({ quiet: true });
    expect(problem(['--json=yes'])).toBe('invalid --json "yes": expected no value, true or false');
    // Only a switch has a --no- form.
    expect(problem(['--no-models'])).toBe('unknown argument: --no-models');
    expect(problem(['demo', '--no-profile'])).toBe('unknown argument: --no-profile');
  });

  it('ends the flags at --: what follows is a positional, never a flag, and the audit takes none', () => {
    expect(values(['merge', '--', '-d', '--help'])).toMatchObject({ dirs: ['-d', '--help'] });
    expect(values(['merge', 'a', '--', 'b'])).toMatchObject({ dirs: ['a', 'b'] });
    expect(problem(['--base-url', 'http://h/v1', '--', '--json'])).toBe('unknown argument: --json');
    expect(problem(['--models', 'a', '--', 'b'])).toBe('unknown argument: b');
  });

  it('refuses a value flag without its value, and a one-value flag given twice; lists and switches as they are', () => {
    expect(problem(['--baseline'])).toBe('--baseline was given without a value');
    expect(problem(['--timeout'])).toBe('--timeout was given without a value');
    expect(problem(['--timeout='])).toBe('--timeout was given without a value');
    expect(problem(['--timeout', '--json'])).toBe('--timeout was given without a value');
    expect(problem(['--baseline', '-x'])).toBe('--baseline was given without a value');
    expect(problem(['--header', ''])).toBe('--header was given without a value');
    expect(problem(['--out', ' '])).toBe('--out was given without a value');
    expect(problem(['--api-key-env', 'A', '--apiKeyEnv', 'B'])).toBe('--api-key-env was given more than once (it takes one value)');
    expect(problem(['--out', 'a', '--out'])).toBe('--out was given more than once (it takes one value)');
    // A flag with a default gets no default when it is given without its value.
    expect(problem(['serve', '--port'])).toBe('--port was given without a value');
    expect(problem(['serve', '--host', '--port', '8080'])).toBe('--host was given without a value');
    expect(problem(['serve', '--port', ''])).toBe('--port was given without a value');
    expect(problem(['serve', '--port', '8080', '--port', '8081'])).toBe('--port was given more than once (it takes one value)');
    // A list with an empty piece (`--models a "$UNSET"`).
    expect(problem(['--models', 'a', ''])).toBe('--models was given without a value');
    expect(problem(['--models'])).toBe('--models was given without a value');
    expect(problem(['passthrough', '--upstream', '--models', 'm'])).toBe('--upstream was given without a value');
    // A negative number is a value.
    expect(values(['--shard', '-5', '--models', '-5'])).toEqual({ shard: '-5', models: ['-5'] });
  });

  it('refuses a number that is not one, or out of its range, quoting it as typed', () => {
    expect(problem(['--concurrency', 'abc'])).toBe('invalid --concurrency "abc": expected a whole number from 1 to 64');
    expect(problem(['--timeout', '-1'])).toBe('invalid --timeout -1: expected a number above 0, at most 3600');
    expect(problem(['--timeout=1e400'])).toBe('invalid --timeout "1e400": expected a number above 0, at most 3600');
    expect(problem(['--samples', '2.5'])).toBe('invalid --samples 2.5: expected a whole number from 2 to 16');
    expect(problem(['serve', '--port', '65536'])).toBe('invalid --port 65536: expected a whole number from 0 to 65535');
    expect(problem(['--rpm', 'NaN'])).toBe('invalid --rpm "NaN": expected a number of at least 0.001');
    expect(values(['--concurrency', ' 5 '])).toEqual({ concurrency: 5 });
  });

  it('names each unknown argument once, as typed, and never the word after an unknown flag (it may be a key)', () => {
    expect(problem(['--bogus-flag'])).toBe('unknown argument: --bogus-flag');
    expect(problem(['--a-b', '--c-d=1'])).toBe('unknown arguments: --a-b, --c-d');
    expect(problem(['--fooBar', '1'])).toBe('unknown argument: --fooBar');
    expect(problem(['frobnicate'])).toBe('unknown argument: frobnicate');
    expect(problem(['--no-bogus'])).toBe('unknown argument: --no-bogus');
    expect(problem(['-zq'])).toBe('unknown arguments: -z, -q');
    expect(problem(['--api-key', 'sk-abcdef123456'])).toBe('unknown argument: --api-key');
    expect(problem(['--api-key=sk-abcdef123456'])).toBe('unknown argument: --api-key');
    expect(problem(['--bogus', 'a', 'b'])).toBe('unknown arguments: --bogus, b');
    expect(problem(['compare', 'a', 'b', 'c'])).toBe('unknown argument: c');
    expect(problem(['probes', '--json', 'extra'])).toBe('unknown argument: extra');
    expect(problem(['--strict', '1'])).toBe('unknown argument: 1');
  });

  it('says the first problem on the line, then what is missing from it', () => {
    expect(problem(['--bogus', '--concurrency', 'abc'])).toBe('unknown argument: --bogus');
    expect(problem(['--concurrency', 'abc', '--bogus'])).toBe('invalid --concurrency "abc": expected a whole number from 1 to 64');
    expect(problem(['passthrough', '--upstrem', 'http://u'])).toBe('unknown argument: --upstrem');
    expect(problem(['passthrough'])).toBe('missing required flag: --upstream');
    expect(problem(['merge'])).toBe('missing argument: <dirs..>');
    expect(problem(['compare'])).toBe('missing arguments: <a>, <b>');
    expect(problem(['compare', 'a'])).toBe('missing argument: <b>');
  });

  it('keeps every value of a one-value flag given twice, for the secrets to hide in the message', () => {
    expect(readCommandLine(['--api-key-env', 'A', '--api-key-env', 'B']).values.apiKeyEnv).toEqual(['A', 'B']);
  });
});
