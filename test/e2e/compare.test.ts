import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import type { Report } from '../../src/results/model.js';
import { launchBrowser, NO_BROWSER, openFile } from '../helpers/browser.js';
import { layoutProblems } from '../helpers/page-layout.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

// A key with characters HTML and JSON escape, so each of its encodings in the page is looked for.
const KEY = 'sk-comparepage-Jq3&Wd8<Rt5>"x';
// The probes of two areas: enough cells to differ, a short run.
const PROBES = ['parameters.*', 'chat.*'];

/** Every encoding of the key a file could carry. */
const encodings = (key: string) => [key, JSON.stringify(key).slice(1, -1), encodeURIComponent(key), key.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`), key.replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)];

async function expectNoKey(dir: string): Promise<void> {
  for (const name of await readdir(dir, { recursive: true })) {
    const path = join(dir, String(name));
    let text: string;
    try {
      text = await readFile(path, 'latin1');
    } catch {
      continue; // a folder
    }
    for (const e of encodings(KEY)) expect(text.includes(e), `${name} holds the key`).toBe(false);
  }
}

describe('chatprobe compare A B --html: two runs side by side', () => {
  let a: ReferenceServer;
  let b: ReferenceServer;
  let dir: string;
  let browser: Browser | undefined;

  beforeAll(async () => {
    // Two endpoints serving the same ids: B's ref-standard ignores top_p and seed (strict-params'
    // drops-sampling under that id), so its cells of those probes differ from A's.
    const pa = loadProfile('default');
    const pb = loadProfile('default');
    const drops = loadProfile('strict-params').models.find((m) => m.id === 'drops-sampling')!;
    pb.models = pb.models.map((m) => (m.id === 'ref-standard' ? { ...drops, id: 'ref-standard' } : m));
    [a, b] = await Promise.all([startReferenceServer({ profile: pa, apiKey: KEY }), startReferenceServer({ profile: pb, apiKey: KEY })]);
    dir = await tempDir();
    const runs = await Promise.all([
      runCli(['--base-url', a.url, '--out', join(dir, 'a'), '--probes', ...PROBES, '--quiet'], { OPENAI_API_KEY: KEY }),
      runCli(['--base-url', b.url, '--out', join(dir, 'b'), '--probes', ...PROBES, '--quiet'], { OPENAI_API_KEY: KEY }),
      NO_BROWSER ? undefined : launchBrowser().then((x) => (browser = x)),
    ]);
    for (const r of [runs[0], runs[1]]) expect(r.stderr).not.toMatch(/could not write/);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await a?.close();
    await b?.close();
  });

  it('writes the page beside the text comparison, with the same differences, and no key in it', async () => {
    const text = await runCli(['compare', join(dir, 'a'), join(dir, 'b', 'report.json'), '--json']);
    const run = await runCli(['compare', join(dir, 'a'), join(dir, 'b', 'report.json'), '--html', join(dir, 'compare.html')]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain('comparison page:');
    const html = await readFile(join(dir, 'compare.html'), 'utf8');
    const data = JSON.parse(/<script type="application\/json" id="compare-data">(.*?)<\/script>/s.exec(html)![1]!) as {
      differences: { model: string; probe: string; change: string; cells: ({ verdict: string; evidence: string[] } | null)[] }[];
    };
    const changes = (JSON.parse(text.stdout) as { changes: { model: string; probe: string; change: string }[] }).changes;
    expect(changes.length).toBeGreaterThan(0);
    expect(new Set(data.differences.map((d) => `${d.model} ${d.probe} ${d.change}`))).toEqual(new Set(changes.map((c) => `${c.model} ${c.probe} ${c.change}`)));
    // Worst first.
    const order = ['worse', 'model_missing', 'different', 'better', 'model_added'];
    const ranks = data.differences.map((d) => order.indexOf(d.change));
    expect(ranks).toEqual([...ranks].sort((x, y) => x - y));
    // Each difference's evidence is embedded from each run's exchanges.har.
    for (const [i, side] of ['a', 'b'].entries()) {
      const block = JSON.parse(new RegExp(`<script type="application/json" id="exchanges-${i}">(.*?)</script>`, 's').exec(html)![1]!) as Record<string, unknown>;
      const named = data.differences.flatMap((d) => d.cells[i]?.evidence ?? []);
      expect(named.length, side).toBeGreaterThan(0);
      for (const id of named) expect(block[id], `${side} ${id}`).toBeDefined();
    }
    await expectNoKey(dir);
  });

  it('a run against itself: no difference, exit 0', async () => {
    const run = await runCli(['compare', join(dir, 'a', 'report.json'), join(dir, 'a', 'report.json'), '--html', join(dir, 'same.html')]);
    expect(run.code, run.stderr).toBe(0);
    const html = await readFile(join(dir, 'same.html'), 'utf8');
    expect(html).toContain('"differences":[]');
  });

  it('--base-url A --base-url B: each endpoint its own reports in a folder of --out, the side by side at the top, the worst exit code', async () => {
    const out = join(dir, 'both');
    const run = await runCli(['--base-url', a.url, '--base-url', b.url, '--out', out, '--probes', ...PROBES, '--quiet'], { OPENAI_API_KEY: KEY });
    const alone = await Promise.all([runCli(['compare', join(dir, 'a'), join(dir, 'a')]), runCli(['compare', join(dir, 'a'), join(dir, 'b')])]);
    expect(alone.map((x) => x.code)).toEqual([0, 1]);
    const folders = (await readdir(out)).sort();
    const [fa, fb] = folders.filter((f) => /^\d-/.test(f));
    expect([fa, fb].every((f) => f !== undefined)).toBe(true);
    for (const f of [fa!, fb!]) for (const file of ['report.json', 'matrix.md', 'report.html', 'exchanges.har', 'junit.xml']) expect(folders.length && (await readdir(join(out, f)))).toContain(file);
    const ra = JSON.parse(await readFile(join(out, fa!, 'report.json'), 'utf8')) as Report;
    const rb = JSON.parse(await readFile(join(out, fb!, 'report.json'), 'utf8')) as Report;
    expect([ra.target.baseUrl, rb.target.baseUrl]).toEqual([a.url, b.url]);
    // The worst of the endpoints' exit codes.
    expect(run.code, run.stderr).toBe(Math.max(ra.summary!.exitCode, rb.summary!.exitCode));
    const matrix = await readFile(join(out, 'matrix.md'), 'utf8');
    expect(matrix).toContain(a.url.replace(/^http:\/\//, ''));
    const html = await readFile(join(out, 'report.html'), 'utf8');
    expect(html).toContain('id="compare-data"');
    // Each endpoint's own folder still judges offline.
    const judged = await runCli(['judge', join(out, fb!), '--quiet']);
    expect(judged.code).toBe(rb.summary!.exitCode);
    await expectNoKey(out);
  }, 60_000);

  it.skipIf(NO_BROWSER)('at 1280×800: the differences listed first, both cells’ evidence open side by side, nothing cut or overlapping', async () => {
    const { page, problems } = await openFile(browser!, join(dir, 'compare.html'), '', { width: 1280, height: 800 });
    // The differences come before every other section.
    const sections = await page.locator('#app > section').evaluateAll((s) => s.map((x) => x.id));
    expect(sections[0]).toBe('differences');
    const first = page.locator('details.diff').first();
    expect(await first.getAttribute('open')).not.toBeNull();
    // Both runs' cells, each with its evidence drawn, side by side.
    const sides = first.locator('.side');
    expect(await sides.count()).toBe(2);
    for (const i of [0, 1]) {
      await expect.poll(() => sides.nth(i).locator('section.exchange').count()).toBeGreaterThan(0);
      expect(await sides.nth(i).locator('section.exchange details.response pre, section.exchange table.events').first().isVisible()).toBe(true);
    }
    const [left, right] = await Promise.all([sides.nth(0).boundingBox(), sides.nth(1).boundingBox()]);
    expect(left!.x + left!.width).toBeLessThanOrEqual(right!.x);
    expect(Math.abs(left!.y - right!.y)).toBeLessThan(2);
    expect(right!.x + right!.width).toBeLessThanOrEqual(1280);
    await page.screenshot({ path: join(dir, 'compare-1280.png') });
    expect(await layoutProblems(page, '.diff summary h3, .side h4, #runs td, #runs th', '.diff summary h3, .diff .change, .side h4, .side dt, .side dd')).toEqual([]);
    // The page scrolls no wider than the window.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280);
    // A row of the table of every cell opens the cells side by side.
    await page.locator('#cells-table td.v').first().click();
    expect(await page.locator('#panel .side').count()).toBe(2);
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('the HTML of a merged run', () => {
  it('report.html of merged shards opens with every model and each cell’s evidence', async () => {
    const server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY });
    const dir = await tempDir();
    try {
      for (const s of ['1/2', '2/2']) {
        const r = await runCli(['--base-url', server.url, '--out', join(dir, s.replace('/', '-')), '--probes', 'chat.*', '--shard', s, '--quiet'], { OPENAI_API_KEY: KEY });
        expect(r.stderr).not.toMatch(/could not write/);
      }
    } finally {
      await server.close();
    }
    const merged = await runCli(['merge', join(dir, '1-2'), join(dir, '2-2'), '--out', join(dir, 'merged'), '--quiet']);
    expect(merged.code, merged.stderr).toBeLessThan(2);
    const report = JSON.parse(await readFile(join(dir, 'merged', 'report.json'), 'utf8')) as Report;
    await expectNoKey(dir);
    if (NO_BROWSER) return;
    const browser = await launchBrowser();
    try {
      const { page, problems } = await openFile(browser, join(dir, 'merged', 'report.html'), '', { width: 1280, height: 800 });
      const models = report.models.filter((m) => m.id !== '(endpoint)').map((m) => m.id);
      expect(models.length).toBe(3);
      expect((await page.locator('#summary-table th.model-name').allTextContents()).sort()).toEqual([...models].sort());
      const cell = report.results.find((r) => r.model !== '(endpoint)' && r.evidence.length > 0)!;
      await page.locator(`td.cell[title^=${JSON.stringify(`${cell.model} · ${cell.probe}:`)}]`).click();
      // The evidence of a shard's cell comes from the merged exchanges.har (its call ids carry the shard).
      expect(await page.locator('#panel section.exchange').count()).toBe(cell.evidence.length);
      expect(await page.locator('#panel').textContent()).not.toContain('were not recorded');
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await browser.close();
    }
  }, 60_000);
});
