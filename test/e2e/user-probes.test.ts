import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { parseJunit } from '../helpers/junit.js';
import { tempDir } from '../helpers/tmp.js';
import { parseReport } from '../helpers/report-schema.js';

/**
 * Probes of the user's own, written outside the repository (a temporary folder with no node_modules, so
 * nothing there resolves 'chatprobe' but the CLI itself), run by the built CLI against the reference
 * server: a module of defineProbe's and declarative .probe.json files, the README's examples among them.
 * Their cells must be in every report, chosen by --probes, priced by --dry-run, and a file that cannot
 * run must stop the run before anything is sent.
 */
const KEY = 'sk-user-probes-Hq7Wm3Zx9Tb2';
const env = { OPENAI_API_KEY: KEY };
const MODELS = ['ref-standard', 'ref-reasoning', 'ref-lenient'];

/** A module of two probes in an area of its own: a conformance check and one at the endpoint. */
const MODULE = `
import { defineProbe, conformance, fail, unjudgeable, readChoices } from 'chatprobe';

export default [
  defineProbe({
    id: 'acme.says_ok',
    area: 'acme',
    kind: 'conformance',
    requirement: 'The plain prompt gets some text back.',
    verdicts: ['pass', 'fail', 'inconclusive'],
    cost: { requests: 1, maxTokens: 16 },
    async run(ctx) {
      const x = await ctx.chat({ messages: [{ role: 'user', content: 'Reply with the single word OK.' }], max_tokens: 16 });
      const unusable = unjudgeable(x, 'an answer');
      if (unusable) return unusable;
      const text = readChoices(x.json)[0]?.content ?? '';
      return conformance(text ? [] : [fail('no_text', 'expected some text, got none')], 'said ' + JSON.stringify(text));
    },
  }),
  defineProbe({
    id: 'acme.listing',
    area: 'acme',
    kind: 'conformance',
    scope: 'target',
    requirement: 'GET /models answered 200.',
    verdicts: ['pass', 'fail'],
    cost: { requests: 0, maxTokens: 0 },
    async run(ctx) {
      const x = ctx.listing();
      return conformance(x.status === 200 ? [] : [fail('listing', 'expected 200, got ' + x.status)], 'GET /models: HTTP ' + x.status);
    },
  }),
];
`;

/** A field the server adds with a parameter: honoured, rejected and ignored by the default profile's three models. */
const LOGPROBS = {
  id: 'acme.logprobs',
  requirement: 'logprobs: true adds choices[0].logprobs.content.',
  request: { messages: [{ role: 'user', content: 'Reply with the single word OK.' }], max_tokens: 16, logprobs: true },
  control: { messages: [{ role: 'user', content: 'Reply with the single word OK.' }], max_tokens: 16 },
  writtenBy: 'server',
  effect: [{ path: 'choices[0].logprobs.content', exists: true }],
};

