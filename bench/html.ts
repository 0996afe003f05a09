/**
 * The report.html row: a run of 200 models × 80 probes, each cell's exchange embedded (a page of about
 * 19 MB), opened in headless Chromium (the machine's own, as the browser tests drive it), from the
 * navigation's start to the first frame after the page's script drew it. Against the same file with its
 * script left out: what the browser takes to read the file alone.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gate } from '../src/report/gate.js';
import { harEntry, HarWriter } from '../src/report/har.js';
import { writeHtml } from '../src/report/writers/html.js';
import { PAGE_JS } from '../src/report/writers/html-page.js';
import { launchBrowser } from '../test/helpers/browser.js';
import { gatewayIds, wideReport, withModelIds } from '../test/helpers/report.js';
import type { Measured } from './memory.js';

const MODELS = 200;
const PROBES = 80;
const RUNS = 7;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchHtml(): Promise<Measured[]> {
  const dir = await mkdtemp(join(tmpdir(), 'chatprobe-bench-html-'));
  const browser = await launchBrowser();
  try {
    const report = gate(withModelIds(wideReport(MODELS, PROBES), gatewayIds(MODELS)), undefined);
    const har = new HarWriter(join(dir, 'exchanges.har'), 'bench');
    report.results.forEach((r, i) => {
      const stream = i % 5 === 0;
      const events = stream ? Array.from({ length: 8 }, (_, k) => ({ at: 12 + k * (1 + (i % 30)), data: `{"choices":[{"delta":{"content":"${k}"}}]}` })) : undefined;
      har.add(JSON.stringify(harEntry({
        callId: r.evidence[0]!, at: '2026-01-01T00:00:00.000Z', probe: r.probe, model: r.model, method: 'POST', url: 'http://127.0.0.1:1/v1/chat/completions',
        requestHeaders: { authorization: 'Bearer $OPENAI_API_KEY', 'content-type': 'application/json' },
        requestBody: JSON.stringify({ model: r.model, messages: [{ role: 'user', content: `call ${i}` }], max_tokens: 8, stream }),
        status: 200, responseHeaders: { 'content-type': stream ? 'text/event-stream' : 'application/json' },
        responseText: stream ? '' : JSON.stringify({ choices: [{ message: { role: 'assistant', content: `answer ${i}` }, finish_reason: 'stop' }] }),
        bytes: 200, durationMs: 40, ttftMs: stream ? 12 : undefined, events, cuts: [], error: undefined,
      })));
    });
    const page = join(dir, 'report.html');
    await writeHtml(page, report, har.close(), (s) => s);
    const html = await readFile(page, 'utf8');
    const bare = join(dir, 'bare.html');
    const script = `<script>${PAGE_JS}</script>`;
    if (!html.includes(script)) throw new Error("report.html's script is not where the bench looks for it");
    await writeFile(bare, html.replace(script, ''));
    const drawn = async (file: string) => {
      const tab = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await tab.goto(pathToFileURL(file).href);
      const ms = await tab.evaluate<number>('new Promise((done) => requestAnimationFrame(() => done(performance.now())))');
      await tab.close();
      return ms;
    };
    const ours: number[] = [];
    const base: number[] = [];
    // In turns, so a burst of load on the machine weighs on both alike.
    await drawn(page);
    for (let i = 0; i < RUNS; i++) {
      ours.push(await drawn(page));
      base.push(await drawn(bare));
    }
    const mb = (Buffer.byteLength(html) / 1e6).toFixed(0);
    return [{
      name: `report.html of ${MODELS} models × ${PROBES} probes, every exchange embedded (${mb} MB), opened in headless Chromium to its first frame drawn (median of ${RUNS})`,
      baseline: 'the same file without its script',
      ours: median(ours),
      base: median(base),
      unit: 'ms',
      goal: { max: 2000, absolute: true },
    }];
  } finally {
    await browser.close();
    await rm(dir, { recursive: true, force: true });
  }
}
