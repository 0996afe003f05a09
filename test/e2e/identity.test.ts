import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import type { Profile } from '../../src/reference/profile.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import type { Report } from '../../src/results/model.js';
import type { Browser } from 'playwright-core';
import { launchBrowser, NO_BROWSER, openFile } from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';
import { parseReport } from '../helpers/report-schema.js';
import { tempDir } from '../helpers/tmp.js';

const KEY = 'sk-identity-7d2f9a41c0b3';

/**
 * Two runs of one relay (the identity profile), the server restarted between them, and a third endpoint
 * that serves the steady model's quantized twin under its name: compare and the baseline gate say which
 * name still serves the model it served (same), which does not (different), and never guess.
 */
describe('is it the same model, every time? (identity.*, compare, the baseline)', () => {
  let dir: string;
  const servers: ReferenceServer[] = [];
  const serve = async (p: Profile) => {
    const s = await startReferenceServer({ profile: p, apiKey: KEY });
    servers.push(s);
    return s;
  };
  const audit = (url: string, out: string, ...args: string[]) => runCli(['--base-url', url, '--out', out, '--probes', 'identity.*', '--quiet', ...args], { OPENAI_API_KEY: KEY });
  const report = async (out: string): Promise<Report> => parseReport(await readFile(join(out, 'report.json'), 'utf8'));

  /** The identity profile's steady model and the swapping one; for the relay, the steady one quantized. */
  const profile = (relay = false): Profile => {
    const p = loadProfile('identity');
    p.models = p.models.filter((m) => m.id === 'id-steady' || m.id === 'id-swapping');
    if (relay) p.models = p.models.map((m) => (m.id === 'id-steady' ? { ...m, quirks: { ...m.quirks, quantized: 0.2 } } : m));
    return p;
  };
  /** The steady model alone, its prompts counted like `tokenizer`: the same weights, answers and logprobs, whatever it counts with. */
  const counting = (tokenizer: 'qwen2' | 'llama3'): Profile => {
    const p = loadProfile('identity');
    p.models = p.models.filter((m) => m.id === 'id-steady').map((m) => ({ ...m, quirks: { ...m.quirks, tokenizer } }));
    return p;
  };
  /** The fingerprint with the usage series it reads the tokenizer from (usage.tokenizer's requests). */
  const withTokenizer = (url: string, out: string) => runCli(['--base-url', url, '--out', out, '--probes', 'identity.*,usage.tokenizer', '--quiet'], { OPENAI_API_KEY: KEY });

  beforeAll(async () => {
    dir = await tempDir();
    // The first run, and a baseline written from it.
    const first = await serve(profile());
    expect((await audit(first.url, join(dir, 'a'), '--update-baseline', '--baseline', join(dir, 'baseline.json'))).code).toBe(0);
    await first.close();
    // The same relay started again (id-swapping's weights change with every start), and a relay of the twin.
    const [again, relay] = await Promise.all([serve(profile()), serve(profile(true))]);
    // The steady model counted by two tokenizers (a relay that swapped it for a model of the same answers, another tokenizer).
    const [qwen, llama] = await Promise.all([serve(counting('qwen2')), serve(counting('llama3'))]);
    const runs = await Promise.all([
      audit(again.url, join(dir, 'b')),
      audit(relay.url, join(dir, 'relay')),
      withTokenizer(qwen.url, join(dir, 'qwen')),
      withTokenizer(llama.url, join(dir, 'llama')),
      withTokenizer(llama.url, join(dir, 'llama-again')),
    ]);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
  }, 60_000);
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
    await Promise.all(servers.map((s) => s.close()));
  });

  it('keeps each model\'s fingerprint in its row of report.json', async () => {
    const a = await report(join(dir, 'a'));
    for (const m of a.models) {
      expect(m.fingerprint, m.id).toMatchObject({ version: 1, signal: 'logprobs', topLogprobs: 5 });
      expect(m.fingerprint!.samples).toHaveLength(12);
    }
    expect(a.results.map((r) => `${r.model} ${r.probe} ${r.verdict}`).sort()).toEqual([
      'id-steady identity.fingerprint pass',
      'id-steady identity.mixed_backends pass',
      'id-swapping identity.fingerprint pass',
      'id-swapping identity.mixed_backends pass',
    ]);
  });

  it('compare: the steady model is the same after a restart; the one that swaps weights is different, and B is worse', async () => {
    const run = await runCli(['compare', join(dir, 'a'), join(dir, 'b'), '--json']);
    expect(run.code).toBe(1);
    const c = JSON.parse(run.stdout) as { identity: { model: string; comparison: { verdict: string } }[]; changes: unknown[] };
    expect(c.changes).toEqual([]);
    expect(c.identity.map((i) => [i.model, i.comparison.verdict])).toEqual([
      ['id-steady', 'same'],
      ['id-swapping', 'different'],
    ]);
    const text = await runCli(['compare', join(dir, 'a'), join(dir, 'b')]);
    expect(text.stdout).toContain('identity: 2 model(s) fingerprinted in both: 1 same, 1 different, 0 unverifiable');
    // The headline says why B is worse where no cell is: a name now serves another model.
    expect(text.stdout.split('\n')[0]).toMatch(/0 worse, .*; 1 model\(s\) a different model in B than in A \(worse/);
    expect(text.stdout).toMatch(/^different +id-swapping +largest logprob move/m);
  });

  it('compare: a relay that serves the quantized twin under the name is found different', async () => {
    const c = JSON.parse((await runCli(['compare', join(dir, 'a'), join(dir, 'relay'), '--json'])).stdout) as { identity: { model: string; comparison: { verdict: string; statistic: number; threshold: number } }[] };
    const steady = c.identity.find((i) => i.model === 'id-steady')!.comparison;
    expect(steady.verdict).toBe('different');
    expect(steady.statistic).toBeGreaterThan(steady.threshold);
  });

  it('keeps the tokenizer in the fingerprint where the usage series was made, and says it was not read where it was not', async () => {
    const qwen = (await report(join(dir, 'qwen'))).models[0]!.fingerprint!;
    expect(qwen.tokenizer).toMatchObject({ family: 'qwen2', points: [{ k: 0 }, { k: 3 }] });
    expect(qwen.tokenizer!.checks!.length).toBeGreaterThan(0);
    const without = (await report(join(dir, 'a'))).models[0]!.fingerprint!;
    expect(without.tokenizer).toEqual({ why: expect.stringMatching(/^not read: no usage series in this run/) });
  });

  it('compare: the same answers counted by another tokenizer are different (the tokenizer decides); the same tokenizer again is same; one side without it changes nothing', async () => {
    const json = async (a: string, b: string) =>
      JSON.parse((await runCli(['compare', join(dir, a), join(dir, b), '--json'])).stdout) as {
        identity: { model: string; comparison: { verdict: string; signal: string; why: string; where: { prompt: string }[]; tokenizer?: { a: { family: string }; b: { family: string } } } }[];
      };
    const swapped = (await json('qwen', 'llama')).identity[0]!.comparison;
    expect(swapped).toMatchObject({ verdict: 'different', signal: 'tokenizer', tokenizer: { a: { family: 'qwen2' }, b: { family: 'llama3' } } });
    // The same weights: only the number prompt moved, its digits cut in other groups (the reference model's
    // first token is the tokenizer's first piece); the content's own verdict is said beside the tokenizers'.
    expect(swapped.where.map((w) => w.prompt)).toEqual(['number']);
    expect(swapped.why).toMatch(/the content alone: different \(largest logprob move [\d.]+ \(prompt "number"\)/);
    expect((await json('llama', 'llama-again')).identity[0]!.comparison).toMatchObject({ verdict: 'same', signal: 'logprobs', tokenizer: { a: { family: 'llama3' }, b: { family: 'llama3' } } });
    // A run without the usage probes has no tokenizer: the content alone decides (here the number prompt,
    // the pseudo-model's own digits against Llama 3's).
    const oneSide = (await json('a', 'llama')).identity.find((i) => i.model === 'id-steady')!.comparison;
    expect(oneSide).toMatchObject({ signal: 'logprobs' });
    expect(oneSide.tokenizer).toBeUndefined();
    expect(oneSide.why).not.toContain('tokenizer');
    const text = await runCli(['compare', join(dir, 'qwen'), join(dir, 'llama')]);
    expect(text.stdout).toMatch(/^different +id-steady +the prompt counts follow two tokenizers: .*\(exact counts: false alarms 0/m);
    expect(text.stdout).toContain('tokenizer: A Qwen 2 / 2.5 / 3 (the unit 24 tokens a copy), B Llama 3 (19)');
    const page = join(dir, 'compare-tokenizer.html');
    await runCli(['compare', join(dir, 'qwen'), join(dir, 'llama'), '--html', page]);
    expect(await readFile(page, 'utf8')).toContain('"signal":"tokenizer"');
  });

  it('the baseline keeps the tokenizer; a run counted by another tokenizer fails a baseline that requires the same model', async () => {
    const path = join(dir, 'baseline-tokenizer.json');
    const [qwen, llama] = await Promise.all([serve(counting('qwen2')), serve(counting('llama3'))]);
    const written = await runCli(['--base-url', qwen.url, '--out', join(dir, 'qwen-baseline'), '--probes', 'identity.*,usage.tokenizer', '--quiet', '--update-baseline', '--baseline', path], { OPENAI_API_KEY: KEY });
    expect(written.code, written.stderr).toBe(0);
    const baseline = JSON.parse(await readFile(path, 'utf8'));
    expect(baseline.identity['id-steady'].fingerprint.tokenizer).toMatchObject({ family: 'qwen2' });
    baseline.identity['id-steady'].require = 'same';
    await writeFile(path, JSON.stringify(baseline));
    const out = join(dir, 'tokenizer-gated');
    const run = await runCli(['--base-url', llama.url, '--out', out, '--probes', 'identity.*,usage.tokenizer', '--quiet', '--baseline', path], { OPENAI_API_KEY: KEY });
    expect(run.code).toBe(1);
    expect((await report(out)).identity).toEqual([expect.objectContaining({ model: 'id-steady', verdict: 'different', signal: 'tokenizer', outcome: 'failed', tokenizer: expect.objectContaining({ a: expect.objectContaining({ family: 'qwen2' }), b: expect.objectContaining({ family: 'llama3' }) }) })]);
  });

  it('compare --html: the page says which name serves another model', async () => {
    const page = join(dir, 'compare.html');
    await runCli(['compare', join(dir, 'a'), join(dir, 'b'), '--html', page]);
    const html = await readFile(page, 'utf8');
    expect(html).toContain('"identity":[{"a":"A","b":"B","models":[');
    expect(html).toContain('Same model behind each name? (fingerprints)');
  });

  it('the baseline keeps the fingerprints; with "require": "same" the run against a swapped model fails, the steady one passes', async () => {
    const path = join(dir, 'baseline.json');
    const baseline = JSON.parse(await readFile(path, 'utf8'));
    expect(Object.keys(baseline.identity)).toEqual(['id-steady', 'id-swapping']);
    for (const m of Object.keys(baseline.identity)) baseline.identity[m].require = 'same';
    await writeFile(path, JSON.stringify(baseline));
    const again = await serve(profile());
    const out = join(dir, 'gated');
    const run = await audit(again.url, out, '--baseline', path);
    expect(run.code).toBe(1);
    const gated = await report(out);
    expect(gated.identity!.map((i) => [i.model, i.verdict, i.outcome])).toEqual([
      ['id-steady', 'same', 'passed'],
      ['id-swapping', 'different', 'failed'],
    ]);
    // Every cell is as expected: only the identity check fails the run.
    expect(gated.results.every((r) => r.comparison === 'expected')).toBe(true);
    const md = await readFile(join(out, 'matrix.md'), 'utf8');
    expect(md).toContain('## Fingerprints');
    expect(md).toMatch(/\| id-swapping \| .* \| ❌ different \(requires same\): /);
    const html = await readFile(join(out, 'report.html'), 'utf8');
    expect(html).toContain('"fingerprintView":');
  });

  it.skipIf(NO_BROWSER)('report.html and the comparison page draw the fingerprints and the verdicts, with no error', async () => {
    browser = await launchBrowser();
    const page = join(dir, 'compare.html');
    await runCli(['compare', join(dir, 'a'), join(dir, 'b'), '--html', page]);
    const compared = await openFile(browser, page);
    const rows = await compared.page.locator('#identity tr[data-identity]').evaluateAll((xs) => xs.map((x) => [x.getAttribute('data-model'), x.getAttribute('data-identity')]));
    expect(rows).toEqual([
      ['id-steady', 'same'],
      ['id-swapping', 'different'],
    ]);
    // The differences still come first.
    expect((await compared.page.locator('#app > section').evaluateAll((xs) => xs.map((x) => x.id))).slice(0, 2)).toEqual(['differences', 'identity']);
    expect(compared.problems).toEqual([]);
    // Two tokenizers: the page says them where the statistic and the why stand, with no error.
    const tokenizerPage = join(dir, 'compare-tokenizer-drawn.html');
    await runCli(['compare', join(dir, 'qwen'), join(dir, 'llama'), '--html', tokenizerPage]);
    const counted = await openFile(browser, tokenizerPage);
    const row = await counted.page.locator('#identity tr[data-model="id-steady"]').textContent();
    expect(row).toContain('tokenizer: the unit 24 against 19 tokens a copy');
    expect(row).toContain('exact counts: false alarms 0');
    expect(row).toContain('tokenizer: A Qwen 2 / 2.5 / 3 (the unit 24 tokens a copy), B Llama 3 (19)');
    expect(counted.problems).toEqual([]);
    const report = await openFile(browser, join(dir, 'gated', 'report.html'));
    const drawn = report.page.locator('#fingerprints tr[data-model="id-swapping"]');
    expect(await drawn.locator('.fp-rep').count()).toBe(8);
    expect(await drawn.textContent()).toContain('different (requires same: failed)');
    expect(report.problems).toEqual([]);
  });

  it('the dry run prices the fingerprint: 12 requests a model', async () => {
    const s = servers[servers.length - 1]!;
    const dry = JSON.parse((await runCli(['--base-url', s.url, '--probes', 'identity.*', '--dry-run', '--json'], { OPENAI_API_KEY: KEY })).stdout);
    expect(dry.perArea.find((a: { area: string }) => a.area === 'identity')).toEqual({ area: 'identity', probes: 2, requests: 12, maxTokens: 19 });
  });
});
