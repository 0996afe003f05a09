import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseJunit } from '../helpers/junit.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import { CallRecord, Report } from '../../src/results/model.js';
import { interruptCli, runCli } from '../helpers/cli.js';
import { blockedMerge } from '../helpers/blocked-merge.js';
import { stubServer } from '../helpers/stub-server.js';
import { holdingServer } from '../helpers/holding.js';
import { tempDir } from '../helpers/tmp.js';
import { parseReport } from '../helpers/report-schema.js';
import { wideReport } from '../helpers/report.js';

const KEY = 'sk-ci-gating';
const env = { OPENAI_API_KEY: KEY };
const readReport = async (dir: string) => parseReport(await readFile(join(dir, 'report.json'), 'utf8'));
const readTrace = async (dir: string) =>
  (await readFile(join(dir, 'trace.jsonl'), 'utf8')).trim().split('\n').map((l) => CallRecord.parse(JSON.parse(l)));

describe('baselines: a green run turned red by a regression', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
  });
  afterAll(() => server.close());

  it('passes against its own baseline, then fails with a JUnit failure naming model and probe', async () => {
    const dir = await tempDir();
    const baseline = join(dir, 'baseline.json');
    const first = await runCli(['--base-url', server.url, '--out', join(dir, 'r1'), '--baseline', baseline, '--update-baseline', '--probes', 'parameters.*', 'chat.*'], env);
    expect(first.code, first.stderr).toBe(0);
    const saved = JSON.parse(await readFile(baseline, 'utf8'));
    expect(saved.cells['ref-standard']['parameters.max_tokens']).toBe('honoured');

    const green = await runCli(['--base-url', server.url, '--out', join(dir, 'r2'), '--baseline', baseline, '--probes', 'parameters.*', 'chat.*'], env);
    expect(green.code, green.stderr).toBe(0);
    expect((await readReport(join(dir, 'r2'))).results.every((r) => r.comparison === 'expected')).toBe(true);

    // The same URL now serves a gateway that drops max_tokens for ref-standard.
    const changed = loadProfile('default');
    changed.models[0]!.features = { ...changed.models[0]!.features, max_tokens: 'ignore' };
    server.setProfile(changed);
    try {
      const red = await runCli(['--base-url', server.url, '--out', join(dir, 'r3'), '--baseline', baseline, '--probes', 'parameters.*', 'chat.*'], env);
      expect(red.code).toBe(1);
      const report = await readReport(join(dir, 'r3'));
      const regressions = report.results.filter((r) => r.comparison === 'regression');
      expect(regressions.map((r) => `${r.model} ${r.probe}`)).toEqual(['ref-standard parameters.max_tokens']);
      const xml = await readFile(join(dir, 'r3', 'junit.xml'), 'utf8');
      const doc = await parseJunit(xml);
      const suite = doc.testsuites.testsuite.find((s) => s.name === 'ref-standard')!;
      const tc = suite.testcase!.find((c) => c.name === 'parameters.max_tokens')!;
      expect(tc.failure!.type).toBe('regression');
      expect(tc.failure!.message).toContain('ref-standard · parameters.max_tokens: regression: expected honoured, got ignored');
      expect(await readFile(join(dir, 'r3', 'matrix.md'), 'utf8')).toContain('🟡 ignored **⬇ regression**');
    } finally {
      server.setProfile(loadProfile('default'));
    }
  });

  it('refuses a missing or malformed baseline with exit 2', async () => {
    const dir = await tempDir();
    const missing = await runCli(['--base-url', server.url, '--out', dir, '--baseline', join(dir, 'nope.json')], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('does not exist');
    await writeFile(join(dir, 'bad.json'), JSON.stringify({ schemaVersion: 1, cells: { m: { 'chat.basic': 'great' } } }));
    const bad = await runCli(['--base-url', server.url, '--out', dir, '--baseline', join(dir, 'bad.json')], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('cells.m.chat.basic');
  });
});

