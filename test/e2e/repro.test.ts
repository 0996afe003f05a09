import { spawnSync } from 'node:child_process';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import type { ProbeResult, Report } from '../../src/results/model.js';
import { curlOf, renderRepro, shellQuote } from '../../src/report/repro.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const run = promisify(execFile);
const KEY = 'sk-repro-Hq4Yt7Wn2Rb';

let server: ReferenceServer;
let out: string;
beforeAll(async () => {
  server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
  out = await tempDir();
  const audit = await runCli(['--base-url', server.url, '--out', out, '--models', 'ref-standard', '--probes', 'parameters.max_tokens,streaming.basic,auth.*'], { OPENAI_API_KEY: KEY });
  expect(audit.code, audit.stderr).toBe(0);
});
afterAll(() => server.close());

/** The curl commands of repro's output, each run by bash with the key in the environment. */
async function runCurls(text: string, keyVar = 'OPENAI_API_KEY'): Promise<{ status: string; body: string }[]> {
  const commands = text.split('\n\n').map((b) => b.split('\n').filter((l) => !l.startsWith('#')).join('\n')).filter((b) => b.startsWith('curl '));
  return Promise.all(
    commands.map(async (c) => {
      const { stdout } = await run('bash', ['--norc', '--noprofile', '-c', `${c.trimEnd()} -w '\\n%{http_code}'`], { env: { PATH: process.env.PATH ?? '', [keyVar]: KEY } });
      const at = stdout.lastIndexOf('\n');
      return { body: stdout.slice(0, at), status: stdout.slice(at + 1) };
    }),
  );
}

describe('chatprobe repro', () => {
  it('prints curl commands that reproduce the cell against the server, the key as $OPENAI_API_KEY', async () => {
    const repro = await runCli(['repro', out, 'ref-standard', 'parameters.max_tokens']);
    expect(repro.code, repro.stderr).toBe(0);
    expect(repro.stdout).toMatch(/^# ref-standard parameters\.max_tokens: honoured\n# requirement: .+\n# seen: expected at most 5 tokens/);
    expect(repro.stdout).toContain('-H "Authorization: Bearer $OPENAI_API_KEY"');
    expect(repro.stdout).not.toContain(KEY.slice(3, 15));
    const answers = await runCurls(repro.stdout);
    expect(answers.length).toBeGreaterThan(1);
    for (const a of answers) expect(a.status).toBe('200');
    // The capped request, replayed, is cut by the limit as the audit saw.
    expect(answers.some((a) => JSON.parse(a.body).choices?.[0]?.finish_reason === 'length')).toBe(true);
  });

  it('records the key as the variable --api-key-env named, so its curl commands read that one', async () => {
    const dir = await tempDir();
    const audit = await runCli(['--base-url', server.url, '--out', dir, '--models', 'ref-standard', '--probes', 'parameters.max_tokens', '--api-key-env', 'CP_TRIAL_KEY'], { CP_TRIAL_KEY: KEY });
    expect(audit.code, audit.stderr).toBe(0);
    const har = await readFile(join(dir, 'exchanges.har'), 'utf8');
    expect(har).toContain('Bearer $CP_TRIAL_KEY');
    expect(har).not.toContain('$OPENAI_API_KEY');
    const repro = await runCli(['repro', dir, 'ref-standard', 'parameters.max_tokens']);
    expect(repro.stdout).toContain('-H "Authorization: Bearer $CP_TRIAL_KEY"');
    const answers = await runCurls(repro.stdout, 'CP_TRIAL_KEY');
    expect(answers.length).toBeGreaterThan(1);
    for (const a of answers) expect(a.status).toBe('200');
  });

  it('replays a stream unbuffered, and the endpoint’s auth probe as the audit sent it', async () => {
    const stream = await runCli(['repro', out, 'ref-standard', 'streaming.basic']);
    expect(stream.stdout).toMatch(/curl -sS -X POST '[^']+' -N/);
    expect((await runCurls(stream.stdout)).map((a) => a.status)).toContain('200');
    // Its evidence: the chat request sent without a key (refused), beside the control that carried one.
    const auth = await runCli(['repro', out, '(endpoint)', 'auth.missing_key']);
    expect(auth.code, auth.stderr).toBe(0);
    const chatWithoutKey = auth.stdout.split('\n\n').filter((b) => b.includes('/chat/completions') && b.includes('curl') && !b.includes('Authorization'));
    expect(chatWithoutKey).toHaveLength(1);
    expect((await runCurls(chatWithoutKey[0]!)).map((a) => a.status)).toEqual(['401']);
  });

  it('says which cell does not exist, and where it looked for the exchanges', async () => {
    const none = await runCli(['repro', out, 'ref-standard', 'no.such_probe']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no cell ref-standard × no\.such_probe in the report/);
    const missing = await runCli(['repro', await tempDir(), 'm', 'p']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read .*report\.json/);
  });

  it('quotes what the shell would read: quotes, dollars, backticks', () => {
    expect(shellQuote(`it's $HOME \`id\``)).toBe(`'it'\\''s $HOME \`id\`'`);
    const cmd = curlOf({ _callId: 'c1', request: { method: 'POST', url: 'http://h/v1/chat/completions', headers: [{ name: 'authorization', value: 'Bearer $OPENAI_API_KEY' }], postData: { text: `{"q":"it's $(rm -rf /)"}` } }, response: { status: 200 } });
    expect(cmd).toContain(`--data-raw '{"q":"it'\\''s $(rm -rf /)"}'`);
    expect(cmd).toContain('-H "Authorization: Bearer $OPENAI_API_KEY"');
  });

  it('says when a call that got its status then failed (a timeout after the headers): the status alone read as an answer', () => {
    const report = { probes: [], results: [], models: [] } as unknown as Report;
    const cell = { model: 'm1', probe: 'chat.basic', verdict: 'error', cause: 'timeout', observed: 'no answer', findings: [], evidence: ['c2'] } as unknown as ProbeResult;
    const entry = { _callId: 'c2', _probe: 'smoke', _error: 'timeout: no complete answer within --timeout', request: { method: 'POST', url: 'http://h/v1/chat/completions', headers: [] }, response: { status: 200 } };
    expect(renderRepro(report, cell, new Map([['c2', entry]]))).toContain('# c2 (smoke): the audit got HTTP 200, then timeout: no complete answer within --timeout');
  });

  it('reads a header recorded redacted from a variable, and will not run without it (it sent "[REDACTED]")', () => {
    const cmd = curlOf({ _callId: 'c1', request: { method: 'GET', url: 'http://h/v1/models', headers: [{ name: 'x-upstream-token', value: '[REDACTED]' }, { name: 'x-$(id)`id`', value: '[REDACTED]' }] }, response: { status: 200 } });
    expect(cmd).not.toContain('[REDACTED]');
    // The command as a shell runs it, curl swapped for printf: the variable goes in; unset, the shell refuses.
    const asShell = (env: Record<string, string>) => spawnSync('bash', ['-c', cmd.replace(/^curl -sS -X GET /, "printf '%s\\n' ")], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
    const set = asShell({ X_UPSTREAM_TOKEN: 'tok-123', X___ID__ID_: 'v2' });
    expect(set.status, set.stderr).toBe(0);
    expect(set.stdout).toContain('x-upstream-token: tok-123');
    expect(set.stdout).toContain('x-$(id)`id`: v2');
    const unset = asShell({});
    expect(unset.status).not.toBe(0);
    expect(unset.stderr).toContain('set X_UPSTREAM_TOKEN to the value of that header');
  });
});
