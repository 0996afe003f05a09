import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { runCli } from '../helpers/cli.js';

/**
 * Every number flag of every command, given a value it cannot take: the CLI says so in its own words
 * (the flag, the value as typed, what it takes) and exits 2, before anything is started or sent. Neither
 * a NaN, zod's "expected number, received NaN" nor listen()'s "options.port should be >= 0" reaches
 * the user.
 */

/** What each number flag takes, as the user reads it. */
const TAKES: Record<string, string> = {
  concurrency: 'a whole number from 1 to 64',
  timeout: 'a number above 0, at most 3600',
  samples: 'a whole number from 2 to 16',
  retries: 'a whole number from 0 to 10',
  rpm: 'a number of at least 0.001',
  'max-duration': 'a number above 0, at most 2000000',
  'max-requests': 'a whole number from 1 to 1000000000',
  'max-tokens': 'a whole number from 1 to 1000000000',
  'max-requests-per-model': 'a whole number from 1 to 1000000000',
  'max-tokens-per-model': 'a whole number from 1 to 1000000000',
  port: 'a whole number from 0 to 65535',
};

/** The rest of a line the command needs to get as far as its flags (nothing answers at port 9). */
const REQUIRED: Partial<Record<string, string[]>> = {
  passthrough: ['--upstream', 'http://127.0.0.1:9', '--models', 'm', '--base-url', 'http://127.0.0.1:9/v1'],
  audit: ['--base-url', 'http://127.0.0.1:9/v1'],
  doctor: ['--base-url', 'http://127.0.0.1:9/v1'],
};

const numberFlags = COMMANDS.flatMap((c) => Object.entries(c.options).filter(([, o]) => o.type === 'number').map(([flag]) => ({ command: c.name, flag })));

/** A command's line: the default command is run without its name, as users do. */
const line = (command: string, ...rest: string[]) => [...(command === 'audit' ? [] : [command]), ...(REQUIRED[command] ?? []), ...rest];

const RAW = /NaN|Infinity|Received|received|options\.|should be|Invalid input|Too (big|small)|RangeError|ERR_/;

describe('bad number values, every command', () => {
  it('covers every number flag the commands have', () => {
    expect(numberFlags.length).toBeGreaterThanOrEqual(20);
    expect(new Set(numberFlags.map((f) => f.flag))).toEqual(new Set(Object.keys(TAKES)));
    expect(new Set(numberFlags.map((f) => f.command))).toEqual(new Set(['audit', 'demo', 'serve', 'doctor', 'upstream', 'passthrough']));
  });

  it.concurrent.each(numberFlags)('$command --$flag abc: our words, exit 2', async ({ command, flag }) => {
    const run = await runCli(line(command, `--${flag}`, 'abc'));
    expect(run.stderr.split('\n')[0]).toBe(`chatprobe: invalid --${flag} "abc": expected ${TAKES[flag]}`);
    expect(run.stderr).not.toMatch(RAW);
    expect(run.code).toBe(2);
  });

  // Each kind of bad value once per flag: a negative, one past the range (or past any number), a fraction
  // where a whole one goes, the `=` form. (An empty value is the bad-usage test's, in cli.test.ts.)
  const kinds = Object.keys(TAKES).flatMap((flag) => {
    const command = flag === 'port' ? 'serve' : 'audit';
    const cases: { command: string; flag: string; given: string[]; said: string }[] = [
      { command, flag, given: [`--${flag}`, '-5'], said: `invalid --${flag} -5: expected ${TAKES[flag]}` },
      { command, flag, given: [`--${flag}=1e400`], said: `invalid --${flag} "1e400": expected ${TAKES[flag]}` },
    ];
    const max = /(?:to|at most) (\d+)$/.exec(TAKES[flag]!)?.[1];
    if (max) cases.push({ command, flag, given: [`--${flag}`, String(Number(max) + 1)], said: `invalid --${flag} ${Number(max) + 1}: expected ${TAKES[flag]}` });
    if (TAKES[flag]!.includes('whole')) cases.push({ command, flag, given: [`--${flag}`, '2.5'], said: `invalid --${flag} 2.5: expected ${TAKES[flag]}` });
    return cases;
  });

  it.concurrent.each(kinds)('$command $given: our words, exit 2', async ({ command, given, said }) => {
    const run = await runCli(line(command, ...given));
    expect(run.stderr.split('\n')[0]).toBe(`chatprobe: ${said}`);
    expect(run.stderr).not.toMatch(RAW);
    expect(run.code).toBe(2);
  });
});

describe('a server command that cannot listen', () => {
  it.each(['serve', 'upstream'])('%s on a port in use, or a host not of this machine: our words, exit 2', async (command) => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    try {
      const port = (taken.address() as AddressInfo).port;
      const inUse = await runCli([command, '--port', String(port)]);
      expect(inUse.stderr).toBe(`chatprobe: port ${port} on 127.0.0.1 is in use\nhint: pick another --port, or 0 for a free one\n`);
      expect(inUse.code).toBe(2);
    } finally {
      await new Promise((r) => taken.close(r));
    }
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): no machine's own address, refused at once without a packet sent.
    const elsewhere = await runCli([command, '--host', '192.0.2.1']);
    expect(elsewhere.stderr.split('\n')[0]).toBe('chatprobe: --host 192.0.2.1 is not an address of this machine');
    expect(elsewhere.stderr).not.toMatch(RAW);
    expect(elsewhere.code).toBe(2);
  });
});