/** The README's examples of both forms (a vendor field the reference server does not know). */
async function readmeExamples(): Promise<{ json: string; module: string }> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Your own probes'), readme.indexOf('## From code'));
  const json = [...section.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  const js = [...section.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  expect(json).toHaveLength(1);
  expect(js).toHaveLength(1);
  return { json: json[0]!, module: js[0]! };
}

let server: ReferenceServer;
let dir: string;
beforeAll(async () => {
  server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
  dir = await tempDir('chatprobe-own-probes-');
  const examples = await readmeExamples();
  await writeFile(join(dir, 'acme.mjs'), MODULE);
  await writeFile(join(dir, 'logprobs.probe.json'), JSON.stringify(LOGPROBS, null, 2));
  await writeFile(join(dir, 'trace.mjs'), examples.module);
  await writeFile(join(dir, 'safe-mode.probe.json'), examples.json);
});
afterAll(() => server.close());

const FILES = ['--probe-file', 'acme.mjs', '--probe-file', 'logprobs.probe.json', '--probe-file', 'trace.mjs', '--probe-file', 'safe-mode.probe.json'];
const OWN = ['acme.says_ok', 'acme.listing', 'acme.logprobs', 'acme.trace_id', 'acme.safe_mode'];

interface Cell {
  model: string;
  probe: string;
  verdict: string;
  observed: string;
}

describe('probe files written outside the repository', () => {
  it('are in a folder where nothing resolves chatprobe but the CLI running them', () => {
    expect(dir.startsWith(ROOT)).toBe(false);
    expect(() => createRequire(join(dir, 'x.mjs')).resolve('chatprobe')).toThrow();
  });

  it('run beside chatprobe\'s own, each form judged by its rules, and every report shows their cells', async () => {
    const before = server.received.length;
    const run = await runCli(['--base-url', server.url, ...FILES, '--probes', 'acme.*,chat.basic', '--out', 'reports'], env, dir);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(dir, 'reports', 'report.json'), 'utf8')) as { probes: { id: string; area: string; kind: string; requirement: string }[]; results: Cell[] };
    expect(report.probes.map((p) => p.id).sort()).toEqual([...OWN, 'chat.basic'].sort());
    expect(report.probes.find((p) => p.id === 'acme.logprobs')).toMatchObject({ area: 'acme', kind: 'capability', requirement: LOGPROBS.requirement });
    const cell = (model: string, probe: string) => report.results.find((r) => r.model === model && r.probe === probe)!;
    // The declarative probe, on the three ways the default profile's models treat logprobs.
    expect(cell('ref-standard', 'acme.logprobs')).toMatchObject({ verdict: 'honoured', observed: 'expected choices[0].logprobs.content present with logprobs: true and not without it; got it with it, and no choices[0].logprobs.content without it' });
    expect(cell('ref-reasoning', 'acme.logprobs')).toMatchObject({ verdict: 'rejected', observed: expect.stringMatching(/^expected logprobs: true to be accepted, got HTTP 400/) });
    expect(cell('ref-lenient', 'acme.logprobs')).toMatchObject({ verdict: 'ignored', observed: 'expected choices[0].logprobs.content present with logprobs: true, got no choices[0].logprobs.content' });
    for (const model of MODELS) {
      expect(cell(model, 'acme.says_ok').verdict).toBe('pass');
      // The README's vendor fields are unknown to the reference server, which answers without them.
      expect(cell(model, 'acme.trace_id')).toMatchObject({ verdict: 'ignored', observed: 'expected x_acme.trace_id, got null' });
      expect(cell(model, 'acme.safe_mode')).toMatchObject({ verdict: 'ignored', observed: 'expected choices[0].message.safety.rating present with safe_mode: true, got no choices[0].message.safety.rating' });
    }
    expect(cell('(endpoint)', 'acme.listing').verdict).toBe('pass');
    // Every request a probe sent carried an output limit: only the three smoke calls went without.
    const chats = server.received.slice(before).filter((r) => r.path === '/v1/chat/completions');
    expect(chats.filter((r) => !r.limited)).toHaveLength(MODELS.length);

    const matrix = await readFile(join(dir, 'reports', 'matrix.md'), 'utf8');
    expect(matrix).toContain('| `acme.logprobs` | capability | ✅ honoured | ⛔ rejected | 🟡 ignored |');
    expect(matrix).toContain('| `acme.says_ok` | conformance | ✅ pass | ✅ pass | ✅ pass |');
    expect(matrix).toContain('`acme.safe_mode` (capability): safe\\_mode: true adds a safety rating');
    const junit = await parseJunit(await readFile(join(dir, 'reports', 'junit.xml'), 'utf8'));
    const cases = junit.testsuites.testsuite.flatMap((s) => (s.testcase ?? []).map((c) => ({ model: c.classname, name: c.name, out: c['system-out'] ?? '' })));
    for (const model of MODELS) for (const id of ['acme.says_ok', 'acme.logprobs', 'acme.trace_id', 'acme.safe_mode']) expect(cases.some((c) => c.model === model && c.name === id), `${model} ${id}`).toBe(true);
    expect(cases.find((c) => c.model === 'ref-reasoning' && c.name === 'acme.logprobs')!.out).toMatch(/^verdict: rejected/);
    const html = await readFile(join(dir, 'reports', 'report.html'), 'utf8');
    for (const id of OWN) expect(html, id).toContain(id);
    // The key went nowhere but the Authorization header.
    for (const text of [run.stdout, run.stderr, matrix, html]) expect(text).not.toContain(KEY);

    // Judged again from the record, with the same files, every cell comes out the same.
    const judged = await runCli(['judge', 'reports', ...FILES], {}, dir);
    expect(judged.code, judged.stderr).toBe(0);
    expect(judged.stderr).toContain('every cell judged as reports/report.json has it');
  }, 60_000);

  it('are chosen by --probes and priced by --dry-run, sending nothing but GET /models', async () => {
    const before = server.received.length;
    const run = await runCli(['--base-url', server.url, ...FILES, '--probes', 'acme.*', '--dry-run', '--json'], env, dir);
    expect(run.code, run.stderr).toBe(0);
    expect(server.received.slice(before)).toEqual([{ method: 'GET', path: '/v1/models' }]);
    const plan = JSON.parse(run.stdout) as { perArea: { area: string; probes: number; requests: number; maxTokens: number }[]; endpoint: { probes: number }; perModel: { requests: number; maxTokens: number } };
    // says_ok 1 request of 16 tokens; logprobs, trace_id and safe_mode a pair of 16 each.
    expect(plan.perArea).toEqual([{ area: 'acme', probes: 4, requests: 7, maxTokens: 112 }]);
    expect(plan.endpoint.probes).toBe(1);
    expect(plan.perModel).toEqual({ requests: 8, maxTokens: 114 });
    const text = await runCli(['--base-url', server.url, ...FILES, '--probes', 'acme.logprobs', '--dry-run'], env, dir);
    expect(text.stdout).toMatch(/^ {2}acme\s+2 request\(s\)\s+32 max tokens {2}\(1 probe\(s\)\)$/m);
    // An id no file and no built-in probe has lists the user's among the valid ones.
    const unknown = await runCli(['--base-url', server.url, ...FILES, '--probes', 'acme.nothing', '--dry-run'], env, dir);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown probe "acme\.nothing"[\s\S]*acme\.logprobs/);
  }, 60_000);

  it('run in shards that merge against the baseline that holds their cells (merge takes no probe file: the shards\' reports name them)', async () => {
    const probes = ['--probes', 'acme.logprobs', 'chat.basic'];
    const full = await runCli(['--base-url', server.url, ...FILES, ...probes, '--out', 'shard-full', '--baseline', 'shard-baseline.json', '--update-baseline', '--quiet'], env, dir);
    expect(full.code, full.stderr).toBe(0);
    for (const i of [1, 2]) {
      const shard = await runCli(['--base-url', server.url, ...FILES, ...probes, '--shard', `${i}/2`, '--out', `shard-${i}`, '--baseline', 'shard-baseline.json', '--quiet'], env, dir);
      expect(shard.code, shard.stderr).toBe(0);
    }
    const merged = await runCli(['merge', 'shard-1', 'shard-2', '--out', 'shard-merged', '--baseline', 'shard-baseline.json'], env, dir);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toContain('0 regression(s)');
    const report = parseReport(await readFile(join(dir, 'shard-merged', 'report.json'), 'utf8'));
    expect(report.results.filter((r) => r.probe === 'acme.logprobs').map((r) => r.verdict).sort()).toEqual(['honoured', 'ignored', 'rejected']);
    // A baseline cell of a probe no shard ran is still refused, naming it.
    await writeFile(join(dir, 'stray-baseline.json'), JSON.stringify({ schemaVersion: 1, cells: { 'ref-standard': { 'acme.nowhere': 'pass' } } }));
    const stray = await runCli(['merge', 'shard-1', 'shard-2', '--out', 'shard-merged-2', '--baseline', 'stray-baseline.json'], env, dir);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('unknown probe(s) acme.nowhere');
  }, 120_000);

  it('come from the config file too, and are listed by chatprobe probes', async () => {
    await writeFile(join(dir, 'chatprobe.config.json'), JSON.stringify({ probeFile: ['logprobs.probe.json', 'acme.mjs'], probes: 'acme.*' }));
    try {
      const run = await runCli(['--base-url', server.url, '--dry-run', '--json'], env, dir);
      expect(run.code, run.stderr).toBe(0);
      expect((JSON.parse(run.stdout) as { probes: { id: string }[] }).probes.map((p) => p.id)).toEqual(['acme.logprobs', 'acme.says_ok', 'acme.listing']);
    } finally {
      await writeFile(join(dir, 'chatprobe.config.json'), '{}');
    }
    const listed = await runCli(['probes', '--probe-file', 'logprobs.probe.json', '--json'], {}, dir);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { id: string; cost: { requests: number } }[]).find((p) => p.id === 'acme.logprobs')).toMatchObject({ cost: { requests: 2 } });
  });

  it('stop the run before anything is sent when they cannot run, saying what to fix (exit 2)', async () => {
    const files: Record<string, string> = {
      'no-default.mjs': 'export const probe = 1;\n',
      'not-a-probe.mjs': "export default { id: 'acme.x', run() {} };\n",
      'own-id.mjs': MODULE.replace("id: 'acme.says_ok'", "id: 'chat.basic'").replace("area: 'acme',\n    kind: 'conformance',\n    requirement: 'The plain", "area: 'chat',\n    kind: 'conformance',\n    requirement: 'The plain"),
      'bad-id.mjs': MODULE.replace("id: 'acme.says_ok'", "id: 'Acme says OK'"),
      // Not made with defineProbe: chatprobe's own defineProbe checks it.
      'plain.mjs': "export default { id: 'acme.x', area: 'chat', kind: 'conformance', requirement: 'r', verdicts: ['pass'], cost: { requests: 0, maxTokens: 0 }, run: async () => ({ verdict: 'pass', observed: '' }) };\n",
      'throws.mjs': "throw new Error('the vendor SDK is not configured');\n",
      'no-limit.probe.json': JSON.stringify({ ...LOGPROBS, request: { messages: LOGPROBS.request.messages, logprobs: true } }),
      'twice.probe.json': JSON.stringify(LOGPROBS),
    };
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    const cases: [string[], RegExp][] = [
      [['missing.mjs'], /^chatprobe: cannot read probe file missing\.mjs: no such file\nhint: /],
      [['no-default.mjs'], /^chatprobe: probe file no-default\.mjs has no default export\nhint: end it with export default defineProbe/],
      [['not-a-probe.mjs'], /^chatprobe: probe file not-a-probe\.mjs: its default export is not a probe \(no string area\)/],
      [['own-id.mjs'], /^chatprobe: probe file own-id\.mjs: chat\.basic is the id of one of chatprobe's own probes\nhint: give it an id of your own/],
      [['bad-id.mjs'], /^chatprobe: probe file bad-id\.mjs could not be loaded: probe id "Acme says OK" is not of the form area\.feature\[\.aspect\]\nhint: an id is area\.feature/],
      [['plain.mjs'], /^chatprobe: probe file plain\.mjs: probe id "acme\.x" does not start with its area "chat"\nhint: an id is area\.feature/],
      [['throws.mjs'], /^chatprobe: probe file throws\.mjs could not be loaded: the vendor SDK is not configured/],
      [['no-limit.probe.json'], /^chatprobe: invalid probe file no-limit\.probe\.json: request: no output limit: add "max_tokens": 16/],
      [['logprobs.probe.json', 'twice.probe.json'], /^chatprobe: probe file twice\.probe\.json: acme\.logprobs is also the id of a probe in logprobs\.probe\.json/],
      [['notes.txt'], /^chatprobe: cannot read probe file notes\.txt: no such file/],
    ];
    const before = server.received.length;
    for (const [given, message] of cases) {
      const run = await runCli(['--base-url', server.url, ...given.flatMap((f) => ['--probe-file', f]), '--out', 'refused'], env, dir);
      expect(run.code, given.join(' ')).toBe(2);
      expect(run.stderr.replace(/^note: .*\n/gm, ''), given.join(' ')).toMatch(message);
    }
    expect(server.received.length).toBe(before);
    expect(existsSync(join(dir, 'refused'))).toBe(false);
    // Ten runs that stop at once: 14 s on 2 busy cores.
  }, 60_000);

  it('in TypeScript: said plainly where Node cannot run it, run through a loader where one is given', async () => {
    const ts = MODULE.replace("import { defineProbe,", "import { type ProbeVerdict, defineProbe,").replace("async run(ctx) {\n      const x", "async run(ctx): Promise<ProbeVerdict> {\n      const x");
    await writeFile(join(dir, 'typed.mts'), ts);
    const plain = await runCli(['--base-url', server.url, '--probe-file', 'typed.mts', '--probes', 'acme.says_ok', '--out', 'typed'], env, dir);
    const stripsTypes = Boolean((process.features as { typescript?: unknown }).typescript);
    if (stripsTypes) expect(plain.code, plain.stderr).toBe(0);
    else {
      expect(plain.code).toBe(2);
      expect(plain.stderr).toContain(`chatprobe: probe file typed.mts is TypeScript, which Node ${process.version} does not run by itself\nhint: run chatprobe on Node 22.18 or later`);
    }
    // tsx, as NODE_OPTIONS="--import tsx" loads it: resolved from the working directory, here the repository, where it is installed.
    const loaded = await runCli(['--base-url', server.url, '--probe-file', join(dir, 'typed.mts'), '--probes', 'acme.says_ok', '--out', join(dir, 'typed')], { ...env, NODE_OPTIONS: '--import=tsx' }, ROOT);
    expect(loaded.code, loaded.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(dir, 'typed', 'report.json'), 'utf8')) as { results: Cell[] };
    expect(report.results.filter((r) => r.probe === 'acme.says_ok').map((r) => r.verdict)).toEqual(['pass', 'pass', 'pass']);
  }, 30_000);
});
