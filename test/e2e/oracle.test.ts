import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile, PROFILE_NAMES } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import { ENDPOINT, Report, type Verdict } from '../../src/results/model.js';
import { PROBES } from '../../suites/index.js';
import { endpointProbes, expectations, modelProbesOf } from '../oracle/expectations.js';
import { SMOKE_PROMPT } from '../../src/engine/probe.js';
import { gateResults, viewOf } from '../../src/results/view.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { parseReport } from '../helpers/report-schema.js';
import { parseJunit } from '../helpers/junit.js';

const KEY = 'sk-oracle-test-key-0123456789';
const apiProfiles = PROFILE_NAMES.filter((name) => loadProfile(name).server.mode === 'api');
const targetProbes = endpointProbes();

/**
 * Every cell a profile must show: `model probe` → verdict, endpoint cells under ENDPOINT; each derived by
 * rule from what the profile declares, or declared in its `expect` where no rule can say
 * (test/oracle/expectations.ts).
 */
const expected = (name: string): Record<string, Verdict> => expectations(loadProfile(name), ENDPOINT);

/**
 * The oracle: audit every reference profile with the real CLI and compare each cell of the matrix with
 * the verdict expected of it.
 */
describe.each(apiProfiles)('profile %s', (name) => {
  const profile = loadProfile(name);
  // The billing probes run only where a balance route answers: on profiles with a meter.
  const modelProbes = modelProbesOf(profile);
  let server: ReferenceServer;
  let out: string;
  let run: Awaited<ReturnType<typeof runCli>>;
  let report: Report;

  beforeAll(async () => {
    out = await tempDir();
    server = await startReferenceServer({ profile, apiKey: KEY });
    const env: Record<string, string> = profile.oracle.key ? { OPENAI_API_KEY: KEY } : {};
    // Every probe, the extended tier included, unless the profile picks its own.
    const every = profile.oracle.args.includes('--probes') ? [] : ['--probes', '*'];
    run = await runCli(['--base-url', server.url, '--out', out, ...every, ...profile.oracle.args], env);
    report = parseReport(await readFile(join(out, 'report.json'), 'utf8'));
  }, 180_000);
  afterAll(() => server?.close());

  it('expects a verdict of every probe on every listed model and the endpoint: by rule, or declared only where no rule can say', () => {
    // expectations() throws on a cell neither decides, on a declared verdict a rule already gives, and on
    // a declared probe that does not run here.
    const cells = expected(name);
    const keys = [...profile.models.filter((x) => x.listed).flatMap((m) => modelProbes.map((p) => `${m.id} ${p}`)), ...targetProbes.map((p) => `${ENDPOINT} ${p}`)];
    expect(Object.keys(cells).sort()).toEqual(keys.sort());
  });

  /**
   * A timing verdict whose own control stood it down: streaming.buffered is inconclusive when chatprobe's
   * event loop was held up long enough to have made the burst itself, which a machine running the whole
   * suite on two cores does at times. Read as the expected verdict (never as its opposite); judge-buffered's
   * unit tests pin the rule.
   */
  const stoodDown = (model: string, probe: string) => {
    const r = report.results.find((x) => x.model === model && x.probe === probe);
    return r?.probe === 'streaming.buffered' && r.verdict === 'inconclusive' && /chatprobe's own event loop was held up \d+ ms while it arrived, long enough/.test(r.observed);
  };

  it('gives every cell the expected verdict', () => {
    const want = expected(name);
    const actual = Object.fromEntries(report.results.map((r) => [`${r.model} ${r.probe}`, stoodDown(r.model, r.probe) ? want[`${r.model} ${r.probe}`] : r.verdict]));
    // A row that was not probed is one line in the report; each of its cells shows the row's verdict.
    const view = viewOf(report);
    for (const m of report.models.filter((x) => x.notRun)) {
      expect(report.results.filter((r) => r.model === m.id), m.id).toEqual([]);
      for (const p of view.matrixProbes) actual[`${m.id} ${p.id}`] = view.cell(m.id, p.id)!.verdict;
    }
    expect(actual).toEqual(want);
  });

  it('renders the same verdicts in matrix.md', async () => {
    const md = await readFile(join(out, 'matrix.md'), 'utf8');
    const models = profile.models.filter((m) => m.listed);
    const want = expected(name);
    for (const p of modelProbes) {
      const row = md.split('\n').find((l) => l.startsWith(`| \`${p}\` | c`));
      expect(row, p).toBeDefined();
      // "✅ pass", "💥 error: timeout": the verdict is the word after the mark.
      const cells = row!.split(' | ').slice(2).map((c, i) => (stoodDown(models[i]!.id, p) ? want[`${models[i]!.id} ${p}`] : /^\S+ (\w+)/.exec(c)?.[1]));
      expect(cells, p).toEqual(models.map((m) => want[`${m.id} ${p}`]));
    }
    for (const p of targetProbes) expect(md, p).toContain(`| \`${p}\` | `);
  });

  it('caps every request but the smoke calls\' first tries (verdict contract, rule 7)', () => {
    const chats = server.received.filter((r) => r.path === '/v1/chat/completions');
    expect(chats.length).toBeGreaterThan(0);
    for (const r of chats.filter((x) => x.limited === false)) {
      const body = JSON.parse(r.body!);
      // errors.out_of_range sends max_tokens: -5 as the one limit: the value under test.
      if (body.max_tokens === -5) continue;
      expect(Object.keys(body).sort(), r.body).toEqual(['messages', 'model']);
      expect(body.messages, r.body).toEqual([{ role: 'user', content: SMOKE_PROMPT }]);
    }
  });

  it('exits as the verdicts say and writes all five files', async () => {
    const failing = gateResults(report).some((r) => r.outcome === 'failed' || r.outcome === 'errored');
    expect(run.code, run.stderr).toBe(failing ? 1 : 0);
    for (const f of ['report.json', 'junit.xml', 'matrix.md', 'trace.jsonl', 'exchanges.har', 'report.html']) {
      expect((await readFile(join(out, f), 'utf8')).length, f).toBeGreaterThan(0);
    }
  });

  it('records every call in exchanges.har, and every cell’s evidence is in it', async () => {
    const har = JSON.parse(await readFile(join(out, 'exchanges.har'), 'utf8')) as { log: { version: string; entries: { _callId: string; _events?: { at: number }[]; request: { headers: { name: string; value: string }[] } }[] } };
    expect(har.log.version).toBe('1.2');
    const ids = new Set(har.log.entries.map((e) => e._callId));
    expect(ids.size).toBe(report.calls);
    for (const r of report.results) for (const id of r.evidence) expect(ids.has(id), `${r.model} ${r.probe} ${id}`).toBe(true);
    // The key is named where it was sent, never written.
    const sentKey = har.log.entries.flatMap((e) => e.request.headers).filter((h) => h.name === 'authorization' && h.value.includes('OPENAI_API_KEY'));
    if (profile.oracle.key) expect(sentKey.length).toBeGreaterThan(0);
    expect(JSON.stringify(har)).not.toContain(KEY.slice(3, 19));
  });

  /**
   * chatprobe judge, offline (no key given, not one request to the server), reproduces the run's report.
   * Compared whole, but for each cell's durationMs: how long the probe took on this machine, which a replay
   * (no network, no waits) cannot and should not reproduce. The report's own times are the run's, kept in
   * the record; trace.jsonl is the run's to the byte (each call's `at`, duration and time to first token
   * come from the record). The loop lag buffered streams are judged by is the recorded one: a loaded
   * machine's lag that stood a cell down in the run stands it down in the replay too.
   */
  it('is judged again offline from its record, cell for cell (chatprobe judge)', async () => {
    const sent = server.received.length;
    const judged = join(out, 'judged');
    const again = await runCli(['judge', out, '--quiet']);
    expect(again.stderr).not.toMatch(/not in the record|otherwise than|out of the run's order/);
    expect(again.code, again.stderr).toBe(run.code);
    expect(server.received.length).toBe(sent);
    const strip = (r: Report) => ({ ...r, results: r.results.map(({ durationMs: _, ...cell }) => cell) });
    expect(strip(parseReport(await readFile(join(judged, 'report.json'), 'utf8')))).toEqual(strip(report));
    expect(await readFile(join(judged, 'matrix.md'), 'utf8')).toBe(await readFile(join(out, 'matrix.md'), 'utf8'));
    expect(await readFile(join(judged, 'trace.jsonl'), 'utf8')).toBe(await readFile(join(out, 'trace.jsonl'), 'utf8'));
    // The key, in no form (the echo-key profile's server sends it back in bodies, headers and streams).
    const record = gunzipSync(await readFile(join(out, 'record.jsonl.gz'))).toString('utf8');
    expect(record).not.toContain(KEY.slice(3, 19));
  }, 60_000);

  it('writes a junit.xml that conforms to the Jenkins schema and tells each gate line as the report does', async () => {
    const junit = await parseJunit(await readFile(join(out, 'junit.xml'), 'utf8'));
    const cases = new Map(junit.testsuites.testsuite.flatMap((s) => (s.testcase ?? []).map((c) => [`${s.name} ${c.name}`, c] as const)));
    const lines = gateResults(report);
    expect(cases.size).toBe(lines.length);
    for (const r of lines) {
      const c = cases.get(`${r.model === ENDPOINT ? 'endpoint' : r.model} ${r.probe}`)!;
      const shown = c.failure ? 'failed' : c.error ? 'errored' : c.skipped ? (c.skipped.message.includes('counted once') ? 'failed' : 'skipped') : 'passed';
      expect(shown, `${r.model} ${r.probe}`).toBe(r.outcome);
    }
  });
});

describe('declared against observed, on the default profile', () => {
  it('sets what GET /models declares beside the verdicts: a route that declares max_tokens and tools and drops them', async () => {
    const out = await tempDir();
    const server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
    try {
      await runCli(['--base-url', server.url, '--out', out, '--models', 'ref-lenient', '--probes', 'parameters.max_tokens', 'parameters.tools', 'parameters.seed', 'chat.basic'], { OPENAI_API_KEY: KEY });
    } finally {
      await server.close();
    }
    const report = parseReport(await readFile(join(out, 'report.json'), 'utf8'));
    const codes = Object.fromEntries(report.results.map((r) => [r.probe, r.findings.filter((f) => f.code.includes('declared')).map((f) => f.code)]));
    expect(codes).toMatchObject({ 'parameters.max_tokens': ['declared_not_observed'], 'parameters.tools': ['declared_not_observed'], 'parameters.seed': ['observed_not_declared'], 'chat.basic': [] });
    const md = await readFile(join(out, 'matrix.md'), 'utf8');
    expect(md.split('## Declared against observed')[1]?.split('\n## ')[0]).toContain('parameters.max_tokens`: GET /models declares max\\_tokens \\(supported\\_parameters\\), and it was ignored');
  }, 60_000);
});

describe('the reference profiles together', () => {
  it('show every verdict each probe can give', () => {
    const seen = new Map<string, Set<Verdict>>();
    for (const name of apiProfiles) {
      for (const [cell, v] of Object.entries(expected(name))) {
        const probe = cell.slice(cell.lastIndexOf(' ') + 1);
        if (!seen.has(probe)) seen.set(probe, new Set());
        seen.get(probe)!.add(v);
      }
    }
    for (const p of PROBES) expect([...(seen.get(p.id) ?? [])].sort(), p.id).toEqual(expect.arrayContaining([...p.verdicts]));
  });

  it('include a default profile that shows honoured, ignored and rejected and keeps the wire contract', () => {
    const verdicts = new Set(Object.values(expected('default')));
    expect([...verdicts]).toEqual(expect.arrayContaining(['honoured', 'ignored', 'rejected']));
    expect([...verdicts].filter((v) => v === 'fail' || v === 'warn' || v === 'error')).toEqual([]);
    expect(loadProfile('default').models.length).toBeGreaterThanOrEqual(3);
  });
});

describe('an error body in a 2xx', () => {
  it('is said wherever it made a cell inconclusive, whichever judgement read it', async () => {
    const server = await startReferenceServer({ profile: loadProfile('broken-gateway'), apiKey: KEY });
    try {
      const out = await tempDir();
      await runCli(['--base-url', server.url, '--out', out, '--models', 'err-in-200', '--probes', 'parameters.*', 'roles.system', 'streaming.content_type'], { OPENAI_API_KEY: KEY });
      const report = parseReport(await readFile(join(out, 'report.json'), 'utf8'));
      const cells = report.results.filter((x) => x.verdict === 'inconclusive');
      expect(cells.length).toBeGreaterThan(5);
      for (const r of cells) expect(r.findings.map((f) => f.code), r.probe).toContain('error_in_2xx');
    } finally {
      await server.close();
    }
  });
});

describe('usage inflated by a relay', () => {
  it('leaves the length limits honoured, from the cut, and names the ratio as a billing fault on each (the profile oracle checks verdicts only)', async () => {
    const server = await startReferenceServer({ profile: loadProfile('billing'), apiKey: KEY });
    try {
      const out = await tempDir();
      await runCli(['--base-url', server.url, '--out', out, '--models', 'bill-inflated', '--probes', 'parameters.max_tokens', 'parameters.max_completion_tokens'], { OPENAI_API_KEY: KEY });
      const report = parseReport(await readFile(join(out, 'report.json'), 'utf8'));
      expect(report.results.map((r) => [r.probe, r.verdict]).sort()).toEqual([
        ['parameters.max_completion_tokens', 'honoured'],
        ['parameters.max_tokens', 'honoured'],
      ]);
      for (const r of report.results) {
        const f = r.findings.find((x) => x.code === 'usage_inflated');
        expect(f?.severity, r.probe).toBe('warn');
        expect(f?.message, r.probe).toContain('usage reports 3.0× the completion tokens its text can hold (15 for the 5 text pieces of the capped answer');
      }
      // Shown with each cell where findings are shown (matrix.md lists only cells short of honoured).
      expect(await readFile(join(out, 'junit.xml'), 'utf8')).toContain('warn: usage_inflated: usage reports 3.0×');
    } finally {
      await server.close();
    }
  });
});

describe('what the usage probes find', () => {
  /** Each usage cell's warn and fail findings, and its verdict, by `model probe` (the profile oracle checks verdicts only). */
  async function usageCells(profileName: string): Promise<Map<string, Report['results'][number]>> {
    const server = await startReferenceServer({ profile: loadProfile(profileName), apiKey: KEY });
    try {
      const out = await tempDir();
      await runCli(['--base-url', server.url, '--out', out, '--probes', 'usage.*'], { OPENAI_API_KEY: KEY });
      const report = parseReport(await readFile(join(out, 'report.json'), 'utf8'));
      return new Map(report.results.map((r) => [`${r.model} ${r.probe}`, r]));
    } finally {
      await server.close();
    }
  }
  const graver = (r: Report['results'][number] | undefined) => (r?.findings ?? []).filter((f) => f.severity !== 'info').map((f) => [f.code, f.severity]);

  it('names each fault of the usage profile with its evidence, and finds nothing on its honest model', async () => {
    const cells = await usageCells('usage');
    const hidden = cells.get('gpt-4o-mini usage.prompt_overhead');
    expect(graver(hidden)).toEqual([['hidden_prompt', 'fail']]);
    expect(hidden?.observed).toContain('a hidden prompt of 400 tokens is added to every request');
    const mismatch = cells.get('llama-3.1-8b-instruct usage.tokenizer');
    expect(graver(mismatch)).toEqual([['tokenizer_mismatch', 'warn']]);
    expect(mismatch?.observed).toContain('the name claims Llama 3 (the unit 19 tokens), but the endpoint counts like cl100k');
    const inflated = cells.get('gemma-3-12b-it usage.completion');
    expect(graver(inflated)).toEqual([['usage_inflated', 'warn']]);
    expect(inflated?.observed).toContain('usage reports 3.0× the completion tokens of the text (144 completion tokens');
    const replaced = cells.get('mistral-small-3.1-24b-instruct usage.prompt_overhead');
    expect(replaced?.verdict).toBe('pass');
    expect(replaced?.findings.find((f) => f.code === 'default_prompt')?.message).toContain('a default system prompt of 300 tokens');
    expect(graver(cells.get('cached-relay usage.cache'))).toEqual([['cached_replay', 'warn']]);
    for (const probe of ['usage.tokenizer', 'usage.prompt_overhead', 'usage.completion', 'usage.cache']) {
      const honest = cells.get(`qwen2.5-7b-instruct ${probe}`);
      expect(honest?.verdict, probe).toBe('pass');
      expect(graver(honest), probe).toEqual([]);
    }
    expect(cells.get('qwen2.5-7b-instruct usage.tokenizer')?.observed).toMatch(/^prompt_tokens 15 and 87 for the unit × 0 and 3; 26 for the instruction in a user message; 25 for the counting prompt: exact/);
  }, 60_000);

  it('finds nothing on the default profile, whose models count with a tokenizer outside the table', async () => {
    const cells = await usageCells('default');
    expect([...cells.values()].flatMap((r) => graver(r).map(([code]) => `${r.model} ${r.probe} ${code}`))).toEqual([]);
    expect(cells.get('ref-standard usage.tokenizer')?.observed).toContain('a tokenizer outside the table');
  }, 60_000);
});
