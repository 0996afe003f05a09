import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Boundary } from '../../src/boundary/boundary.js';
import { gate } from '../../src/report/gate.js';
import { LISTED_LINES, MATRIX_MODELS, PAGE_MODELS } from '../../src/report/bounds.js';
import type { Report } from '../../src/results/model.js';
import { harEntry, RECORDED_EVENT_CHARS, type RecordedCall } from '../../src/report/har.js';
import { painter, renderConsole } from '../../src/report/writers/console.js';
import { renderGithubSummary } from '../../src/report/writers/github.js';
import { writeHtml } from '../../src/report/writers/html.js';
import { jsonPieces, renderJson } from '../../src/report/writers/json.js';
import { renderJunit } from '../../src/report/writers/junit.js';
import { renderMatrix } from '../../src/report/writers/markdown.js';
import { REPORT_SCHEMA_URL } from '../../src/report/schema.js';
import { listedHint } from '../../src/engine/plan.js';
import { wideReport } from '../helpers/report.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * The number of models is the server's to choose. 2,500 models × 56 probes are 140,000 cells: past the
 * ~120,000 arguments a spread (Math.max(...cells)) puts on the stack, so a writer that spreads them throws
 * a RangeError. Every writer renders such a report, and the human-facing ones show a bounded part of it.
 */
describe('a report of 2,500 models × 56 probes', () => {
  const report: Report = gate(wideReport(2500, 56), undefined);
  const plain = painter(false, {});

  it('renders on the console at any width: the first models as a matrix, the rest counted', () => {
    for (const columns of [undefined, 80, 400]) {
      const text = renderConsole(report, plain, columns);
      expect(text).toContain(`the matrix shows the first ${MATRIX_MODELS} of 2500 models`);
      expect(text).toMatch(/… and \d+ more finding line\(s\): matrix\.md and report\.json have them/);
      expect(text.split('\n').length).toBeLessThan((56 + 2) * MATRIX_MODELS + LISTED_LINES + 100);
    }
  });

  it('renders matrix.md and the step summary with the first models as columns', () => {
    const md = renderMatrix(report);
    const header = md.split('\n').find((l) => l.startsWith('| probe | kind |'))!;
    expect(header.split(' | ').length - 2).toBe(MATRIX_MODELS);
    expect(md).toContain(`The matrix shows the first ${MATRIX_MODELS} of 2500 models`);
    expect(md).toContain(`The table lists the first ${LISTED_LINES} of 2500 models`);
    expect(md).toMatch(/- … and \d+ more findings: report\.json has them/);
    expect(Buffer.byteLength(renderGithubSummary(report))).toBeLessThanOrEqual(1000 * 1024);
  });

  it('writes report.json in pieces that join to exactly JSON.stringify of it', () => {
    const pieces = [...jsonPieces(report)];
    expect(pieces.length).toBeGreaterThan(100);
    expect(pieces.join('')).toBe(`${JSON.stringify({ $schema: REPORT_SCHEMA_URL, ...report }, null, 2)}\n`);
    expect(JSON.parse(renderJson(report)).results).toHaveLength(140_000);
  });

  it('writes junit.xml with every cell', () => {
    const xml = renderJunit(report);
    expect(xml).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="chatprobe" tests="140000" /);
    expect(xml.match(/<testsuite /g)).toHaveLength(2500);
  });

  it('writes a report.html that draws the first models and says where the rest are', async () => {
    const path = join(await tempDir(), 'report.html');
    await writeHtml(path, new Boundary().report(report), undefined, (s) => s);
    const html = readFileSync(path, 'utf8');
    const data = JSON.parse(/<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(html)![1]!);
    expect(data.models).toHaveLength(PAGE_MODELS);
    expect(data.results).toHaveLength(PAGE_MODELS * 56);
    expect(data.pageCut).toMatchObject({ models: 2500, shownModels: PAGE_MODELS });
    // The counts of the whole run, not of the page.
    expect(data.summary.outcomes).toEqual(report.summary!.outcomes);
  });
});

describe('bounded lines of a server-sized list', () => {
  it('a --models hint names the first 20 listed ids and counts the rest', () => {
    const listed = Array.from({ length: 100_000 }, (_, i) => ({ id: `m-${i}`, ownedBy: undefined, declared: undefined }));
    const hint = listedHint(listed);
    expect(hint).toMatch(/^listed models: m-0, m-1, .*, m-19 and 99980 more \(GET \/models lists them all\)$/);
    expect(hint.length).toBeLessThan(400);
  });

  it('an exchanges.har entry keeps a stream\'s events up to its cap, and says so', () => {
    const call: RecordedCall = {
      callId: 'c1', at: '2026-01-01T00:00:00.000Z', probe: 'p', model: 'm', method: 'POST', url: 'http://127.0.0.1:1/v1/chat/completions',
      requestHeaders: {}, requestBody: '{}', status: 200, responseHeaders: {}, responseText: '', bytes: 0, durationMs: 1, ttftMs: 1,
      events: Array.from({ length: 1000 }, (_, i) => ({ at: i, data: 'x'.repeat(70_000) })), cuts: [], error: undefined,
    };
    const entry = harEntry(call) as { _events: unknown[]; _cuts: string[] };
    expect(JSON.stringify(entry).length).toBeLessThan(RECORDED_EVENT_CHARS + 80_000);
    expect(entry._events).toHaveLength(Math.floor(RECORDED_EVENT_CHARS / 70_000));
    expect(entry._cuts).toEqual([`the stream's events are recorded up to ${RECORDED_EVENT_CHARS} characters of data: 3 of 1000 kept`]);
  });
});
