import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Boundary } from '../../src/boundary/boundary.js';
import { eachHarEntry, type HarEntryView } from '../../src/report/har.js';
import { GAP_BUCKETS, PAGE_BODY_CHARS, PAGE_EVENTS, pageExchange, scriptJson, StreamTimings, writeHtml } from '../../src/report/writers/html.js';
import { sampleReport } from '../helpers/report.js';
import { tempDir } from '../helpers/tmp.js';

const entry = (over: Partial<HarEntryView> = {}): HarEntryView => ({
  _callId: 'c7',
  _probe: 'streaming.basic',
  _model: 'm',
  time: 40,
  request: { method: 'POST', url: 'http://127.0.0.1:9/v1/chat/completions', headers: [{ name: 'authorization', value: 'Bearer $OPENAI_API_KEY' }], postData: { text: '{"stream":true}' } },
  response: { status: 200, headers: [{ name: 'content-type', value: 'text/event-stream' }], content: { text: 'data: {}\n\n' } },
  timings: { wait: 12 },
  _events: [
    { at: 12, data: '{"a":1}' },
    { at: 12.5, data: '{"a":2}' },
    { at: 30, data: '{"a":3}' },
    { at: 2000, data: '[DONE]' },
  ],
  ...over,
});

describe('report.html pieces', () => {
  it('scriptJson: no server text can close the script block or open markup, and the JSON reads back the same', () => {
    const hostile = { id: '</script><script>alert(1)</script>', s: '<!-- & --> \u2028 \u2029' };
    const text = scriptJson(hostile, (s) => s);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(hostile);
  });

  it('scriptJson redacts before escaping, so a key with & or < is found in the form the redactor knows', () => {
    const key = 'sk-amp&lt<Wq83Ndk2';
    const boundary = Boundary.of([key]);
    const text = scriptJson({ echoed: `your key is ${key}` }, (s) => boundary.redact(s));
    expect(text).not.toContain('Wq83Ndk2');
    expect(JSON.parse(text).echoed).toBe('your key is [REDACTED]');
  });

  it('pageExchange: a stream shown by its events, capped for the page with the cut said; curl only for evidence worth reproducing', () => {
    const many = Array.from({ length: PAGE_EVENTS + 5 }, (_, i) => ({ at: i, data: 'x'.repeat(3000) }));
    const x = pageExchange(entry({ _events: many }), false);
    expect(x.events).toHaveLength(PAGE_EVENTS);
    expect(x.events![0]![1].length).toBe(2049);
    expect(x.response).toBeUndefined();
    expect(x.cuts).toEqual([`report.html shows the first ${PAGE_EVENTS} of the ${PAGE_EVENTS + 5} recorded events; exchanges.har has them all`]);
    expect(x.curl).toBeUndefined();

    const body = pageExchange(entry({ _events: undefined, response: { status: 400, headers: [], content: { text: 'e'.repeat(PAGE_BODY_CHARS + 1) } }, _cuts: ['ours'] }), true);
    expect(body.response).toHaveLength(PAGE_BODY_CHARS);
    expect(body.cuts).toEqual(['ours', `report.html shows the first ${PAGE_BODY_CHARS} of the response body's ${PAGE_BODY_CHARS + 1} recorded characters; exchanges.har has them all`]);
    expect(body.curl).toContain('-H "Authorization: Bearer $OPENAI_API_KEY"');
  });

  it('StreamTimings: first event and gap buckets per model, from 2xx streams only', () => {
    const t = new StreamTimings();
    t.add(entry());
    t.add(entry({ response: { status: 500, headers: [], content: {} } }));
    t.add(entry({ _events: undefined }));
    const m = t.toJSON().m!;
    expect(m.streams).toBe(1);
    expect(m.ttft).toEqual([12]);
    // Gaps 0.5 ms (< 1), 17.5 ms (10–20), 1970 ms (≥ 1000).
    const want = new Array<number>(GAP_BUCKETS.length + 1).fill(0);
    want[0] = 1;
    want[GAP_BUCKETS.indexOf(20)] = 1;
    want[GAP_BUCKETS.length] = 1;
    expect(m.gaps).toEqual(want);
  });

  it('eachHarEntry reads a HarWriter file a line at a time, skipping a line a killed run cut short', async () => {
    const dir = await tempDir();
    const path = join(dir, 'exchanges.har');
    const a = JSON.stringify({ startedDateTime: 'x', ...entry() });
    const b = JSON.stringify({ startedDateTime: 'y', ...entry({ _callId: 'c8' }) });
    await writeFile(path, `{"log":{"version":"1.2","entries":[\n${a},\n${b},\n${b.slice(0, 40)}`);
    const ids: string[] = [];
    expect(await eachHarEntry(path, (e) => void ids.push(e._callId))).toEqual({ entries: 2, skipped: 1 });
    expect(ids).toEqual(['c7', 'c8']);
  });

  it('writeHtml without exchanges.har (a merged report) says so in the page data, and forbids the network', async () => {
    const dir = await tempDir();
    const path = join(dir, 'report.html');
    await writeHtml(path, sampleReport(), join(dir, 'missing.har'), (s) => s);
    const html = await readFile(path, 'utf8');
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:;`);
    const data = JSON.parse(/<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(html)![1]!);
    expect(data.exchangesRecorded).toBe(false);
    expect(/id="exchanges-data">\{\}<\/script>/.test(html)).toBe(true);
    // No address outside the page: no src or href attribute at all.
    expect(html).not.toMatch(/\s(src|href)=/i);
    // The failing cell has its repro only when its exchanges are there to replay.
    expect(data.results.every((r: { repro?: string }) => r.repro === undefined)).toBe(true);
  });
});