describe('a new-api gateway with a model for each cause', () => {
  let server: ReferenceServer;
  let out: string;
  let report: Report;
  let trace: CallRecord[];
  let code: number | null;
  beforeAll(async () => {
    server = await startReferenceServer({ profile: loadProfile('gateway-causes'), apiKey: KEY });
    out = await tempDir();
    code = (await runCli(['--base-url', server.url, '--out', out, '--probes', 'chat.basic'], env)).code;
    report = await readReport(out);
    trace = await readTrace(out);
  });
  afterAll(() => server.close());

  it('recognises each cause from the gateway bodies and stops each failing row after its smoke call', () => {
    const causes = Object.fromEntries(report.models.map((m) => [m.id, m.cause ?? 'ok']));
    expect(causes).toEqual({
      'gpt-4o': 'ok',
      'claude-opus': 'model_not_in_group',
      'gemini-pro': 'model_not_in_group',
      'gpt-4-32k': 'quota',
      'deepseek-chat': 'rate_limited',
      'qwen-turbo': 'upstream',
      'moonshot-v1': 'ok',
    });
    expect(code).toBe(1);
    // Nothing beyond the smoke call (and its retries) reached a stopped model.
    for (const m of ['claude-opus', 'gemini-pro', 'gpt-4-32k', 'qwen-turbo', 'deepseek-chat']) {
      expect(trace.filter((c) => c.model === m && c.probe !== 'smoke'), m).toEqual([]);
    }
  });

  it('honours Retry-After, retries at most --retries times, then ends as error(rate_limited)', () => {
    const calls = trace.filter((c) => c.model === 'deepseek-chat');
    expect(calls.map((c) => c.status)).toEqual([429, 429, 429]);
    expect(calls.map((c) => c.waitMs)).toEqual([1000, 1000, undefined]);
    expect(calls.slice(1).every((c) => c.retryOf === calls[0]!.id)).toBe(true);
    // The row stopped at its smoke call is one line, standing for every probe.
    const row = report.models.find((m) => m.id === 'deepseek-chat')!.notRun!;
    expect(row).toMatchObject({ verdict: 'error', cause: 'rate_limited', outcome: 'failed' });
    expect(row.evidence).toEqual(calls.map((c) => c.id).slice(-1));
    expect(report.results.filter((r) => r.model === 'deepseek-chat')).toEqual([]);
  });

  it('lets a model whose rate limit lifts be probed after its retries', () => {
    const smoke = trace.filter((c) => c.model === 'moonshot-v1' && c.probe === 'smoke');
    expect(smoke.map((c) => c.status)).toEqual([429, 429, 200]);
    expect(report.results.find((r) => r.model === 'moonshot-v1')?.verdict).toBe('pass');
  });

  it('doctor prints each check in order with the first failure and its advice', async () => {
    const run = await runCli(['doctor', '--base-url', server.url], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("✗ token's group can reach it: HTTP 403: 该令牌无权使用模型：claude-opus");
    expect(run.stdout).toContain('✗ quota left: HTTP 403: 用户额度不足');
    expect(run.stdout).toContain('✗ no rate limit, upstream answers: HTTP 502');
    const block = run.stdout.split('model gpt-4-32k')[1]!.split('model ')[0]!;
    expect(block.indexOf("✓ token's group can reach it")).toBeLessThan(block.indexOf('✗ quota left'));
  });

  it('doctor --json prints JSON only, a failure to list the models included', async () => {
    const ok = await runCli(['doctor', '--base-url', server.url, '--json'], env);
    expect(ok.code).toBe(1);
    expect(Array.isArray(JSON.parse(ok.stdout))).toBe(true);
    const wrong = await runCli(['doctor', '--base-url', server.url, '--json'], { OPENAI_API_KEY: 'sk-wrong-key-for-doctor' });
    expect(wrong.code).toBe(2);
    expect(JSON.parse(wrong.stdout)).toMatchObject({ error: expect.stringContaining('401') });
  });

  it('doctor with a config file it cannot read says so as a usage error, not as a failed GET /models', async () => {
    const run = await runCli(['doctor', '--base-url', server.url, '--config', '/nonexistent/chatprobe.json'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('cannot read config /nonexistent/chatprobe.json');
    expect(run.stdout).not.toContain('GET /models');
  });
});

describe('shards and merge', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ profile: loadProfile('roles'), apiKey: KEY });
  });
  afterAll(() => server.close());

  it('three shards merged equal one full run apart from times and call ids', async () => {
    const dir = await tempDir();
    const probes = ['--probes', 'roles.*', 'models.list', 'auth.missing_key', 'chat.basic'];
    await runCli(['--base-url', server.url, '--out', join(dir, 'full'), ...probes], env);
    for (const i of [1, 2, 3]) await runCli(['--base-url', server.url, '--out', join(dir, `s${i}`), '--shard', `${i}/3`, ...probes], env);
    const shardModels = await Promise.all([1, 2, 3].map(async (i) => (await readReport(join(dir, `s${i}`))).models.map((m) => m.id)));
    expect(shardModels.flat().sort()).toEqual((await readReport(join(dir, 'full'))).models.map((m) => m.id).sort());
    expect(shardModels.every((ids) => ids.length > 0)).toBe(true);

    // Into one of its own shard folders: refused before anything is read or written (the shard is kept).
    const before = await readFile(join(dir, 's1', 'report.json'), 'utf8');
    const intoShard = await runCli(['merge', join(dir, 's1'), join(dir, 's2'), join(dir, 's3'), '--out', `${join(dir, 's1')}/`]);
    expect(intoShard.code).toBe(2);
    expect(intoShard.stderr).toContain('is one of the shard folders merged');
    expect(await readFile(join(dir, 's1', 'report.json'), 'utf8')).toBe(before);
    const merged = await runCli(['merge', join(dir, 's3'), join(dir, 's1'), join(dir, 's2'), '--out', join(dir, 'merged')]);
    expect(merged.code, merged.stderr).toBe(0);
    const full = await readReport(join(dir, 'full'));
    const joined = await readReport(join(dir, 'merged'));
    const stable = (r: Report) => ({
      models: r.models.map(({ smoke: _s, metrics: _m, ...m }) => m),
      probes: r.probes,
      results: r.results.map(({ durationMs: _d, evidence: _e, ...x }) => x),
    });
    expect(stable(joined)).toEqual(stable(full));
    // Each shard lists the models itself: two more GET /models than one run.
    expect(joined.calls).toBe(full.calls + 2);
    const table = async (d: string) => (await readFile(join(dir, d, 'matrix.md'), 'utf8')).split('\n').filter((l) => l.startsWith('| `'));
    expect((await table('merged')).filter((l) => !l.includes(' ms |'))).toEqual((await table('full')).filter((l) => !l.includes(' ms |')));
    expect((await readTrace(join(dir, 'merged'))).length).toBe(joined.calls);
    // The shards' recorded exchanges are the merged run's: every cell's evidence is in its exchanges.har,
    // and report.html shows them.
    const har = JSON.parse(await readFile(join(dir, 'merged', 'exchanges.har'), 'utf8')) as { log: { entries: { _callId: string }[] } };
    expect(har.log.entries).toHaveLength(joined.calls);
    const recorded = new Set(har.log.entries.map((e) => e._callId));
    expect(joined.results.flatMap((r) => r.evidence).filter((id) => !recorded.has(id))).toEqual([]);
    expect(await readFile(join(dir, 'merged', 'report.html'), 'utf8')).toContain('"exchangesRecorded":true');

    // Merged cells are judged again against the baseline given to merge, not copied from the shards.
    const cell = full.results.find((r) => r.kind === 'capability' && (r.verdict === 'ignored' || r.verdict === 'rejected'))!;
    expect(cell).toBeDefined();
    const baseline = join(dir, 'b.json');
    await writeFile(baseline, JSON.stringify({ schemaVersion: 1, cells: { [cell.model]: { [cell.probe]: 'honoured' } } }));
    const judged = await runCli(['merge', join(dir, 's1'), join(dir, 's2'), join(dir, 's3'), '--out', join(dir, 'judged'), '--baseline', baseline]);
    expect(judged.code, judged.stderr).toBe(1);
    const regressed = (await readReport(join(dir, 'judged'))).results.find((r) => r.model === cell.model && r.probe === cell.probe)!;
    expect(regressed).toMatchObject({ comparison: 'regression', outcome: 'failed', expected: ['honoured'] });

    // Shards 1 and 3 of 3 are not a run: exit 2, naming the shard and the models missing.
    const partial = await runCli(['merge', join(dir, 's1'), join(dir, 's3'), '--out', join(dir, 'partial')]);
    expect(partial.code, partial.stderr).toBe(2);
    expect(partial.stderr).toContain('incomplete merge: shard(s) 2/3 missing');
    for (const id of shardModels[1]!) expect(partial.stderr).toContain(id);
    const twice = await runCli(['merge', join(dir, 's1'), join(dir, 's2'), join(dir, 's2'), join(dir, 's3'), '--out', join(dir, 'twice')]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('shard 2/3 is given twice');
    const mixed = await runCli(['merge', join(dir, 's1'), join(dir, 's2'), join(dir, 's3'), join(dir, 'full'), '--out', join(dir, 'mixed')]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('is not a shard report');
    // Four audits and a merge: 15 s alone on 2 cores, past 30 s on a loaded machine.
  }, 90_000);

  it('Ctrl-C during a merge drops it whole: the output folder as it was, no temporary file, exit 130', async () => {
    const dir = await tempDir();
    for (const i of [1, 2]) await runCli(['--base-url', server.url, '--out', join(dir, `s${i}`), '--shard', `${i}/2`, '--probes', 'chat.basic'], env);
    const { args, out, making, free } = await blockedMerge(dir);
    const run = await interruptCli(args, {}, making, free);
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toContain('merge interrupted: nothing written; the folders are as they were');
    expect(await readdir(out)).toEqual(['report.json']);
    expect(await readFile(join(out, 'report.json'), 'utf8')).toBe('the last merge');
  });

  it('refuses to merge reports of different targets', async () => {
    const dir = await tempDir();
    const other = await startReferenceServer({ profile: loadProfile('roles'), apiKey: KEY });
    try {
      await runCli(['--base-url', server.url, '--out', join(dir, 'a'), '--probes', 'chat.basic'], env);
      await runCli(['--base-url', other.url, '--out', join(dir, 'b'), '--probes', 'chat.basic'], env);
    } finally {
      await other.close();
    }
    const run = await runCli(['merge', join(dir, 'a'), join(dir, 'b'), '--out', join(dir, 'm')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('merge only the shards of one run');
  });
});

describe('interruption', () => {
  it('Ctrl-C while GET /models is unanswered says the run was interrupted (exit 130), not that the server timed out', async () => {
    // A server that never answers the model list.
    const stub = await holdingServer();
    try {
      const run = await interruptCli(['--base-url', stub.url, '--out', await tempDir(), '--timeout', '60'], { OPENAI_API_KEY: KEY }, stub.asked);
      expect(run.code, run.stderr).toBe(130);
      expect(run.stderr).toContain('interrupted before the audit began');
      expect(run.stderr).not.toContain('timeout');
    } finally {
      await stub.close();
    }
  });

  it('SIGINT during an audit leaves a valid partial report and exits 130', async () => {
    const server = await startReferenceServer({ profile: loadProfile('stalling'), apiKey: KEY });
    const out = await tempDir();
    try {
      // The first results arrive quickly; the stalled streams would hold the run for 30 s.
      const run = await interruptCli(['--base-url', server.url, '--out', out, '--timeout', '30'], { OPENAI_API_KEY: KEY }, /\[\d+\/\d+\]/);
      expect(run.code).toBe(130);
      const report = await readReport(out);
      expect(report.interrupted).toBe(true);
      expect(report.results.length).toBeGreaterThan(0);
      expect(report.results.every((r) => r.verdict !== 'error' || r.cause !== 'network')).toBe(true);
      expect(await readFile(join(out, 'matrix.md'), 'utf8')).toContain('interrupted: partial report');
    } finally {
      await server.close();
    }
  });
});

/** Lists m1…m6; m1 answers every chat request, the others are held unanswered: a run that must stop at its deadline. */
const oneAnswering = () =>
  stubServer(['m1', 'm2', 'm3', 'm4', 'm5', 'm6'], (body, res) => {
    if ((JSON.parse(body) as { model?: string }).model !== 'm1') return;
    const message = { role: 'assistant', content: 'ok' };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'x', object: 'chat.completion', created: 1, model: 'm1', choices: [{ index: 0, message, finish_reason: 'stop' }] }));
  });

