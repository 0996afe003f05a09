import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baselineFrom, loadBaseline, writeBaseline, type Baseline } from '../../src/report/baseline.js';
import { compareReports } from '../../src/report/compare.js';
import { gate } from '../../src/report/gate.js';
import { renderMatrix } from '../../src/report/writers/markdown.js';
import { renderJunit } from '../../src/report/writers/junit.js';
import { painter, renderConsole } from '../../src/report/writers/console.js';
import { githubAnnotations, renderGithubSummary } from '../../src/report/writers/github.js';
import { Report } from '../../src/results/model.js';
import { identityLines } from '../../src/cli/compare.js';
import { fingerprintOf } from '../helpers/fingerprints.js';
import { sampleReport } from '../helpers/report.js';

/** The sample report, its first model fingerprinted as given. */
function withFingerprint(f: ReturnType<typeof fingerprintOf> | undefined): Report {
  const r = sampleReport();
  if (f) r.models[0]!.fingerprint = f;
  return r;
}

const model = 'gpt-4.1|mini';
const about = { path: 'b.json', updated: false };

describe('compare: the same model behind each name?', () => {
  it('weighs the fingerprints of each model both reports have: same for the same weights, not worse', () => {
    const c = compareReports(withFingerprint(fingerprintOf('w')), withFingerprint(fingerprintOf('w')));
    expect(c.identity).toEqual([{ model, comparison: expect.objectContaining({ verdict: 'same', statistic: 0 }) }]);
    expect(c.worse).toBe(false);
  });

  it('calls other weights, or a quantized twin, different, and B worse', () => {
    for (const b of [fingerprintOf('v'), fingerprintOf('w', { shift: 0.3 })]) {
      const c = compareReports(withFingerprint(fingerprintOf('w')), withFingerprint(b));
      expect(c.identity[0]!.comparison.verdict).toBe('different');
      expect(c.worse).toBe(true);
    }
  });

  it('compares nothing where one report has no fingerprint (the identity probes not run)', () => {
    expect(compareReports(withFingerprint(fingerprintOf('w')), withFingerprint(undefined)).identity).toEqual([]);
  });

  it('says the verdict, the figures and where the two differ, in the text compare prints', () => {
    const c = compareReports(withFingerprint(fingerprintOf('w')), withFingerprint(fingerprintOf('v')));
    const lines = identityLines(c.identity);
    expect(lines[0]).toBe('identity: 1 model(s) fingerprinted in both: 0 same, 1 different, 0 unverifiable');
    expect(lines[1]).toMatch(/^different +gpt-4\.1\|mini {2}largest logprob move .* threshold 0\.03: .*false alarms 0% over 440 same-model pairs \(95% bound 0\.68%\) \(power 100% against a Q4_0 twin in the calibration; n = 12\/12 answers over 5 prompts\)$/);
    expect(lines.slice(2).length).toBeGreaterThan(0);
  });
});

