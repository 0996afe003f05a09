import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import type { Report } from '../../src/results/model.js';
import { harEntry, HarWriter, type RecordedCall } from '../../src/report/har.js';
import { writeHtml } from '../../src/report/writers/html.js';
import { launchBrowser, NO_BROWSER, openFile } from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';
import { wideReport } from '../helpers/report.js';
import { tempDir } from '../helpers/tmp.js';

// A key with characters HTML and JSON escape, so each of its encodings in the page is looked for.
const KEY = 'sk-htmlpage-Kx4&Vb7<Qz9>"w';
// A model id that would run script if the page ever put a server's text in as markup.
const HOSTILE = '</script><img src=x onerror="document.title=\'owned\'"><b>m</b>';

const cellSelector = (model: string, probe: string) => `td.cell[title^=${JSON.stringify(`${model} · ${probe}:`)}]`;

describe.skipIf(NO_BROWSER)('report.html in a headless browser', () => {
  let browser: Browser;
  let server: ReferenceServer;
  let echo: ReferenceServer;
  let out: string;
  let echoOut: string;
  let report: Report;

  beforeAll(async () => {
    const profile = loadProfile('broken-gateway');
    profile.models.push({ ...profile.models.find((m) => m.id === 'buffering')!, id: HOSTILE });
    server = await startReferenceServer({ profile, apiKey: KEY });
    echo = await startReferenceServer({ profile: loadProfile('echo-key'), apiKey: KEY });
    out = await tempDir();
    echoOut = await tempDir();
    const [a, b] = await Promise.all([
      runCli(['--base-url', server.url, '--out', out, '--quiet'], { OPENAI_API_KEY: KEY }),
      runCli(['--base-url', echo.url, '--out', echoOut, '--quiet'], { OPENAI_API_KEY: KEY }),
      launchBrowser().then((x) => (browser = x)),
    ]);
    expect(a.stderr).not.toMatch(/could not write/);
    expect(b.code, b.stderr).toBe(0);
    report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await echo?.close();
  });

  const cellCount = (page: Page) => page.locator('#matrix td.cell').count();
  const shownIds = (page: Page) => page.locator('#matrix tr[data-probe]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-probe')));

  it('opens with no console error and no request leaving the page, every cell drawn, a server’s markup shown as text', async () => {
    const { page, problems } = await openFile(browser, join(out, 'report.html'));
    const rows = report.probes.filter((p) => p.scope !== 'target').length;
    const models = report.models.filter((m) => m.id !== '(endpoint)').length;
    expect(await cellCount(page)).toBe(rows * models);
    expect(await page.locator('#endpoint-table td.cell').count()).toBe(report.probes.length - rows);
    // The hostile id is a column header's text; nothing it carries became an element or ran.
    expect(await page.locator('th.model span').allTextContents()).toContain(HOSTILE);
    expect(await page.locator('img, b').count()).toBe(0);
    expect(await page.title()).toMatch(/^chatprobe · http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('filters by area, verdict and model, and searches', async () => {
    const { page, problems } = await openFile(browser, join(out, 'report.html'));
    const all = await cellCount(page);
    await page.selectOption('#area', 'streaming');
    const streaming = await shownIds(page);
    expect(streaming.length).toBeGreaterThan(5);
    expect(streaming.every((id) => id!.startsWith('streaming.'))).toBe(true);
    await page.selectOption('#area', '');
    expect(await cellCount(page)).toBe(all);

    // Only the failures: each cell left is one, and there are as many as the report has.
    for (const box of await page.locator('.chip input').all()) if ((await box.getAttribute('data-verdict')) !== 'fail') await box.uncheck();
    const perRow = report.probes.filter((p) => p.scope !== 'target').length;
    const fails = report.results.filter((r) => r.verdict === 'fail' && r.model !== '(endpoint)').length + report.models.filter((m) => m.notRun?.verdict === 'fail').length * perRow;
    expect(fails).toBeGreaterThan(3);
    const titles = await page.locator('#matrix td.cell').evaluateAll((tds) => tds.map((td) => td.getAttribute('title')));
    expect(titles).toHaveLength(fails);
    expect(titles.every((t) => t!.endsWith(': fail'))).toBe(true);
    expect(await page.locator('#shown').textContent()).toMatch(new RegExp(`^showing ${fails + report.results.filter((r) => r.verdict === 'fail' && r.model === '(endpoint)').length} of `));
    for (const box of await page.locator('.chip input').all()) await box.check();

    // A model filter leaves its column alone; a search finds the words of a finding.
    await page.fill('#model', 'mid-stream');
    expect(await page.locator('th.model').allTextContents()).toEqual(['mid-stream-error']);
    await page.fill('#model', '');
    // A search over what was seen: the words of one cell's observation find that cell alone (the first
    // failing cell's own words; timing verdicts are left out, a loaded machine may make them inconclusive).
    const target = report.results.find((r) => r.verdict === 'fail' && r.model === 'err-in-200')!;
    await page.fill('#search', target.observed.slice(0, 60));
    const found = await page.locator('#matrix td.cell').evaluateAll((tds) => tds.map((td) => td.getAttribute('title')));
    expect(found).toContain(`err-in-200 · ${target.probe}: fail`);
    const same = report.results.filter((r) => r.model !== '(endpoint)' && r.observed.toLowerCase().includes(target.observed.slice(0, 60).toLowerCase()));
    expect(found).toHaveLength(same.length);
    await page.fill('#search', 'no such text anywhere');
    expect(await page.locator('#matrix-section .empty').textContent()).toBe('No cell matches the filters.');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('opens a cell’s evidence: requirement, what was seen, findings, its repro command, the exchange with its stream events', async () => {
    const { page, problems } = await openFile(browser, join(out, 'report.html'));
    // A stream that breaks off with an error event: a failure whatever the machine's load.
    const cell = report.results.find((r) => r.model === 'mid-stream-error' && r.probe === 'streaming.error_in_band')!;
    expect(cell.verdict).toBe('fail');
    await page.locator(cellSelector('mid-stream-error', 'streaming.error_in_band')).click();
    const panel = page.locator('#panel');
    expect(await panel.isVisible()).toBe(true);
    const text = await panel.innerText();
    expect(text).toContain(report.probes.find((p) => p.id === 'streaming.error_in_band')!.requirement);
    expect(text).toContain(cell.observed);
    expect(await panel.locator('pre.repro').textContent()).toBe("chatprobe repro . 'mid-stream-error' streaming.error_in_band");
    expect(await panel.locator('section.exchange').evaluateAll((s) => s.map((x) => x.getAttribute('data-call')))).toEqual(cell.evidence);
    // The stream's events with their arrival times, the error event among them.
    const events = await panel.locator('table.events tbody tr td.data').allTextContents();
    expect(events.length).toBeGreaterThan(1);
    expect(events.some((d) => d.includes('"error"'))).toBe(true);
    expect((await panel.locator('table.events tbody tr td:first-child').allTextContents()).every((t) => /^\d+(\.\d)? ms$/.test(t))).toBe(true);
    expect(await panel.locator('pre.request').first().textContent()).toContain('"stream": true');
    expect(await panel.locator('pre.curl').textContent()).toContain('-H "Authorization: Bearer $OPENAI_API_KEY"');
    await page.keyboard.press('Escape');
    expect(await panel.isVisible()).toBe(false);

    // A link to the cell opens it.
    const linked = await openFile(browser, join(out, 'report.html'), `#${new URLSearchParams({ model: HOSTILE, probe: 'streaming.buffered' })}`);
    expect(await linked.page.locator('#panel h2').textContent()).toBe(`${HOSTILE} · streaming.buffered`);
    expect([...problems, ...linked.problems]).toEqual([]);
    await page.close();
    await linked.page.close();
  });

  it('holds no trace of the key, in the file or in any cell’s evidence opened, though the server echoed it', async () => {
    const file = await readFile(join(echoOut, 'report.html'), 'utf8');
    const { page, problems } = await openFile(browser, join(echoOut, 'report.html'));
    // Every cell clicked in turn, and the text of its evidence panel kept (run in the page).
    const opened = await page.evaluate<string>(`(() => {
      let text = '';
      for (const td of document.querySelectorAll('td.cell')) {
        td.click();
        text += document.getElementById('panel').innerText;
      }
      return text;
    })()`);
    expect(opened).toContain('[REDACTED]');
    for (const [name, text] of Object.entries({ file, opened, dom: await page.content() })) {
      expect(text.includes('htmlpage'), name).toBe(false);
      expect(text.includes('Kx4'), name).toBe(false);
    }
    expect(problems).toEqual([]);
    await page.close();
  });
});

/** A recorded call for a hand-made report's cell: every fifth one a stream with timed events. */
function wideCall(id: string, model: string, probe: string, i: number): RecordedCall {
  const stream = i % 5 === 0;
  return {
    callId: id,
    at: '2026-01-01T00:00:00.000Z',
    probe,
    model,
    method: 'POST',
    url: 'http://127.0.0.1:1/v1/chat/completions',
    requestHeaders: { authorization: 'Bearer $OPENAI_API_KEY', 'content-type': 'application/json' },
    requestBody: JSON.stringify({ model, messages: [{ role: 'user', content: `call ${i}` }], max_tokens: 8, stream }),
    status: 200,
    responseHeaders: { 'content-type': stream ? 'text/event-stream' : 'application/json' },
    responseText: stream ? '' : JSON.stringify({ choices: [{ message: { role: 'assistant', content: `answer ${i}` }, finish_reason: 'stop' }] }),
    bytes: 200,
    durationMs: 40,
    ttftMs: stream ? 12 : undefined,
    events: stream ? Array.from({ length: 8 }, (_, k) => ({ at: 12 + k * (1 + (i % 30)), data: `{"choices":[{"delta":{"content":"${k}"}}]}` })) : undefined,
    cuts: [],
    error: undefined,
  };
}

describe.skipIf(NO_BROWSER)('report.html with ids that are names of built-in properties', () => {
  it('draws a model named constructor or __proto__ like any other', async () => {
    const report = wideReport(3, 4);
    const ids = ['constructor', '__proto__', 'toString'];
    report.models = report.models.map((m, i) => ({ ...m, id: ids[i]! }));
    report.results = report.results.map((r) => ({ ...r, model: ids[report.models.findIndex((_, i) => r.model === `vendor-${i % 7}/model-${i}`)]! }));
    const dir = await tempDir();
    const har = new HarWriter(join(dir, 'exchanges.har'), 'test');
    report.results.forEach((r, i) => har.add(JSON.stringify(harEntry(wideCall(r.evidence[0]!, r.model, r.probe, i)))));
    await writeHtml(join(dir, 'report.html'), report, har.close(), (s) => s);
    const browser = await launchBrowser();
    try {
      const { page, problems } = await openFile(browser, join(dir, 'report.html'));
      expect(await page.locator('#matrix td.cell').count()).toBe(12);
      expect(await page.locator('th.model span').allTextContents()).toEqual(ids);
      expect(await page.locator('#timings th').allTextContents()).toEqual(expect.arrayContaining(['constructor']));
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});

describe.skipIf(NO_BROWSER)('report.html at 50 models × 80 probes', () => {
  let browser: Browser;
  let file: string;
  const report = wideReport(50, 80);
  beforeAll(async () => {
    const dir = await tempDir();
    const har = new HarWriter(join(dir, 'exchanges.har'), 'test');
    report.results.forEach((r, i) => har.add(JSON.stringify(harEntry(wideCall(r.evidence[0]!, r.model, r.probe, i)))));
    file = join(dir, 'report.html');
    await writeHtml(file, report, har.close(), (s) => s);
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it('draws all 4,000 cells, keeps its headers in view while scrolled, filters, and opens a cell', async () => {
    const { page, problems } = await openFile(browser, file, '', { width: 1280, height: 800 });
    expect(await page.locator('#matrix td.cell').count()).toBe(4000);
    expect(await page.locator('#shown').textContent()).toBe('showing 4000 of 4000 cells');

    // Scrolled down and right inside the matrix, the model headers and the probe column stay where they were.
    const header = page.locator('th.model').first();
    const firstProbe = page.locator('th.probe').first();
    const before = { header: (await header.boundingBox())!.y, probe: (await firstProbe.boundingBox())!.x };
    await page.locator('.wrap').evaluate((w) => w.scrollTo(900, 1200));
    expect((await header.boundingBox())!.y).toBe(before.header);
    expect((await page.locator('th.probe').nth(40).boundingBox())!.x).toBe(before.probe);
    // The page scrolled too (PageDown on a small window): the model names stay in view, under the toolbar.
    await page.setViewportSize({ width: 1000, height: 700 });
    await page.evaluate('window.scrollBy(0, 400)');
    const bar = (await page.locator('.toolbar').boundingBox())!;
    const pinned = (await header.boundingBox())!;
    expect(pinned.y).toBeGreaterThanOrEqual(bar.y + bar.height - 1);
    expect(pinned.y).toBeLessThan(700);
    await page.evaluate('window.scrollTo(0, 0)');

    const fails = report.results.filter((r) => r.verdict === 'fail');
    for (const box of await page.locator('.chip input').all()) if ((await box.getAttribute('data-verdict')) !== 'fail') await box.uncheck();
    expect(await page.locator('#matrix td.cell').count()).toBe(fails.length);
    await page.fill('#search', 'model 17 probe');
    const seventeen = fails.filter((r) => r.findings[0]!.message.includes('model 17 probe'));
    expect(await page.locator('#matrix td.cell').count()).toBe(seventeen.length);
    await page.fill('#model', 'vendor-3/');
    expect(await page.locator('th.model').allTextContents()).toEqual([...new Set(seventeen.filter((r) => r.model.startsWith('vendor-3/')).map((r) => r.model))]);
    await page.locator('#matrix td.cell').first().click();
    const panel = page.locator('#panel');
    expect(await panel.locator('h2').textContent()).toMatch(/^vendor-3\/model-17 · area\d\.probe_\d+$/);
    expect(await panel.locator('section.exchange').count()).toBe(1);
    // The per-model stream timings: a chart per model that streamed.
    expect(await page.locator('#timings svg.ttft').count()).toBe(50);
    expect(problems).toEqual([]);
    await page.close();
  });
});
