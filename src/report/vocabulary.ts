import type { ProbeResult, Report } from '../results/model.js';
import { reportJsonSchema } from './schema.js';
import { renderJson } from './writers/json.js';
import { renderJunit } from './writers/junit.js';
import { renderMatrix } from './writers/markdown.js';
import { PAGE_CSS, PAGE_JS } from './writers/html-page.js';
import { COMPARE_CSS, COMPARE_JS } from './writers/compare-page.js';
import { pageExchange } from './writers/html.js';

/**
 * The text chatprobe's own files are made of: the report's field names (its JSON Schema), the JUnit and
 * Markdown a small report renders to, report.html's style, script and exchange fields. A secret's
 * fragment found in it is not searched for (secrets.ts: RedactorOptions.vocabulary): a key `function` or
 * `testcase` would otherwise be cut out of the page's script or the XML's element names, and the file
 * broken. A random key's fragments are never in it. Built once, on demand (a few milliseconds).
 */
let vocabulary: string | undefined;

export function ownVocabulary(): string {
  vocabulary ??= [
    JSON.stringify(reportJsonSchema()),
    renderJson(SAMPLE),
    renderJunit(SAMPLE),
    renderMatrix(SAMPLE),
    PAGE_CSS,
    PAGE_JS,
    COMPARE_CSS,
    COMPARE_JS,
    JSON.stringify(pageExchange({ _callId: 'c1', _probe: 'p', _model: 'm', time: 1, request: { method: 'POST', url: '', headers: [] }, response: { status: 200, headers: [], content: {} }, _events: [{ at: 1, data: '' }] }, true)),
    // The page's head (writers/html.ts), and the stream tables' captions.
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'; script-src \'unsafe-inline\'; img-src data:; base-uri \'none\'; form-action \'none\'"><meta name="viewport" content="width=device-width, initial-scale=1"><title></title><style></style></head><body><noscript><p>This report draws its matrix with JavaScript; matrix.md beside it has the same verdicts as text.</p></noscript><div id="app"></div><script type="application/json" id="exchanges-data"></script><script type="application/json" id="timings-data"></script><script type="application/json" id="report-data"></script></body></html>',
  ].join('\n');
  return vocabulary;
}

const result = (verdict: ProbeResult['verdict'], outcome: ProbeResult['outcome'], extra: Partial<ProbeResult> = {}): ProbeResult => ({
  model: 'm',
  probe: `p.${verdict}`,
  kind: 'capability',
  verdict,
  outcome,
  observed: 'o',
  evidence: ['c1'],
  findings: [{ severity: 'warn', code: 'c', message: 'm' }],
  durationMs: 1,
  ...extra,
});

/** One cell of each outcome, a row not probed, an endpoint check: every element and field the writers emit. */
const SAMPLE: Report = {
  schemaVersion: 1,
  tool: { name: 'chatprobe', version: '0' },
  target: { baseUrl: 'http://h/v1', headerNames: [] },
  startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: '2026-01-01T00:00:01.000Z',
  durationMs: 1,
  interrupted: false,
  options: { concurrency: 1, timeoutMs: 1, modelFilter: [], probeFilter: [], strict: false, requireAuth: false, samples: 2 },
  models: [
    { id: 'm', listed: true, ownedBy: 'o', stalled: ['c1'] },
    { id: 'n', listed: true, cause: 'upstream', advice: 'a', notRun: { verdict: 'error', outcome: 'failed', cause: 'upstream', observed: 'o', evidence: ['c1'], status: 503 } },
  ],
  probes: [{ id: 'p.pass', area: 'p', kind: 'capability', scope: 'model', requirement: 'r', cost: { requests: 1, maxTokens: 1 } }],
  results: [
    result('honoured', 'passed'),
    result('inconclusive', 'skipped'),
    result('error', 'errored', { cause: 'harness' }),
    result('fail', 'failed', { comparison: 'regression', expected: ['pass'], status: 400, message: 'm' }),
  ],
  calls: 1,
};
