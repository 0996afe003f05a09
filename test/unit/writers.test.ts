import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { renderJunit, xmlAttr, xmlText } from '../../src/report/writers/junit.js';
import { oneLine, showControls } from '../../src/text.js';
import { junitProblems, parseJunit, propsOf } from '../helpers/junit.js';
import { escapeText, renderMatrix } from '../../src/report/writers/markdown.js';
import { painter, renderConsole, RowProgress } from '../../src/report/writers/console.js';
import { summarise } from '../../src/report/summary.js';
import { gate } from '../../src/report/gate.js';
import { renderGithubSummary } from '../../src/report/writers/github.js';
import { sampleReport } from '../helpers/report.js';
import { ROOT, runCommand } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { commitStaged, stageFile } from '../../src/report/write.js';
import { outcomeOf } from '../../src/results/outcome.js';
import type { ProbeResult, Report } from '../../src/results/model.js';
import { PROBES } from '../../suites/index.js';

describe('junit.xml', () => {
  const xml = renderJunit(sampleReport());
  const parsed = parseJunit(xml);

  it('conforms to the Jenkins JUnit schema: properties on suites only, no attribute the schema lacks', async () => {
    expect(await junitProblems(xml)).toEqual([]);
    expect(xml).not.toMatch(/<testcase[^>]*>\s*<properties>/);
  });

  it('has one suite per model, classname = model id with dots replaced, name = probe id', async () => {
    const suites = (await parsed).testsuites.testsuite;
    expect(suites.map((s) => s.name)).toEqual(['gpt-4.1|mini', 'org/llama-3.1']);
    expect(suites[0]!.testcase!.map((c) => [c.classname, c.name])).toEqual([
      ['gpt-4_1|mini', 'chat.basic'],
      ['gpt-4_1|mini', 'parameters.max_tokens'],
    ]);
  });

  it('carries time and a timestamp, and the model and run facts as suite properties', async () => {
    const doc = (await parsed).testsuites;
    expect(doc.time).toBe('1.000');
    const [first, second] = doc.testsuite;
    expect(first).toMatchObject({ time: '0.024', timestamp: '2026-01-01T00:00:00' });
    expect(first!.testcase![0]!.time).toBe('0.012');
    expect(propsOf(second!)).toMatchObject({ model: 'org/llama-3.1', listed: 'true', cause: 'upstream', advice: 'channel down', 'chatprobe.version': '0.0.0-test', target: 'http://127.0.0.1:1/v1', run_started: '2026-01-01T00:00:00.000Z' });
  });

  it('says what failed: a broken requirement, an untestable cell, our own error, a skip with its reason', async () => {
    const [first, second] = (await parsed).testsuites.testsuite;
    const [fail, skipped] = first!.testcase!;
    expect(fail!.failure!.type).toBe('conformance');
    expect(fail!.failure!.message).toContain('gpt-4.1|mini · chat.basic: fail: expected "stop", got "eos"');
    expect(fail!['system-out']).toContain('verdict: fail\nkind: conformance\noutcome: failed');
    expect(skipped!.skipped!.message).toBe('inconclusive: ended early');
    const [upstream, harness] = second!.testcase!;
    expect(upstream!.failure!.type).toBe('untestable');
    expect(harness!.error!.type).toBe('harness');
    expect((await parsed).testsuites).toMatchObject({ tests: '4', failures: '2', errors: '1' });
    expect(first).toMatchObject({ tests: '2', failures: '1', errors: '0', skipped: '1' });
  });

  it('names a regression and a missing model as such', async () => {
    const report = sampleReport();
    Object.assign(report.results[1]!, { verdict: 'inconclusive', outcome: 'failed', comparison: 'regression', expected: ['honoured'] });
    report.models.push({ id: 'gone', listed: false, notRun: { verdict: 'error', outcome: 'failed', comparison: 'missing', cause: 'model_not_listed', observed: 'not listed', evidence: [] } });
    const suites = (await parseJunit(renderJunit(report))).testsuites.testsuite;
    expect(suites[0]!.testcase![1]!.failure).toMatchObject({ type: 'regression', message: expect.stringContaining('regression: expected honoured, got inconclusive') });
    const gone = suites.find((s) => s.name === 'gone')!;
    expect(gone.testcase!.map((c) => [c.name, c.failure?.type])).toEqual([['(every probe)', 'model_missing']]);
  });

  it('fails a stalled row once per cause: the cells it left are skipped and point at that failure', async () => {
    const report = sampleReport();
    const stalled = (probe: string, cause: 'timeout' | 'deadline') => ({ ...report.results[2]!, model: 'slow', probe, cause, notRun: true, observed: 'not run: stopped answering' });
    report.models.push({ id: 'slow', listed: true, stalled: ['c7', 'c8'] });
    report.results.push({ ...report.results[2]!, model: 'slow', probe: 'chat.timeout', cause: 'timeout', observed: 'no answer in 60 s' }, ...Array.from({ length: 48 }, (_, i) => stalled(`p${i}`, 'timeout')), stalled('late', 'deadline'));
    const suite = (await parseJunit(renderJunit(report))).testsuites.testsuite.find((s) => s.name === 'slow')!;
    const failed = suite.testcase!.filter((c) => c.failure).map((c) => c.name);
    expect(failed).toEqual(['chat.timeout', 'p0', 'late']);
    const skipped = suite.testcase!.filter((c) => c.skipped);
    expect(skipped).toHaveLength(47);
    expect(skipped[0]!.skipped!.message).toBe('not run: stopped answering (counted once, as the failure of p0)');
    expect(suite).toMatchObject({ tests: '50', failures: '3', skipped: '47' });
    expect(propsOf(suite).stalled_after).toBe('c7 c8');
  });

  it('keeps any text as the text it is, in elements and attributes', async () => {
    const nasty = 'a]]>b <x y="z"> & \u0001\r\n\ttab \ud800 \ufffe end';
    expect(new XMLParser({ processEntities: true, trimValues: false }).parse(`<a>${xmlText(nasty)}</a>`).a).toBe(showControls(nasty));
    const attr = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', trimValues: false, htmlEntities: true }).parse(`<a v="${xmlAttr(nasty)}"/>`).a.v;
    expect(attr).toBe(showControls(nasty));
    const report = sampleReport();
    report.models[0]!.id = nasty;
    for (const r of report.results.slice(0, 2)) r.model = nasty;
    const doc = await parseJunit(renderJunit(report));
    expect(doc.testsuites.testsuite[0]!.name).toBe(oneLine(nasty));
    expect(doc.testsuites.testsuite[0]!.testcase).toHaveLength(2);
  });
});

