import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import { CallRecord, Report } from '../../src/results/model.js';
import { PROBES } from '../../suites/index.js';
import { cliCommand, ROOT, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { parseReport } from '../helpers/report-schema.js';

const KEY = 'sk-cli-test';
// The default profile lists three models; endpoint probes run once, the others once per model.
// The default selection: no extended tier; no billing probe, as the default profile shows no balance.
const DEFAULT = PROBES.filter((p) => p.tier !== 'extended' && p.area !== 'billing');
const CELLS = 3 * DEFAULT.filter((p) => p.scope !== 'target').length + DEFAULT.filter((p) => p.scope === 'target').length;

describe('chatprobe CLI', () => {
  let server: ReferenceServer;
  let html: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
    html = await startReferenceServer({ profile: loadProfile('wrong-base-url') });
  });
  afterAll(async () => {
    await server.close();
    await html.close();
  });

  it('demo (npm start) audits the bundled server and shows honoured, ignored and rejected', async () => {
    const out = await tempDir();
    const run = await runCli(['demo', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/honoured/);
    expect(run.stdout).toMatch(/ignored/);
    expect(run.stdout).toMatch(/rejected/);
    expect(run.stderr).toContain(`reports: ${out}`);
  });

  it('prints one plain progress line per model (and the endpoint) when stderr is not a TTY', async () => {
    const out = await tempDir();
    const run = await runCli(['--base-url', server.url, '--out', out], { OPENAI_API_KEY: KEY });
    const lines = run.stderr.split('\n').filter((l) => /^\[\d+\/\d+\]/.test(l));
    const rows = ['(endpoint)', 'ref-standard', 'ref-reasoning', 'ref-lenient'];
    expect(lines).toHaveLength(rows.length);
    for (const row of rows) expect(lines.filter((l) => l.includes(`] ${row}: `))).toHaveLength(1);
    for (const l of lines) expect(l).toMatch(/: \d+ passed, \d+ failed, \d+ skipped, \d+ errored$/);
    expect(lines.some((l) => l.startsWith(`[${CELLS}/${CELLS}] `))).toBe(true);
    expect(run.stdout).not.toMatch(/\x1b\[/);
  });

  it('--json prints the report as report.json holds it (naming its schema), and --quiet prints nothing', async () => {
    const out = await tempDir();
    const json = await runCli(['--base-url', server.url, '--out', out, '--json'], { OPENAI_API_KEY: KEY });
    const report = parseReport(json.stdout);
    expect(report.results).toHaveLength(CELLS);
    expect(json.stdout).toBe(await readFile(join(out, 'report.json'), 'utf8'));
    expect(report.$schema).toMatch(/\/schema\/report\.schema\.json$/);
    const quiet = await runCli(['--base-url', server.url, '--out', out, '--quiet'], { OPENAI_API_KEY: KEY });
    expect(quiet.code).toBe(0);
    expect(quiet.stdout + quiet.stderr).toBe('');
  });

  it('exits quietly when stdout is closed early (piped into head)', async () => {
    const out = await tempDir();
    const child = spawn(...cliCommand(['--base-url', server.url, '--out', out, '--json']), {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', OPENAI_API_KEY: KEY },
    });
    // The reader goes away before anything is written, so every write to stdout meets EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise((r) => child.on('close', r));
    expect(stderr).not.toMatch(/EPIPE|Error|\n\s+at /);
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
    const bad = report.results.filter((r: { outcome: string }) => r.outcome === 'failed' || r.outcome === 'errored');
    expect(code, JSON.stringify(bad).slice(0, 1500)).toBe(0);
    expect(JSON.parse(await readFile(join(out, 'report.json'), 'utf8')).schemaVersion).toBe(1);
  });

  it('reports a named model that is not listed without calling it, and exits 1', async () => {
    const out = await tempDir();
    const run = await runCli(['--base-url', server.url, '--out', out, '--models', 'ref-standard,ghost'], { OPENAI_API_KEY: KEY });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('not listed by GET /models: ghost');
    const report = parseReport(await readFile(join(out, 'report.json'), 'utf8'));
    expect(report.models.find((m) => m.id === 'ghost')).toMatchObject({ listed: false, cause: 'model_not_listed' });
    const trace = (await readFile(join(out, 'trace.jsonl'), 'utf8')).trim().split('\n').map((l) => CallRecord.parse(JSON.parse(l)));
    expect(trace.some((c) => c.model === 'ghost')).toBe(false);
    expect(trace.every((c) => c.model === undefined || c.model === 'ref-standard')).toBe(true);
  });

  it('exits 2 when every named model is unlisted (a typo: no model to test), naming the closest listed ids, sending nothing more', async () => {
    const out = await tempDir();
    const before = server.received.length;
    const run = await runCli(['--base-url', server.url, '--out', out, '--models', 'ref-standrad', '--probes', 'chat.basic'], { OPENAI_API_KEY: KEY });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('chatprobe: --models names ref-standrad, which GET /models does not list: no model to test');
    expect(run.stderr).toMatch(/hint: closest listed to ref-standrad: ref-standard, /);
    expect(run.stdout).toBe('');
    expect(server.received.slice(before).map((r) => r.path)).toEqual(['/v1/models']);
  });

  it('a shard the plan leaves no model writes its report for merge and says why, exit 0', async () => {
    const out = await tempDir();
    const run = await runCli(['--base-url', server.url, '--out', out, '--models', 'ref-standard', '--probes', 'chat.basic', '--shard', '2/2'], { OPENAI_API_KEY: KEY });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('shard 2/2 has no model of its own (the plan has fewer models than shards): its report is written for merge');
    expect(parseReport(await readFile(join(out, 'report.json'), 'utf8')).shard).toMatchObject({ index: 2, count: 2, allModels: ['ref-standard'] });
  });

  it('calls an unlisted model with --allow-unlisted', async () => {
    const out = await tempDir();
    const run = await runCli(['--base-url', server.url, '--out', out, '--models', 'ghost', '--allow-unlisted', '--probes', 'chat.basic'], { OPENAI_API_KEY: KEY });
    const trace = (await readFile(join(out, 'trace.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(trace.some((c) => c.model === 'ghost' && c.status === 404)).toBe(true);
    expect(run.code).toBe(1);
  });

  it('exits 2 with the base-URL hint when /models answers an HTML page', async () => {
    const run = await runCli(['--base-url', html.url.replace(/\/v1$/, ''), '--out', await tempDir()], { OPENAI_API_KEY: KEY });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('HTML page');
    expect(run.stderr).toContain('base URL looks wrong');
    expect(run.stderr).toContain('does not end in /v1');
  });

  it('exits 2 on 401 from /models with the token advice', async () => {
    const run = await runCli(['--base-url', server.url, '--out', await tempDir()], { OPENAI_API_KEY: 'nope' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('HTTP 401');
    expect(run.stderr).toContain('the token is at fault');
  });

  it('exits 2 on bad usage: unknown probe (listing the valid ones), unknown flag, no base URL, a list flag without a value', async () => {
    const sent = server.received.length;
    const unknown = await runCli(['--base-url', server.url, '--probes', 'chat.nope'], { OPENAI_API_KEY: KEY });
    expect(unknown.code).toBe(2);
    for (const p of PROBES) expect(unknown.stderr).toContain(p.id);
    // Known before anything is sent: not even GET /models.
    expect(server.received.length).toBe(sent);
    const flag = await runCli(['--bogus-flag']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe('chatprobe: unknown argument: --bogus-flag\nRun "chatprobe --help" for usage.\n');
    // A command's own usage names the command.
    const missing = await runCli(['passthrough', '--base-url', server.url]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('chatprobe: missing required flag: --upstream\nRun "chatprobe passthrough --help" for usage.\n');
    // A flag without a value would quietly mean its default (`--models` every model, `--baseline "$UNSET"`
    // no gate): refused before anything is sent, as is a one-value flag given twice.
    for (const given of [['--models'], ['--probes'], ['--baseline', ''], ['--baseline='], ['--timeout', '--json'], ['--header']]) {
      const empty = await runCli(['--base-url', server.url, ...given], { OPENAI_API_KEY: KEY });
      expect(empty.code, given.join(' ')).toBe(2);
      expect(empty.stderr).toBe(`chatprobe: ${given[0]!.replace(/=$/, '')} was given without a value\nRun "chatprobe --help" for usage.\n`);
    }
    const twice = await runCli(['--base-url', server.url, '--out', 'a', '--out', 'b'], { OPENAI_API_KEY: KEY });
    expect(twice.stderr).toContain('--out was given more than once');
    // The key pasted where it does not belong is not printed back.
    const pasted = await runCli(['--base-url', server.url, KEY], { OPENAI_API_KEY: KEY });
    expect(pasted.code).toBe(2);
    expect(pasted.stderr).toBe('chatprobe: unknown argument: [REDACTED]\nRun "chatprobe --help" for usage.\n');
    const asVariable = await runCli(['--base-url', server.url, '--api-key-env', KEY], { OPENAI_API_KEY: KEY });
    expect(asVariable.code).toBe(2);
    expect(asVariable.stderr).not.toContain(KEY.slice(0, 8));
    const serveAsVariable = await runCli(['serve', '--api-key-env', KEY], { OPENAI_API_KEY: KEY });
    expect(serveAsVariable.code).toBe(2);
    expect(serveAsVariable.stderr).toContain('not an environment variable name (the value is not shown');
    expect(serveAsVariable.stderr).not.toContain(KEY.slice(0, 8));
    // serve names what is wrong with the variable it was given: unset and empty are different mistakes.
    expect((await runCli(['serve', '--api-key-env', 'CP_UNSET_VARIABLE'], {})).stderr).toContain('CP_UNSET_VARIABLE: the variable is not set');
    expect((await runCli(['serve', '--api-key-env', 'CP_EMPTY_VARIABLE'], { CP_EMPTY_VARIABLE: '' })).stderr).toContain('CP_EMPTY_VARIABLE: the variable is empty');
    // Early errors of every command, before it knows its own secrets: the key, or another variable's that
    // a config file may name, pasted as a path, a URL, a profile or a positional.
    const other = 'sk-other-service-0123456789';
    const env = { OPENAI_API_KEY: KEY, MY_SERVICE_KEY: other };
    for (const args of [['--config', KEY], ['--base-url', KEY], ['demo', '--profile', KEY], ['compare', KEY, '/tmp'], ['merge', other], ['--base-url', server.url, other]]) {
      const run = await runCli(args, env);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr + run.stdout, args.join(' ')).toContain('[REDACTED]');
      for (const secret of [KEY, other]) expect(run.stderr + run.stdout).not.toContain(secret.slice(0, 8));
    }
    expect(server.received.length).toBe(sent);
    const none = await runCli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('OPENAI_BASE_URL');
    // About 22 runs of the CLI one after the other: 19 s alone on 2 cores, past 30 s beside the rest of the suite.
  }, 90_000);

  it('probes lists every probe with kind, cost and requirement', async () => {
    const run = await runCli(['probes']);
    expect(run.code).toBe(0);
    for (const p of PROBES) expect(run.stdout).toMatch(new RegExp(`^${p.id.replace(/\./g, '\\.')}\\s+${p.kind}`, 'm'));
    const json = JSON.parse((await runCli(['probes', '--json'])).stdout);
    expect(json.map((p: { id: string }) => p.id)).toEqual(PROBES.map((p) => p.id));
    expect(json.map((p: { tier: string }) => p.tier)).toEqual(PROBES.map((p) => p.tier ?? 'default'));
    // Each tier's cost a model, the quick one within its goal.
    const tiers = [...run.stdout.matchAll(/^ {2}--tier (quick|default|extended) +(\d+) model probes +(\d+) requests +(\d+) max tokens;/gm)].map((m) => ({ tier: m[1], requests: Number(m[3]) }));
    expect(tiers.map((t) => t.tier)).toEqual(['quick', 'default', 'extended']);
    expect(tiers[0]!.requests).toBeLessThanOrEqual(20);
    expect(tiers[1]!.requests).toBeLessThanOrEqual(80);
  });

  it('--version and --help tell the truth', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    expect((await runCli(['--version'])).stdout.trim()).toBe(pkg.version);
    const help = (await runCli(['--help'])).stdout;
    for (const flag of ['--base-url', '--api-key-env', '--models', '--probes', '--out', '--concurrency', '--timeout', '--header', '--json', '--quiet']) {
      expect(help).toContain(flag);
    }
  });

  it('serve prints its base URL, answers, and stops on SIGTERM', async () => {
    const child = spawn(...cliCommand(['serve', '--profile', 'default']), { cwd: ROOT, env: { PATH: process.env.PATH ?? '' } });
    const url = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout.on('data', (d: Buffer) => {
        text += d.toString();
        const m = /base URL: (\S+)/.exec(text);
        if (m) resolve(m[1]!);
      });
      child.on('exit', () => reject(new Error(`serve exited: ${text}`)));
    });
    const res = await fetch(`${url}/models`, { headers: { authorization: 'Bearer anything' } });
    expect(res.status).toBe(200);
    const exited = new Promise((r) => child.on('exit', r));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