describe('the baseline keeps fingerprints, and may require the same model', () => {
  it('stores each fingerprint this run took, keeps a require, and writes and reads it back', () => {
    const first = baselineFrom(withFingerprint(fingerprintOf('w')));
    expect(first.identity).toEqual({ [model]: { fingerprint: fingerprintOf('w') } });
    const required: Baseline = { ...first, identity: { [model]: { require: 'same', fingerprint: fingerprintOf('w') } } };
    const again = baselineFrom(withFingerprint(fingerprintOf('v')), required);
    expect(again.identity![model]).toEqual({ require: 'same', fingerprint: fingerprintOf('v') });
    const dir = mkdtempSync(join(tmpdir(), 'chatprobe-identity-'));
    const path = join(dir, 'b.json');
    return writeBaseline(path, again).then(() => {
      expect(loadBaseline(path).identity![model]!.require).toBe('same');
      // A baseline without fingerprints is written as before: no identity key.
      writeFileSync(path, '{"schemaVersion":1,"cells":{}}');
      expect(loadBaseline(path).identity).toBeUndefined();
      expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ schemaVersion: 1, cells: {} });
    });
  });

  it('refuses a require that is no requirement', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatprobe-identity-'));
    const path = join(dir, 'b.json');
    writeFileSync(path, JSON.stringify({ schemaVersion: 1, cells: {}, identity: { m: { require: 'similar', fingerprint: fingerprintOf('w') } } }));
    expect(() => loadBaseline(path)).toThrow(/invalid baseline/);
  });

  const baseline = (require?: 'same' | 'not_different'): Baseline => ({ schemaVersion: 1, cells: {}, identity: { [model]: { ...(require ? { require } : {}), fingerprint: fingerprintOf('w') } } });

  it('gates: a required same that holds passes; another model fails the run, counted among the regressions', () => {
    const same = gate(withFingerprint(fingerprintOf('w')), baseline('same'), about);
    expect(same.identity).toEqual([expect.objectContaining({ model, verdict: 'same', require: 'same', outcome: 'passed' })]);
    const swapped = gate(withFingerprint(fingerprintOf('v')), baseline('same'), about);
    expect(swapped.identity![0]).toMatchObject({ verdict: 'different', outcome: 'failed' });
    expect(swapped.summary!.exitCode).toBe(1);
    expect(swapped.summary!.regressions).toBe(same.summary!.regressions + 1);
    // The report's schema takes it.
    expect(() => Report.parse(swapped)).not.toThrow();
  });

  it('reports without gating where nothing is required; not_different lets unverifiable pass, same does not', () => {
    const plain = gate(withFingerprint(fingerprintOf('v')), baseline(), about);
    expect(plain.identity![0]).toMatchObject({ verdict: 'different', outcome: 'skipped' });
    expect(plain.summary!.regressions).toBe(gate(withFingerprint(fingerprintOf('w')), baseline(), about).summary!.regressions);
    // Answers only on one side, answers alike but one prompt: unverifiable.
    const one = fingerprintOf('w', { logprobs: false });
    one.samples = one.samples.map((s) => (s.prompt === 'colour' ? { ...s, answer: 'teal' } : s));
    expect(gate(withFingerprint(one), baseline('not_different'), about).identity![0]).toMatchObject({ verdict: 'unverifiable', outcome: 'passed' });
    expect(gate(withFingerprint(one), baseline('same'), about).identity![0]).toMatchObject({ verdict: 'unverifiable', outcome: 'failed' });
  });

  it('a run that rewrites its baseline accepts what it saw: no failure for a swap then', () => {
    expect(gate(withFingerprint(fingerprintOf('v')), baseline('same'), { path: 'b.json', updated: true }).summary!.exitCode).toBe(gate(withFingerprint(fingerprintOf('w')), undefined, { path: 'b.json', updated: true }).summary!.exitCode);
  });
});

describe('the reports show each fingerprint', () => {
  it('matrix.md: a Fingerprints section with the signal, own spread and anchor answers, and the baseline comparison', () => {
    const md = renderMatrix(gate(withFingerprint(fingerprintOf('v')), { schemaVersion: 1, cells: {}, identity: { [model]: { require: 'same', fingerprint: fingerprintOf('w') } } }, about));
    expect(md).toContain('## Fingerprints');
    // Markdown-escaped: the pipe in the name, the parentheses.
    expect(md).toContain('| gpt-4.1\\|mini | logprobs \\(top 5\\) · 12/12 answered over 5 prompts · own spread 0 · anchor "apple" ×8 | ❌ different (requires same): largest logprob move');
  });

  it('the console, the step summary and the annotations say which model is not the baseline\'s', () => {
    const gated = gate(withFingerprint(fingerprintOf('v')), { schemaVersion: 1, cells: {}, identity: { [model]: { require: 'same', fingerprint: fingerprintOf('w') } } }, about);
    expect(renderConsole(gated, painter(false, {}))).toMatch(/identity: gpt-4\.1\|mini: different, the baseline requires the same model: largest logprob move/);
    expect(renderConsole(gated, painter(false, {}))).toContain("1 model(s) not the baseline's (identity)");
    expect(renderGithubSummary(gated)).toContain("## chatprobe: 1 model(s) not the baseline's");
    expect(githubAnnotations(gated).at(-1)).toMatch(/^::error title=chatprobe gpt-4\.1\|mini identity::gpt-4\.1\|mini: different, the baseline requires the same model/);
  });

  it('junit.xml: the fingerprint as properties of the model\'s suite', () => {
    const xml = renderJunit(gate(withFingerprint(fingerprintOf('w')), undefined));
    expect(xml).toContain('<property name="identity.signal" value="logprobs"/>');
    expect(xml).toContain('<property name="identity.answered" value="12/12"/>');
    expect(xml).toContain('<property name="identity.spread" value="0"/>');
  });
});