describe('matrix.md', () => {
  const md = renderMatrix(sampleReport());

  it('keeps server text inside its table cell', () => {
    expect(escapeText('a|b\nc<d')).toBe('a\\|b\\\\nc\\<d');
    const header = md.split('\n').find((l) => l.startsWith('| probe |'))!;
    // probe, kind, and one column per model: the pipe in the model id is escaped.
    expect(header.split(/(?<!\\)\|/).length - 2).toBe(4);
    const cells = (line: string) => line.split(/(?<!\\)\|/).length - 2;
    const section = (title: string) => md.split(`## ${title}`)[1]!.split('\n## ')[0]!.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| model'));
    // Matrix rows: probe, kind and two models; model-fact rows: seven columns.
    expect(section('Model facts')).toHaveLength(2);
    for (const line of section('Model facts')) expect(cells(line), line).toBe(7);
    for (const line of md.split('## Model facts')[0]!.split('\n').filter((l) => l.startsWith('| `'))) expect(cells(line), line).toBe(4);
  });

  it('shows each cell, findings with their evidence, and the summary counts', () => {
    expect(md).toContain('| `chat.basic` | conformance | ❌ fail | 💥 error: upstream |');
    expect(md).toContain('evidence: c2 in trace.jsonl and exchanges.har');
    // A failing cell says how to reproduce it: the command in a code span, the model id shell-quoted and not escaped.
    expect(md).toContain("reproduce, in this folder: `chatprobe repro . 'gpt-4.1|mini' chat.basic`");
    expect(md).toContain('Results: 0 passed, 2 failed, 1 skipped, 1 errored.');
    expect(md).not.toContain('<html>');
  });
});

/** `n` models (long ids, as gateways name them) × every probe, verdicts spread over all kinds. */
function fleet(n: number): Report {
  const base = sampleReport();
  const verdicts: ProbeResult['verdict'][] = ['pass', 'warn', 'fail', 'inconclusive', 'error'];
  const capability: ProbeResult['verdict'][] = ['honoured', 'ignored', 'rejected', 'accepted', 'inconclusive'];
  const models = Array.from({ length: n }, (_, i) => ({ id: `vendor-${i + 1}/model-family-${i + 1}-instruct-2026`, listed: true }));
  const probes = PROBES.filter((p) => p.scope !== 'target').map((p) => ({ id: p.id, area: p.area, kind: p.kind, scope: 'model' as const, requirement: p.requirement, cost: { requests: 1, maxTokens: 1 } }));
  const results = models.flatMap((m, i) =>
    probes.map((p, k): ProbeResult => {
      const verdict = (p.kind === 'capability' ? capability : verdicts)[(i + k) % 5]!;
      return { model: m.id, probe: p.id, kind: p.kind, verdict, outcome: outcomeOf(verdict, 'timeout').outcome, observed: `observed ${'x'.repeat(200)}`, evidence: [], findings: [], durationMs: 1, ...(verdict === 'error' ? { cause: 'timeout' as const } : {}) };
    }),
  );
  return { ...base, models, probes, results };
}

