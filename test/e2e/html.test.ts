import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../../src/reference/server.js';
import type { Report } from '../../src/results/model.js';
import { gate } from '../../src/report/gate.js';
import { harEntry, HarWriter, type RecordedCall } from '../../src/report/har.js';
import { writeHtml } from '../../src/report/writers/html.js';
import { launchBrowser, NO_BROWSER, openFile } from '../helpers/browser.js';
import { layoutProblems, scrollBoxesAround } from '../helpers/page-layout.js';
import { runCli } from '../helpers/cli.js';
import { gatewayIds, wideReport, withModelIds } from '../helpers/report.js';
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
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await echo?.close();
  });

  const cellCount = (page: Page) => page.locator('#matrix td.cell').count();
  // The probes drawn: rows when the models are columns, columns when they are rows.
  const shownIds = (page: Page) => page.locator('#matrix [data-probe]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-probe')));

  it('opens with no console error and no request leaving the page, every cell drawn, a server’s markup shown as text', async () => {
    const { page, problems } = await openFile(browser, join(out, 'report.html'));
    const rows = report.probes.filter((p) => p.scope !== 'target').length;
    const models = report.models.filter((m) => m.id !== '(endpoint)').length;
    expect(await cellCount(page)).toBe(rows * models);
    expect(await page.locator('#endpoint-table td.cell').count()).toBe(report.probes.length - rows);
    // The hostile id is a column header's text; nothing it carries became an element or ran.
    expect(await page.locator('#matrix th.model').allTextContents()).toContain(HOSTILE);
    expect(await page.locator('#summary-table th.model-name').allTextContents()).toContain(HOSTILE);
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
    expect(await page.locator('#matrix th.model').allTextContents()).toEqual(['mid-stream-error']);
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
      expect((await page.locator('#matrix th.model').allTextContents()).sort()).toEqual([...ids].sort());
      expect((await page.locator('#summary-table th.model-name').allTextContents()).sort()).toEqual([...ids].sort());
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

  it('draws all 4,000 cells on one page, the window scrolling them with the header rows and the model column in view; filters, and opens a cell', async () => {
    const { page, problems } = await openFile(browser, file, '', { width: 1280, height: 800 });
    expect(await page.locator('#matrix td.cell').count()).toBe(4000);
    expect(await page.locator('#shown').textContent()).toBe('showing 4000 of 4000 cells');
    expect(await page.locator('#pager').isVisible()).toBe(false);
    // 50 models do not fit as columns: each is a row, its id at the left.
    expect(await page.locator('table.matrix.down').count()).toBe(1);
    expect(await scrollBoxesAround(page, '#matrix')).toEqual([]);

    // Scrolled down and right by the window, the probe headers stay under the toolbar and the model ids at the left.
    await page.locator('#matrix-section').scrollIntoViewIfNeeded();
    const header = page.locator('#matrix th.pcol').first();
    const model = page.locator('#matrix th.model').nth(30);
    const left = (await page.locator('#matrix th.model').first().boundingBox())!.x;
    await page.evaluate('window.scrollBy(900, 600)');
    const bar = (await page.locator('.toolbar').boundingBox())!;
    expect(bar.y).toBe(0);
    const stuck = (await page.locator('#matrix th.pcol').nth(40).boundingBox())!;
    expect(stuck.y).toBeGreaterThanOrEqual(bar.y + bar.height - 1);
    expect(stuck.y).toBeLessThan(400);
    expect((await model.boundingBox())!.x).toBeLessThan(left);
    expect((await model.boundingBox())!.x).toBeGreaterThanOrEqual(-1);
    expect((await header.boundingBox())!.x).toBeLessThan(0);
    expect(await layoutProblems(page, '#matrix th.model, #matrix th.pcol', '#matrix th, .toolbar > *')).toEqual([]);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.selectOption('#order', 'listed');

    const fails = report.results.filter((r) => r.verdict === 'fail');
    for (const box of await page.locator('.chip input').all()) if ((await box.getAttribute('data-verdict')) !== 'fail') await box.uncheck();
    expect(await page.locator('#matrix td.cell').count()).toBe(fails.length);
    await page.fill('#search', 'model 17 probe');
    const seventeen = fails.filter((r) => r.findings[0]!.message.includes('model 17 probe'));
    expect(await page.locator('#matrix td.cell').count()).toBe(seventeen.length);
    await page.fill('#model', 'vendor-3/');
    expect(await page.locator('#matrix th.model').allTextContents()).toEqual([...new Set(seventeen.filter((r) => r.model.startsWith('vendor-3/')).map((r) => r.model))]);
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

/**
 * A hand-made run of `n` models × 80 probes as a gateway lists them (long vendor ids, many alike but for
 * their ends), gated against a baseline that expects honoured where the first three models ignore (their
 * regressions), with the fifth model not probed at all.
 */
function gatewayRun(n: number): Report {
  const base = withModelIds(wideReport(n, 80), gatewayIds(n));
  const down = base.models[4]?.id;
  if (down) {
    base.models[4] = { ...base.models[4]!, cause: 'upstream', advice: 'the upstream channel is down', notRun: { verdict: 'error', outcome: 'failed', cause: 'upstream', status: 503, observed: 'not run: the smoke call failed with HTTP 503', evidence: [] } };
    base.results = base.results.filter((r) => r.model !== down);
  }
  const cells = Object.fromEntries(base.models.slice(0, 3).map((m) => [m.id, Object.fromEntries(base.results.filter((r) => r.model === m.id && r.verdict === 'ignored').map((r) => [r.probe, 'honoured' as const]))]));
  return gate(base, { schemaVersion: 1, cells }, { path: 'chatprobe.baseline.json', updated: false });
}

/** Writes the run's report.html beside an exchanges.har holding each cell's call. */
async function writePage(report: Report): Promise<string> {
  const dir = await tempDir();
  const har = new HarWriter(join(dir, 'exchanges.har'), 'test');
  report.results.forEach((r, i) => har.add(JSON.stringify(harEntry(wideCall(r.evidence[0]!, r.model, r.probe, i)))));
  const file = join(dir, 'report.html');
  await writeHtml(file, report, har.close(), (s) => s);
  return file;
}

// The elements holding a model's (or a probe's) name, each to be read whole; and the text that must not overlap.
const NAMES = '#summary-table th.model-name, #failures .fchip, #matrix th.model, #matrix th.pcol, #matrix th.probe';
const LABELS = '.toolbar > *, #summary-table th, #summary-table td, #failures .fchip, #failures .ghead > *, #matrix th, #matrix td.cell';

describe.skipIf(NO_BROWSER)('report.html read at 3, 20 and 200 models, in a window of 1280×800 and of 1000×700', () => {
  let browser: Browser;
  let shots: string;
  const runs = new Map<number, { report: Report; file: string }>();
  beforeAll(async () => {
    // The screenshots each check looked at, kept where CHATPROBE_SCREENSHOTS says (else a temporary folder).
    shots = process.env.CHATPROBE_SCREENSHOTS ?? (await tempDir());
    for (const n of [3, 20, 200]) {
      const report = gatewayRun(n);
      runs.set(n, { report, file: await writePage(report) });
    }
    browser = await launchBrowser();
  }, 60_000);
  afterAll(() => browser?.close());

  const sizes = [
    { width: 1280, height: 800 },
    { width: 1000, height: 700 },
  ];
  for (const n of [3, 20, 200]) {
    for (const size of sizes) {
      it(`${n} models at ${size.width}×${size.height}: the models first, failures first, every id whole, the matrix in the window a page at a time, nothing cut or overlapping`, async () => {
        const { report, file } = runs.get(n)!;
        const ids = report.models.map((m) => m.id);
        const shot = (what: string) => page.screenshot({ path: join(shots, `${n}-models-${size.width}x${size.height}-${what}.png`) });
        const { page, problems } = await openFile(browser, file, '', size);

        // The top of the page: the models' table, each a row, the worst first.
        await shot('top');
        expect(await layoutProblems(page, NAMES, LABELS)).toEqual([]);
        const rows = page.locator('#summary-table tbody tr');
        expect(await rows.count()).toBe(Math.min(n, 20));
        if (n > 20) {
          await page.click('#summary-all');
          expect(await rows.count()).toBe(n);
        }
        expect((await page.locator('#summary-table th.model-name').allTextContents()).sort()).toEqual([...ids].sort());
        // Regressions first: the three models the baseline expected more of, then the most failures.
        const order = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-model')!));
        expect(order.slice(0, 3).sort()).toEqual(ids.slice(0, 3).sort());
        const failedOf = (id: string) => report.results.filter((r) => r.model === id && r.outcome === 'failed').length;
        const rest = order.slice(3).filter((id) => !report.models.find((m) => m.id === id)!.notRun).map(failedOf);
        expect(rest).toEqual([...rest].sort((a, b) => b - a));
        // A row's counts are the model's cells as the gate counts them.
        const first = order[0]!;
        const mine = report.results.filter((r) => r.model === first);
        const cells = await rows.first().locator('td.num').allTextContents();
        expect(cells.slice(1)).toEqual([
          mine.filter((r) => r.outcome === 'passed').length,
          mine.filter((r) => r.outcome === 'failed').length,
          mine.filter((r) => r.verdict === 'ignored').length,
          mine.filter((r) => r.verdict === 'rejected').length,
          mine.filter((r) => r.outcome === 'errored').length,
          mine.filter((r) => r.outcome === 'skipped').length,
          mine.filter((r) => r.comparison === 'regression').length,
        ].map(String));
        expect(Number(cells.at(-1))).toBeGreaterThan(0);
        if (n >= 5) expect(await page.locator(`#summary-table tr[data-model=${JSON.stringify(ids[4])}] td.not-probed`).textContent()).toBe('error: upstream not run: the smoke call failed with HTTP 503');

        // What failed: the probes with regressions first, a regression's chip opening its evidence.
        const group = page.locator('#failures .group').first();
        expect(await group.locator('.gcount').textContent()).toMatch(/^\d+ regression\(s\)/);
        const chip = group.locator('.fchip.reg').first();
        const [model, probe] = [(await chip.getAttribute('data-model'))!, (await group.getAttribute('data-probe'))!];
        expect(report.results.find((r) => r.model === model && r.probe === probe)!.comparison).toBe('regression');
        await chip.click();
        expect(await page.locator('#panel h2').textContent()).toBe(`${model} · ${probe}`);
        await page.keyboard.press('Escape');

        // The matrix: models as columns while they fit, else as rows; scrolled by the window alone.
        expect(await page.locator(n === 3 ? 'table.matrix.across' : 'table.matrix.down').count()).toBe(1);
        expect(await scrollBoxesAround(page, '#matrix')).toEqual([]);
        await page.locator('#matrix-section').scrollIntoViewIfNeeded();
        await shot('matrix');
        expect(await layoutProblems(page, NAMES, LABELS)).toEqual([]);
        await page.evaluate(`window.scrollBy(${size.width / 2}, ${size.height})`);
        await shot('matrix-scrolled');
        expect(await layoutProblems(page, NAMES, LABELS)).toEqual([]);

        // A page of 50 models at a time; every model is on one of them, whole.
        const drawn: string[] = [];
        for (let p = 0; ; p++) {
          drawn.push(...(await page.locator('#matrix th.model').allTextContents()));
          if (n <= 50) {
            expect(await page.locator('#pager').isVisible()).toBe(false);
            break;
          }
          expect(await page.locator('#pager-label').textContent()).toBe(`models ${p * 50 + 1}–${Math.min(n, p * 50 + 50)} of ${n} · page ${p + 1} of ${Math.ceil(n / 50)}`);
          expect(await page.locator('#matrix td.cell').count()).toBeLessThanOrEqual(50 * 80);
          if (await page.locator('#pager-next').isDisabled()) break;
          await page.click('#pager-next');
        }
        expect(drawn.sort()).toEqual([...ids].sort());

        // A click on a model in the table shows it alone, not the models whose ids begin with its own ("m:ft-15").
        const alone = ids.includes('m') ? 'm' : ids[0]!;
        await page.locator(`#summary-table tr[data-model=${JSON.stringify(alone)}] button.link`).click();
        expect(await page.locator('#matrix th.model').allTextContents()).toEqual([alone]);
        expect(await page.locator('table.matrix.across').count()).toBe(1);
        // The layout asked for is drawn whatever fits.
        await page.selectOption('#layout', 'down');
        expect(await page.locator('table.matrix.down tbody th.model').allTextContents()).toEqual([alone]);
        expect(problems).toEqual([]);
        await page.close();
        // 200 models took 12–15 s on a 2-core machine beside four other test runs.
      }, 60_000);
    }
  }
});

describe.skipIf(NO_BROWSER)('report.html of 200 models × 80 probes, each cell’s exchange embedded', () => {
  it('opens and draws its first page of the matrix well within a generous bound (npm run bench -- html measures it)', async () => {
    const file = await writePage(gatewayRun(200));
    const browser = await launchBrowser();
    try {
      const times: number[] = [];
      for (let i = 0; i < 3; i++) {
        const { page, problems } = await openFile(browser, file, '', { width: 1280, height: 800 });
        // From the navigation's start to the first frame after the script drew the page.
        times.push(await page.evaluate<number>('new Promise((done) => requestAnimationFrame(() => done(performance.now())))'));
        expect(await page.locator('#matrix td.cell').count()).toBe(50 * 80);
        expect(problems).toEqual([]);
        await page.close();
      }
      // The goal is 2 s; the median on a 2-core machine with four other test runs beside it was 0.9–1.3 s.
      // A bound of 6 s is there to catch a page that draws every model at once again, not to time it.
      expect(times.sort((a, b) => a - b)[1]).toBeLessThan(6000);
    } finally {
      await browser.close();
    }
  }, 90_000);
});
