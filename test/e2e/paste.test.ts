import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallRecord } from '../../src/results/model.js';
import { REPRODUCIBLE } from '../../src/report/repro.js';
import { EVERY_PROBE, gateResults } from '../../src/results/view.js';
import { runCli } from '../helpers/cli.js';
import { parseJunit } from '../helpers/junit.js';
import { pasteIntoBash, type Pasted } from '../helpers/paste.js';
import { parseReport } from '../helpers/report-schema.js';
import { tempDir } from '../helpers/tmp.js';

const KEY = 'sk-paste-Vb7Rt2Mq9Xw4Lk8';
const LONG = 'L'.repeat(10_000);
/** Ids a hostile server lists: ways out of a shell word or a code span, and ids cleaning makes alike. */
const IDS = [
  'e2e $(touch pwned-id)',
  "e2e' ; touch pwned-quote ; '",
  'e2e\ntouch pwned-lf',
  'e2e\ttab',
  'e2e `touch pwned-bt` | & ; *md* [x](y) (endpoint)',
  'stop\u2028$(touch pwned-stop)',
  'dup\r',
  'dup\\x0d',
  `${LONG}1`,
  `${LONG}2`,
  `k-${KEY}`,
  'k-[REDACTED]',
];
/** Its smoke call fails (503: the upstream is down): a row not probed, reproduced as one line under EVERY_PROBE. */
const STOPPED = 'stop\u2028$(touch pwned-stop)';
const REFUSAL = 'bad request\n$(touch pwned-msg)\r`touch pwned-msg-cr`\u2028; touch pwned-msg-ls';

/** Lists IDS; refuses a limit with REFUSAL, fails every call of the stopped model with it, answers anything else. */
function hostileServer(): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const send = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (req.method === 'GET' && req.url === '/v1/models') return send(200, { object: 'list', data: IDS.map((id) => ({ id, object: 'model', created: 1, owned_by: 'x' })) });
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return send(404, { error: { message: 'no such route' } });
      const b = JSON.parse(body) as Record<string, unknown>;
      if (b.model === STOPPED) return send(503, { error: { message: REFUSAL, type: 'upstream_error' } });
      if ('max_tokens' in b || 'max_completion_tokens' in b) return send(400, { error: { message: REFUSAL, type: 'invalid_request_error' } });
      send(200, {
        id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: b.model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let server: Server;
let out: string;
let scratch: string;
beforeAll(async () => {
  server = await hostileServer();
  out = await tempDir();
  scratch = await tempDir();
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const audit = await runCli(['--base-url', url, '--out', out, '--probes', 'parameters.max_tokens'], { OPENAI_API_KEY: KEY });
  expect([0, 1], audit.stderr).toContain(audit.code);
}, 60_000);
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const harmless = (run: Pasted, only: string) => {
  expect(run.leftovers).toEqual([]);
  for (const c of run.commands) expect(c.startsWith(`${only} `), c).toBe(true);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
};

describe('an audit of hostile model ids', () => {
  it('names every listed model apart, and keys every output by that name: one test case per cell', async () => {
    const report = parseReport(await readFile(join(out, 'report.json'), 'utf8'));
    const ids = report.models.map((m) => m.id);
    expect(new Set(ids).size).toBe(IDS.length);
    for (const id of ids) expect(report.results.filter((r) => r.model === id).length).toBe(id.startsWith('stop') ? 0 : 1);
    const cases = (await parseJunit(await readFile(join(out, 'junit.xml'), 'utf8'))).testsuites.testsuite.flatMap((s) => s.testcase ?? []);
    expect(cases).toHaveLength(gateResults(report).length);
    // Each cell's evidence names the same model in trace.jsonl and exchanges.har as in report.json.
    const trace = new Map((await readFile(join(out, 'trace.jsonl'), 'utf8')).trim().split('\n').map((l) => CallRecord.parse(JSON.parse(l))).map((r) => [r.id, r]));
    const har = new Map((JSON.parse(await readFile(join(out, 'exchanges.har'), 'utf8')) as { log: { entries: { _callId: string; _model?: string }[] } }).log.entries.map((e) => [e._callId, e]));
    for (const cell of gateResults(report)) {
      expect(cell.evidence.length).toBeGreaterThan(0);
      for (const id of cell.evidence) {
        expect(trace.get(id)!.model).toBe(cell.model);
        expect(har.get(id)!._model).toBe(cell.model);
      }
    }
  });

  it('every reproduce line of matrix.md and report.html, pasted, runs chatprobe repro on the cell; its output, pasted, runs only curl with the recorded request', async () => {
    const report = parseReport(await readFile(join(out, 'report.json'), 'utf8'));
    const md = await readFile(join(out, 'matrix.md'), 'utf8');
    const page = await readFile(join(out, 'report.html'), 'utf8');
    const data = JSON.parse(/<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(page)![1]!) as {
      results: { model: string; probe: string; repro?: string }[];
      models: { id: string; notRun?: { repro?: string } }[];
    };
    const entries = new Map((JSON.parse(await readFile(join(out, 'exchanges.har'), 'utf8')) as { log: { entries: { _callId: string; request: { url: string; postData?: { text: string } } }[] } }).log.entries.map((e) => [e._callId, e]));
    const prefix = '  - reproduce, in this folder: ';
    const fromMatrix = md.split('\n').filter((l) => l.startsWith(prefix)).map((l) => /^(`+)( ?)(.*)\2\1$/.exec(l.slice(prefix.length))![3]!);
    const fromPage = [...data.results.map((r) => r.repro), ...data.models.map((m) => m.notRun?.repro)].filter((r) => r !== undefined);
    const cells = gateResults(report);
    expect(cells.every((c) => REPRODUCIBLE.has(c.verdict))).toBe(true);
    expect(fromMatrix).toHaveLength(report.results.length);
    expect(fromPage).toHaveLength(cells.length);
    const reproduced = new Set<string>();
    for (const [i, line] of [...fromMatrix, ...fromPage].entries()) {
      const cell = i < fromMatrix.length ? report.results[i]! : cells[i - fromMatrix.length]!;
      const pasted = await pasteIntoBash(`${line}\n`, scratch);
      harmless(pasted, 'chatprobe');
      const args = pasted.calls[0]!.args;
      expect(args).toEqual(['repro', '.', cell.model, cell.probe]);
      // The command a user pasted, run for real on the reports folder ('.' where the user stands), once per cell.
      if (reproduced.has(JSON.stringify(args))) continue;
      reproduced.add(JSON.stringify(args));
      const repro = await runCli(['repro', out, ...args.slice(2)]);
      expect(repro.code, repro.stderr).toBe(0);
      const curls = await pasteIntoBash(repro.stdout, scratch);
      harmless(curls, 'curl');
      expect(curls.calls.map((c) => [c.args[3], c.args.at(-1)])).toEqual(cell.evidence.map((id) => [entries.get(id)!.request.url, entries.get(id)!.request.postData!.text]));
    }
    expect(reproduced.size).toBe(cells.length);
    expect(cells.map((c) => c.probe)).toContain(EVERY_PROBE);
  }, 120_000);
});