describe('console', () => {
  it.each([80, 120])('fits 10 models in %i columns: every line within, none ending in spaces, every model and verdict readable', (columns) => {
    const report = fleet(10);
    const text = renderConsole(report, painter(false, {}), columns);
    const lines = text.split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns);
    expect(lines.filter((l) => l !== l.trimEnd())).toEqual([]);
    for (const m of report.models) expect(text).toContain(m.id);
    // Each cell can be read back: by its word, or by its symbol and the legend.
    const symbols = text.includes('H honoured');
    for (const r of report.results.slice(0, 50)) {
      const probeLine = lines.find((l) => l.startsWith(`${r.probe} `) || l.startsWith(`  ${r.probe} `));
      expect(probeLine, r.probe).toBeDefined();
    }
    if (symbols) for (const v of ['honoured', 'ignored', 'rejected', 'accepted', 'pass', 'warn', 'fail', 'inconclusive', 'error']) expect(text).toContain(v);
  });

  it('keeps models as columns while their names fit, and the full finding lines when no width is known', () => {
    const two = fleet(2);
    const wide = renderConsole(two, painter(false, {}), 200);
    expect(wide).toMatch(/^probe +vendor-1\/model-family-1-instruct-2026 +vendor-2/m);
    const piped = renderConsole(two, painter(false, {}));
    expect(piped).toContain(`observed ${'x'.repeat(200)}`);
    expect(renderConsole(two, painter(false, {}), 80)).not.toContain(`observed ${'x'.repeat(200)}`);
  });

  it('counts the run as models × the probes each gets, the endpoint probes once beside them (console and matrix)', () => {
    const plain = sampleReport();
    expect(renderConsole(plain, painter(false, {}))).toContain('2 model(s) × 2 probe(s), 3 calls');
    const endpoint = { ...plain.probes[0]!, id: 'auth.missing_key', area: 'auth' as const, scope: 'target' as const };
    const withEndpoint: Report = { ...plain, probes: [...plain.probes, endpoint], results: [...plain.results, { ...plain.results[0]!, model: '(endpoint)', probe: 'auth.missing_key' }] };
    expect(renderConsole(withEndpoint, painter(false, {}))).toContain('2 model(s) × 2 probe(s) + 1 endpoint probe(s), 3 calls');
    expect(renderMatrix(withEndpoint)).toContain('2 model(s) × 2 probe(s) + 1 endpoint probe(s) · ');
  });

  it('says a baseline written with nothing to compare with was written, not that nothing was new', () => {
    const first = { ...sampleReport(), baseline: { path: 'b.json', updated: true } };
    expect(renderConsole(first, painter(false, {}))).toContain('baseline b.json: written from this run (there was none to compare with)');
    expect(renderMatrix(first)).toContain('was written from this run (there was none to compare with).');
    const stoppedFirst = { ...first, interrupted: true, baseline: { path: 'b.json', updated: false } };
    expect(renderConsole(stoppedFirst, painter(false, {}))).toContain('baseline b.json: no cell was compared with it (there was none yet, or the run stopped first)');
    expect(renderMatrix(stoppedFirst)).toContain('No cell was compared with the baseline b.json');
    const compared: Report = { ...first, results: first.results.map((r) => ({ ...r, comparison: 'expected' as const })) };
    expect(renderConsole(compared, painter(false, {}))).toContain('baseline b.json: 0 regression(s), 0 improvement(s), 0 new; rewritten from this run');
  });

  it('says cells not run for one reason once a model, with their number, not once each', () => {
    const base = sampleReport();
    const observed = 'not run: the run was interrupted (Ctrl-C or SIGTERM) before this cell finished';
    const cut = (model: string, probe: string): ProbeResult => ({ ...base.results[0]!, model, probe, verdict: 'error', outcome: 'skipped', cause: 'interrupted', notRun: true, observed, evidence: [] });
    const stalled = { ...cut('gpt-4.1|mini', 'chat.x'), cause: 'timeout' as const, observed: 'not run: the model stopped answering' };
    const results = [...base.results, ...['a', 'b', 'c'].map((p) => cut('gpt-4.1|mini', `chat.${p}`)), stalled];
    const text = renderConsole({ ...base, interrupted: true, results }, painter(false, {}));
    expect(text).toContain(`error: interrupted  gpt-4.1|mini (3 cells): ${observed}`);
    expect(text.split(observed).length - 1).toBe(1);
    expect(text).toContain('error: timeout  gpt-4.1|mini chat.x: not run: the model stopped answering');
  });

  it('counts piped progress per row and speaks once the row is complete (a stopped row at once)', () => {
    const rows = new RowProgress(() => 3);
    const cell = (model: string, outcome: ProbeResult['outcome']) => ({ ...sampleReport().results[0]!, model, outcome });
    expect(rows.add(cell('a', 'passed'), 1, 9)).toBeUndefined();
    expect(rows.add(cell('a', 'failed'), 2, 9)).toBeUndefined();
    expect(rows.add(cell('a', 'skipped'), 3, 9)).toBe('[3/9] a: 1 passed, 1 failed, 1 skipped, 0 errored');
    const stopped = { ...cell('b', 'errored'), probe: '(every probe)', verdict: 'error' as const, cause: 'auth' as const };
    expect(rows.add(stopped, 6, 9)).toBe('[6/9] b: 0 passed, 0 failed, 0 skipped, 1 errored: not probed (error: auth)');
  });

  it('prints no escape codes without a TTY, and colour with one unless NO_COLOR', () => {
    const plain = renderConsole(sampleReport(), painter(false, {}));
    expect(plain).not.toMatch(/\x1b\[/);
    expect(plain).toContain('error: upstream');
    expect(renderConsole(sampleReport(), painter(true, { NO_COLOR: '1' }))).not.toMatch(/\x1b\[/);
    expect(renderConsole(sampleReport(), painter(true, {}))).toMatch(/\x1b\[31m/);
  });

  it('summarises to exit code 1 when anything failed', () => {
    expect(summarise(sampleReport()).exitCode).toBe(1);
  });
});

describe('a model gone from GET /models that the baseline expects', () => {
  // Expected with two cells; the run (the sample report) no longer has it: gate() adds it as missing.
  const report = gate(sampleReport(), { schemaVersion: 1, cells: { 'gone-model': { 'chat.basic': 'pass', 'parameters.max_tokens': 'honoured' } } }, { path: 'b.json', updated: false });
  const linesWith = (text: string) => text.split('\n').filter((l) => l.includes('gone-model'));

  it('is one line in the matrix (no column of "not listed" cells), and the extent counts the models the run planned', () => {
    const md = renderMatrix(report);
    expect(md).not.toContain('error: model\\_not\\_listed |');
    expect(md.split('\n').find((l) => l.startsWith('| probe | kind |'))).not.toContain('gone-model');
    expect(linesWith(md.split('## Model facts')[0]!)).toEqual(['- 💥 **gone-model** **⬇** missing: the baseline expects 2 cell\\(s\\) of this model, and GET /models no longer lists it']);
    expect(md).toContain('· 2 model(s) × 2 probe(s) ·');
  });

  it('is one line on the console, and one failing line in the step summary', () => {
    const text = renderConsole(report, painter(false, {}), 200);
    expect(linesWith(text)).toEqual(['missing: gone-model: the baseline expects this model and GET /models no longer lists it: restore it, or remove it from the baseline']);
    expect(text).toContain('2 model(s) × 2 probe(s), 3 calls');
    const summary = renderGithubSummary(report);
    expect(linesWith(summary.split('# chatprobe capability matrix')[0]!)).toHaveLength(1);
    expect(summary).not.toContain('error: model\\_not\\_listed |');
  });
});

describe('report files written whole', () => {
  it('puts staged files in place together; a write that fails, or a process that quits before they are put in place, leaves the folder as it was and no temporary file', async () => {
    const dir = await tempDir();
    const path = join(dir, 'report.json');
    writeFileSync(path, 'the last run');
    await expect(stageFile(path, async (tmp) => {
      writeFileSync(tmp, 'half');
      throw new Error('disk full');
    })).rejects.toThrow('disk full');
    expect(readdirSync(dir)).toEqual(['report.json']);
    const staged = [await stageFile(path, async (tmp) => writeFileSync(tmp, '{}')), await stageFile(join(dir, 'junit.xml'), async (tmp) => writeFileSync(tmp, '<testsuites/>'))];
    expect(readFileSync(path, 'utf8')).toBe('the last run');
    expect(commitStaged(staged)).toEqual([]);
    expect(readFileSync(path, 'utf8')).toBe('{}');
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toBe('<testsuites/>');
    const script = join(dir, 'quit.ts');
    writeFileSync(
      script,
      [
        `import { writeFileSync } from 'node:fs';`,
        `import { stageFile } from ${JSON.stringify(join(ROOT, 'src/report/write.ts'))};`,
        `void stageFile(${JSON.stringify(path)}, async (tmp) => writeFileSync(tmp, 'this run')).then(() => process.exit(130));`,
      ].join('\n'),
    );
    const run = await runCommand(process.execPath, ['--import', 'tsx', script]);
    expect(run.code, run.stderr).toBe(130);
    expect(readFileSync(path, 'utf8')).toBe('{}');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
