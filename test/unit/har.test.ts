import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { capBody, harEntry, HarWriter, RECORDED_BODY_CHARS, type RecordedCall } from '../../src/report/har.js';
import { ROOT, runCommand } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const call = (extra: Partial<RecordedCall> = {}): RecordedCall => ({
  callId: 'c7',
  at: '2026-01-01T00:00:00.000Z',
  probe: 'streaming.basic',
  model: 'm',
  method: 'POST',
  url: 'http://127.0.0.1:1/v1/chat/completions',
  requestHeaders: { authorization: 'Bearer $OPENAI_API_KEY', 'content-type': 'application/json' },
  requestBody: '{"stream":true}',
  status: 200,
  responseHeaders: { 'content-type': 'text/event-stream' },
  responseText: 'data: {}\n\n',
  bytes: 10,
  durationMs: 40,
  ttftMs: 12,
  events: [{ at: 12, data: '{}' }],
  cuts: [],
  error: undefined,
  ...extra,
});

describe('exchanges.har', () => {
  it('is a HAR 1.2 entry with chatprobe’s call id, probe, model and the stream’s timed events', () => {
    const e = harEntry(call()) as Record<string, any>;
    expect(e.request).toMatchObject({ method: 'POST', postData: { mimeType: 'application/json', text: '{"stream":true}' } });
    expect(e.response).toMatchObject({ status: 200, content: { size: 10, mimeType: 'text/event-stream', text: 'data: {}\n\n' } });
    expect(e.timings).toEqual({ send: 0, wait: 12, receive: 28 });
    expect(e).toMatchObject({ _callId: 'c7', _probe: 'streaming.basic', _model: 'm', _events: [{ at: 12, data: '{}' }] });
    const failed = harEntry(call({ status: undefined, error: 'no complete answer within --timeout', events: undefined })) as Record<string, any>;
    expect(failed.response).toMatchObject({ status: 0, statusText: 'no complete answer within --timeout' });
    expect(failed._error).toBe('no complete answer within --timeout');
  });

  it('caps a body and says so', () => {
    const cuts: string[] = [];
    expect(capBody('x'.repeat(RECORDED_BODY_CHARS + 5), 'response body', cuts)).toHaveLength(RECORDED_BODY_CHARS);
    expect(cuts).toEqual([`the response body is recorded up to ${RECORDED_BODY_CHARS} of its ${RECORDED_BODY_CHARS + 5} characters`]);
    expect(capBody('short', 'request body', cuts)).toBe('short');
    expect(cuts).toHaveLength(1);
  });

  it('writes a whole JSON document entry by entry, in place only once complete; an abandoned one leaves nothing', async () => {
    const dir = await tempDir();
    for (const n of [0, 1, 3]) {
      const path = join(dir, `x${n}.har`);
      const w = new HarWriter(path, '9.9.9');
      for (let i = 0; i < n; i++) w.add(JSON.stringify(harEntry(call({ callId: `c${i}` }))));
      expect(existsSync(path)).toBe(false);
      w.close();
      const har = JSON.parse(readFileSync(path, 'utf8'));
      expect(har.log.creator).toEqual({ name: 'chatprobe', version: '9.9.9' });
      expect(har.log.entries.map((e: { _callId: string }) => e._callId)).toEqual(Array.from({ length: n }, (_, i) => `c${i}`));
    }
    // Entries are written in batches: a run whose entries pass the batch size many times keeps them all, in order.
    const path = join(dir, 'big.har');
    const w = new HarWriter(path, '9.9.9');
    const body = 'x'.repeat(60_000);
    for (let i = 0; i < 20; i++) w.add(JSON.stringify(harEntry(call({ callId: `b${i}`, responseText: body }))));
    w.close();
    const big = JSON.parse(readFileSync(path, 'utf8'));
    expect(big.log.entries.map((e: { _callId: string }) => e._callId)).toEqual(Array.from({ length: 20 }, (_, i) => `b${i}`));
    expect(big.log.entries.every((e: { response: { content: { text: string } } }) => e.response.content.text === body)).toBe(true);
    const gone = new HarWriter(join(dir, 'gone.har'), '1');
    gone.add(JSON.stringify(harEntry(call())));
    gone.abandon();
    expect(readdirSync(dir).filter((f) => f.startsWith('gone'))).toEqual([]);
  });

  it('is completed beside the last run’s file when the process quits before the run ends (a second Ctrl-C), with every call recorded so far', async () => {
    const dir = await tempDir();
    // The last complete run's file, which its report.json's evidence names: left as it is.
    writeFileSync(join(dir, 'exchanges.har'), 'the last run');
    const script = join(dir, 'quit.ts');
    // Two entries, the second still waiting for its batch to be written, then the exit a second Ctrl-C
    // makes; more writers open than an event has listeners before node warns.
    writeFileSync(
      script,
      [
        `import { harEntry, HarWriter } from ${JSON.stringify(join(ROOT, 'src/report/har.ts'))};`,
        `const w = new HarWriter(${JSON.stringify(join(dir, 'exchanges.har'))}, '1');`,
        `for (let i = 0; i < 12; i++) new HarWriter(${JSON.stringify(join(dir, 'other'))} + i + '.har', '1');`,
        `const base = ${JSON.stringify(call())};`,
        "for (const id of ['c1', 'c2']) w.add(JSON.stringify(harEntry({ ...base, callId: id })));",
        // A run's record finished for its report.html but not yet put in place with the reports.
        `const f = new HarWriter(${JSON.stringify(join(dir, 'finished.har'))}, '1');`,
        "f.add(JSON.stringify(harEntry({ ...base, callId: 'c9' })));",
        'f.finish();',
        'process.exit(130);',
      ].join('\n'),
    );
    const run = await runCommand(process.execPath, ['--import', 'tsx', script]);
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).not.toContain('MaxListenersExceededWarning');
    expect(readFileSync(join(dir, 'exchanges.har'), 'utf8')).toBe('the last run');
    const har = JSON.parse(readFileSync(join(dir, 'exchanges.interrupted.har'), 'utf8'));
    expect(har.log.entries.map((e: { _callId: string }) => e._callId)).toEqual(['c1', 'c2']);
    expect(JSON.parse(readFileSync(join(dir, 'other11.interrupted.har'), 'utf8')).log.entries).toEqual([]);
    expect(existsSync(join(dir, 'finished.har'))).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, 'finished.interrupted.har'), 'utf8')).log.entries.map((e: { _callId: string }) => e._callId)).toEqual(['c9']);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    // The next complete run puts its file in place, and the interrupted one it no longer goes with goes.
    const next = new HarWriter(join(dir, 'exchanges.har'), '1');
    next.add(JSON.stringify(harEntry(call())));
    next.close();
    expect(JSON.parse(readFileSync(join(dir, 'exchanges.har'), 'utf8')).log.entries).toHaveLength(1);
    expect(existsSync(join(dir, 'exchanges.interrupted.har'))).toBe(false);
  });
});