describe('--max-duration: one count of what was not run', () => {
  it('says the same number on stderr, on the console, in report.json and in the step summary', async () => {
    const server = await oneAnswering();
    const dir = await tempDir();
    const summary = join(dir, 'summary.md');
    try {
      // One request at a time: m2's smoke call holds it until the deadline, which leaves m1's cells and the
      // other models' rows not run.
      const run = await runCli(['--base-url', server.url, '--out', join(dir, 'r'), '--probes', 'parameters.max_tokens', 'parameters.stop', 'models.list', '--concurrency', '1', '--timeout', '30', '--max-duration', '3'], { ...env, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary });
      expect(run.code, run.stderr).toBe(1);
      const report = await readReport(join(dir, 'r'));
      const s = report.summary!;
      const rows = report.models.filter((m) => m.notRun?.cause === 'deadline').length;
      const cells = report.results.filter((r) => r.cause === 'deadline').length;
      expect(rows).toBe(5);
      expect(cells).toBeGreaterThan(0);
      expect(s.notRun).toBe(rows + cells);
      const said = `${s.notRun} not run (stopped at --max-duration), counted among the failed`;
      expect(run.stderr).toContain(`: ${s.notRun} not run (${cells} cell(s), and ${rows} model(s) not reached, each counted once for its `);
      expect(run.stderr).toContain(`reported with cause "deadline" and counted among the ${s.outcomes.failed} failed`);
      expect(run.stdout).toContain(`${s.outcomes.failed} failed, ${s.outcomes.skipped} skipped, ${s.outcomes.errored} errored (stopped at --max-duration: partial report); ${said}`);
      const step = await readFile(summary, 'utf8');
      expect(step).toContain(`(${said})`);
      expect(step).toContain(`Results: ${s.outcomes.passed} passed, ${s.outcomes.failed} failed, ${s.outcomes.skipped} skipped, ${s.outcomes.errored} errored; ${said}.`);
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('GitHub Actions', () => {
  it('appends the matrix and failing cells to the step summary and annotates at most ten', async () => {
    const server = await startReferenceServer({ profile: loadProfile('broken-gateway'), apiKey: KEY });
    const dir = await tempDir();
    const summary = join(dir, 'summary.md');
    await writeFile(summary, '# earlier step\n');
    try {
      const run = await runCli(['--base-url', server.url, '--out', join(dir, 'r'), '--probes', 'chat.*', 'streaming.basic'], {
        ...env,
        GITHUB_ACTIONS: 'true',
        GITHUB_STEP_SUMMARY: summary,
      });
      expect(run.code).toBe(1);
      const text = await readFile(summary, 'utf8');
      expect(text.startsWith('# earlier step\n')).toBe(true);
      expect(text).toContain('## chatprobe:');
      expect(text).toContain('# chatprobe capability matrix');
      expect(Buffer.byteLength(text)).toBeLessThan(1024 * 1024);
      const annotations = run.stdout.split('\n').filter((l) => l.startsWith('::error '));
      expect(annotations.length).toBe(10);
      expect(annotations[0]).toMatch(/^::error title=chatprobe [^:]*::/);
      expect(run.stdout).toMatch(/^::notice::\d+ more failing cell\(s\)/m);
    } finally {
      await server.close();
    }
  });
});

describe('--rpm', () => {
  it('still runs the audit to the end', async () => {
    const server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
    const out = await tempDir();
    try {
      const run = await runCli(['--base-url', server.url, '--out', out, '--models', 'ref-standard', '--probes', 'roles.name', '--rpm', '6000'], env);
      expect(run.code, run.stderr).toBe(0);
      expect((await readTrace(out)).length).toBe(3);
    } finally {
      await server.close();
    }
  });
});

describe('fail before spending', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
  });
  afterAll(() => server.close());

  it.each([
    ['--out naming a file', (d: string) => ['--out', join(d, 'a-file')], {}, /cannot write the reports to .*a-file: it is not a folder/],
    ['--out under a file', (d: string) => ['--out', join(d, 'a-file', 'reports')], {}, /cannot write the reports to .*a-file\/reports: (a part of its path is a file|a file is in its place)$/m],
    ['a baseline whose folder does not exist', (d: string) => ['--out', join(d, 'r'), '--baseline', join(d, 'no', 'such', 'b.json'), '--update-baseline'], {}, /cannot write the baseline .*b\.json: its folder does not exist/],
    ['a baseline that is a folder', (d: string) => ['--out', join(d, 'r'), '--baseline', d, '--update-baseline'], {}, /cannot write the baseline .*: it is a folder/],
    ['a step summary that cannot be appended to', (d: string) => ['--out', join(d, 'r')], { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: '/no/such/dir/summary.md' }, /cannot write the step summary \/no\/such\/dir\/summary\.md: its folder does not exist$/m],
  ] as const)('%s: exit 2 naming the path and the reason, before any request', async (_name, args, extraEnv, reason) => {
    const dir = await tempDir();
    await writeFile(join(dir, 'a-file'), 'x');
    const before = server.received.length;
    const run = await runCli(['--base-url', server.url, ...args(dir)], { ...env, ...extraEnv });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(reason);
    expect(server.received.length - before).toBe(0);
  });
});

describe('a baseline written while models fail their smoke call', () => {
  it('says which rows were not stored, and whether they keep what they had', async () => {
    const server = await startReferenceServer({ profile: loadProfile('gateway-causes'), apiKey: KEY });
    try {
      const dir = await tempDir();
      const baseline = join(dir, 'b.json');
      const args = ['--base-url', server.url, '--models', 'gpt-4o', 'claude-opus', '--probes', 'chat.basic', '--baseline', baseline, '--update-baseline'];
      const first = await runCli([...args, '--out', join(dir, 'r1')], env);
      expect(first.stderr).toContain('not probed, so not stored: claude-opus (no expectation yet: run --update-baseline again once it answers)');
      const saved = JSON.parse(await readFile(baseline, 'utf8')) as { schemaVersion: 1; cells: Record<string, Record<string, string>> };
      expect(Object.keys(saved.cells)).toEqual(['gpt-4o']);
      await writeFile(baseline, JSON.stringify({ ...saved, cells: { ...saved.cells, 'claude-opus': { 'chat.basic': 'pass' } } }));
      const again = await runCli([...args, '--out', join(dir, 'r2')], env);
      expect(again.stderr).toContain('not probed, so not stored: claude-opus (every cell keeps its previous expectation)');
      expect((JSON.parse(await readFile(baseline, 'utf8')) as typeof saved).cells['claude-opus']).toEqual({ 'chat.basic': 'pass' });
    } finally {
      await server.close();
    }
  });
});

describe('--update-baseline on a narrowed run', () => {
  it('keeps the models, endpoint checks and probes a shard or a filter did not observe, and says so', async () => {
    const server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
    try {
      const dir = await tempDir();
      const baseline = join(dir, 'b.json');
      const args = ['--base-url', server.url, '--probes', 'chat.basic', 'chat.model_echo', 'models.list', '--baseline', baseline, '--update-baseline'];
      expect((await runCli([...args, '--out', join(dir, 'full')], env)).code).toBe(0);
      const before = JSON.parse(await readFile(baseline, 'utf8')) as { cells: Record<string, Record<string, string>> };
      expect(Object.keys(before.cells)).toEqual(['(endpoint)', 'ref-standard', 'ref-reasoning', 'ref-lenient']);

      const shard = await runCli([...args, '--out', join(dir, 's2'), '--shard', '2/3'], env);
      expect(shard.code, shard.stderr).toBe(0);
      expect(JSON.parse(await readFile(baseline, 'utf8'))).toEqual(before);
      expect(shard.stderr).toMatch(/baseline written: .*b\.json: 2 cell\(s\) observed \(0 new, 0 changed\); 5 cell\(s\) kept as they were, not observed \(this run was narrowed by --shard 2\/3, --probes chat\.basic chat\.model_echo models\.list\), 3 model\(s\) of them untouched/);

      const oneProbe = await runCli(['--base-url', server.url, '--models', 'ref-standard', '--probes', 'chat.basic', '--baseline', baseline, '--update-baseline', '--out', join(dir, 'm')], env);
      expect(oneProbe.code, oneProbe.stderr).toBe(0);
      expect(JSON.parse(await readFile(baseline, 'utf8'))).toEqual(before);
      expect(oneProbe.stderr).toContain('6 cell(s) kept as they were, not observed (this run was narrowed by --models ref-standard, --probes chat.basic)');
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('baseline rules', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ profile: loadProfile('stalling'), apiKey: KEY });
  });
  afterAll(() => server.close());

  it('never stores an error cell as expected, says so, and the next run still fails on it', async () => {
    const dir = await tempDir();
    const baseline = join(dir, 'b.json');
    const args = ['--base-url', server.url, '--timeout', '2', '--probes', 'streaming.basic', 'streaming.done', 'chat.basic', '--baseline', baseline];
    const first = await runCli([...args, '--out', join(dir, 'r1'), '--update-baseline'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/(\d+) error cell\(s\) not stored as expected: 0 keep their previous expectation, \1 have none/);
    const saved = JSON.parse(await readFile(baseline, 'utf8')) as { cells: Record<string, Record<string, string>> };
    expect(Object.values(saved.cells).flatMap((c) => Object.values(c))).not.toContain('error');
    expect(saved.cells.stalls?.['chat.basic']).toBe('pass');
    expect(saved.cells.stalls?.['streaming.basic']).toBeUndefined();

    const next = await runCli([...args, '--out', join(dir, 'r2')], env);
    expect(next.code).toBe(1);
    const errors = (await readReport(join(dir, 'r2'))).results.filter((r) => r.verdict === 'error');
    expect(errors.length).toBeGreaterThan(0);
    for (const r of errors) expect(r).toMatchObject({ outcome: 'failed', comparison: 'new' });
  });

  it.each([
    ['an unknown probe', { 'param.max_tokens': 'honoured' }, /unknown probe\(s\) param\.max_tokens[\s\S]*valid probes: .*parameters\.max_tokens/],
    ['an unknown verdict', { 'chat.basic': 'passed' }, /valid verdicts: honoured, ignored, rejected, accepted, pass, warn, fail, inconclusive, error/],
    ['a verdict of the other kind (every run would be a regression)', { 'chat.basic': 'honoured', 'parameters.n': ['honoured', 'pass'] }, /at cells\.stalls\.chat\.basic: "honoured" is no verdict of a conformance probe \(pass, warn, fail, inconclusive, error\)/],
  ])('refuses a baseline naming %s, listing the valid values', async (_name, cells, reason) => {
    const dir = await tempDir();
    await writeFile(join(dir, 'b.json'), JSON.stringify({ schemaVersion: 1, cells: { stalls: cells } }));
    const before = server.received.length;
    const run = await runCli(['--base-url', server.url, '--baseline', join(dir, 'b.json'), '--out', join(dir, 'r')], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(reason);
    expect(server.received.length - before).toBe(0);
  });
});

describe('a baselined model the endpoint no longer lists', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
  });
  afterAll(() => server.close());

  it('is a regression shown everywhere: console, matrix, JUnit (model_missing), step summary; the baseline keeps it', async () => {
    const dir = await tempDir();
    const baseline = join(dir, 'b.json');
    const args = ['--base-url', server.url, '--probes', 'chat.basic', '--baseline', baseline];
    expect((await runCli([...args, '--out', join(dir, 'r0'), '--update-baseline'], env)).code).toBe(0);
    const saved = JSON.parse(await readFile(baseline, 'utf8')) as { cells: Record<string, Record<string, string>> };
    saved.cells['gone-model'] = { 'chat.basic': 'pass', 'parameters.temperature': 'honoured' };
    await writeFile(baseline, JSON.stringify(saved));

    const summary = join(dir, 'summary.md');
    const run = await runCli([...args, '--out', join(dir, 'r1')], { ...env, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary });
    expect(run.code, run.stderr).toBe(1);
    const report = await readReport(join(dir, 'r1'));
    const gone = report.models.find((m) => m.id === 'gone-model')!;
    expect(gone.notRun).toMatchObject({ comparison: 'missing', outcome: 'failed', cause: 'model_not_listed' });
    expect(run.stdout).toContain('gone-model');
    expect(run.stdout).toContain('1 model(s) missing');
    expect(await readFile(join(dir, 'r1', 'matrix.md'), 'utf8')).toContain('1 model(s) missing');
    expect(await readFile(summary, 'utf8')).toContain('gone-model');
    const junit = await parseJunit(await readFile(join(dir, 'r1', 'junit.xml'), 'utf8'));
    expect(junit.testsuites.testsuite.find((s) => s.name === 'gone-model')?.testcase?.map((c) => c.failure?.type)).toEqual(['model_missing']);

    const update = await runCli([...args, '--out', join(dir, 'r2'), '--update-baseline'], env);
    expect(update.stderr).toContain('gone-model is no longer listed: its baseline cells are kept');
    expect(JSON.parse(await readFile(baseline, 'utf8')).cells['gone-model']).toEqual({ 'chat.basic': 'pass', 'parameters.temperature': 'honoured' });
  });
});

describe('a baselined model named with --models that the endpoint no longer lists', () => {
  it('is a missing model (exit 1), not a typo refused as nothing to test (exit 2)', async () => {
    const server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
    try {
      const dir = await tempDir();
      const baseline = join(dir, 'b.json');
      await writeFile(baseline, JSON.stringify({ schemaVersion: 1, cells: { 'gone-model': { 'chat.basic': 'pass' } } }));
      const run = await runCli(['--base-url', server.url, '--models', 'gone-model', '--probes', 'chat.basic', '--baseline', baseline, '--out', join(dir, 'r')], env);
      expect(run.code, run.stderr).toBe(1);
      const report = await readReport(join(dir, 'r'));
      expect(report.models.map((m) => [m.id, m.notRun?.comparison])).toEqual([['gone-model', 'missing']]);
      const junit = await parseJunit(await readFile(join(dir, 'r', 'junit.xml'), 'utf8'));
      expect(junit.testsuites.testsuite.find((s) => s.name === 'gone-model')?.testcase?.map((c) => c.failure?.type)).toEqual(['model_missing']);
    } finally {
      await server.close();
    }
  });
});

describe('chatprobe compare, a model gone from B', () => {
  it('prints one line for the model with its number of cells, not one per probe; --json likewise; exit 1', async () => {
    const dir = await tempDir();
    const a = wideReport(3, 56);
    const gone = a.models[2]!.id;
    const b = { ...a, models: a.models.slice(0, 2), results: a.results.filter((r) => r.model !== gone) };
    await writeFile(join(dir, 'a.json'), JSON.stringify(a));
    await writeFile(join(dir, 'b.json'), JSON.stringify(b));
    const text = await runCli(['compare', join(dir, 'a.json'), join(dir, 'b.json')]);
    expect(text.code, text.stderr).toBe(1);
    expect(text.stdout.split('\n').filter((l) => l.includes(gone))).toEqual([`model_missing  ${gone}  (every probe): 56 cell(s) in A, the model gone from B`]);
    expect(text.stdout).toContain(': 0 cell(s) differ: 0 worse, 0 better, 0 different; 1 model(s) gone from B (worse)');
    const json = await runCli(['compare', join(dir, 'a.json'), join(dir, 'b.json'), '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ worse: true, counts: { model_missing: 1 }, changes: [{ model: gone, probe: '(every probe)', change: 'model_missing', cells: 56 }] });
  });
});

describe('chatprobe compare', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
  });
  afterAll(() => server.close());

  it('lists the cells that differ, as text and JSON, and exits 1 only when B is worse', async () => {
    const dir = await tempDir();
    const args = ['--base-url', server.url, '--probes', 'parameters.max_tokens', 'chat.basic'];
    await runCli([...args, '--out', join(dir, 'before')], env);
    const changed = loadProfile('default');
    changed.models[0]!.features = { ...changed.models[0]!.features, max_tokens: 'ignore' };
    server.setProfile(changed);
    await runCli([...args, '--out', join(dir, 'after')], env);
    server.setProfile(loadProfile('default'));

    const same = await runCli(['compare', join(dir, 'before'), join(dir, 'before', 'report.json')]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toContain('0 cell(s) differ');
    const worse = await runCli(['compare', join(dir, 'before'), join(dir, 'after')]);
    expect(worse.code, worse.stderr).toBe(1);
    expect(worse.stdout).toMatch(/^worse\s+ref-standard\s+parameters\.max_tokens: honoured → ignored$/m);
    const better = await runCli(['compare', join(dir, 'after'), join(dir, 'before'), '--json']);
    expect(better.code).toBe(0);
    expect(JSON.parse(better.stdout)).toMatchObject({ worse: false, counts: { better: 1 }, changes: [{ model: 'ref-standard', probe: 'parameters.max_tokens', a: 'ignored', b: 'honoured' }] });
    const missing = await runCli(['compare', join(dir, 'before'), join(dir, 'nowhere')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read');
  });
});
