import type { ServerResponse } from 'node:http';
import { stubServer } from '../helpers/stub-server.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/config/options.js';
import { defineProbe, type ProbeContext, type ProbeVerdict } from '../../src/engine/probe.js';
import { runAudit } from '../../src/engine/run.js';
import type { ProbeResult } from '../../src/results/model.js';

const JSON_TYPE = { 'content-type': 'application/json' };
const answer = (res: ServerResponse) =>
  res.writeHead(200, JSON_TYPE).end(JSON.stringify({ id: 'x', object: 'chat.completion', created: 1, model: 'm1', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] }));
const rateLimited = (res: ServerResponse) =>
  res.writeHead(429, { ...JSON_TYPE, 'retry-after': '20' }).end(JSON.stringify({ error: { message: 'rate limit exceeded', type: 'rate_limit_error' } }));

/** A server of one model, m1, on 127.0.0.1: `chat` answers each chat request (given its body). */
const oneModel = (chat: (body: string, res: ServerResponse) => void) => stubServer(['m1'], chat);

/**
 * Ctrl-C (or --max-duration) stops a run while cells are still going. A cell its stop cut short is "not
 * run"; one that ended after the stop from calls that had all answered keeps its verdict.
 */
describe('a cell that ends after the run was stopped', () => {
  let held = () => {};
  const holding = new Promise<void>((r) => (held = r));
  const chat = (body: string, res: ServerResponse) => {
    if (body.includes('HOLD')) held(); // never answered: the stop cuts it
    else if (body.includes('HEADERS')) res.writeHead(200, JSON_TYPE).flushHeaders(); // then nothing: the stop cuts it
    else if (body.includes('LIMIT')) rateLimited(res);
    else answer(res);
  };
  let server: { url: string; close(): Promise<void> } | undefined;
  const controller = new AbortController();
  const stopped = new Promise<void>((r) => controller.signal.addEventListener('abort', () => r()));
  let answered = () => {};
  const answeredBefore = new Promise<void>((r) => (answered = r));
  let limited = () => {};
  const waitingToRetry = new Promise<void>((r) => (limited = r));
  const probe = (id: string, run: (ctx: ProbeContext) => Promise<ProbeVerdict>) =>
    defineProbe({ id: `chat.${id}`, area: 'chat', kind: 'conformance', requirement: 'a test cell', verdicts: ['pass'], cost: { requests: 1, maxTokens: 4 }, run });
  const ask = (ctx: ProbeContext, text: string) => ctx.chat({ messages: [{ role: 'user', content: text }], max_tokens: 4 });
  const probes = [
    probe('smoke_only', async (ctx) => {
      const x = ctx.control();
      await stopped;
      return { verdict: 'pass', observed: `the smoke call answered ${x.status}` };
    }),
    probe('cut', async (ctx) => {
      const x = await ask(ctx, 'HOLD');
      return { verdict: 'pass', observed: `got ${x.status}` };
    }),
    probe('sent_after', async (ctx) => {
      await stopped;
      const x = await ask(ctx, 'hello');
      return { verdict: 'pass', observed: `got ${x.status}` };
    }),
    probe('answered_before', async (ctx) => {
      const x = await ask(ctx, 'hello');
      answered();
      await stopped;
      return { verdict: 'pass', observed: `got ${x.status}` };
    }),
    probe('threw', async () => {
      await stopped;
      throw new Error('a probe failing once the run stopped');
    }),
    // Rate limited, and waiting to retry when the stop comes: the 429 is no last attempt.
    probe('retry_cut', async (ctx) => {
      const x = await ask(ctx, 'LIMIT');
      return { verdict: 'pass', observed: `got ${x.status}` };
    }),
    // Two calls of the model cut by the stop after their headers: no stall of the model's.
    probe('headers_cut_1', async (ctx) => ({ verdict: 'pass', observed: `got ${(await ask(ctx, 'HEADERS')).status}` })),
    probe('headers_cut_2', async (ctx) => ({ verdict: 'pass', observed: `got ${(await ask(ctx, 'HEADERS')).status}` })),
  ];
  let stalled: unknown;
  const errors: string[] = [];
  let cells = new Map<string, ProbeResult>();

  beforeAll(async () => {
    server = await oneModel(chat);
    const options = resolveOptions({ baseUrl: server.url, concurrency: 10, retries: 1 }, {});
    options.apiKey = 'k';
    // Stopped once one call is held, another has answered (its cell still going), and a rate-limited one
    // is waiting to retry.
    void Promise.all([holding, answeredBefore, waitingToRetry]).then(() => controller.abort());
    const onCall = (c: { status: number | undefined; error: string | undefined }) => {
      if (c.status === 429) limited();
      if (c.error) errors.push(c.error);
    };
    const { report } = await runAudit(options, probes, { onCall }, controller.signal);
    expect(report.interrupted).toBe(true);
    cells = new Map(report.results.map((r) => [r.probe, r]));
    stalled = report.models[0]!.stalled;
  });
  afterAll(() => server?.close());

  it('keeps its verdict when its evidence had all answered: the smoke call, or a call of its own', () => {
    for (const id of ['chat.smoke_only', 'chat.answered_before']) {
      const c = cells.get(id)!;
      expect(c.verdict, id).toBe('pass');
      expect(c.notRun, id).toBeUndefined();
      expect(c.observed, id).toMatch(/200/);
      expect(c.evidence.length, id).toBe(1);
    }
  });

  it('is not run when the stop cut one of its calls, a call it sent after the stop, a retry it waited for, or it failed', () => {
    for (const id of ['chat.cut', 'chat.sent_after', 'chat.threw', 'chat.retry_cut', 'chat.headers_cut_1', 'chat.headers_cut_2']) {
      const c = cells.get(id)!;
      expect(c.verdict, id).toBe('error');
      expect(c.cause, id).toBe('interrupted');
      expect(c.notRun, id).toBe(true);
      expect(c.outcome, id).toBe('skipped');
    }
  });

  it('says the calls it cut were cut by the stop, not timed out, and they stall no model', () => {
    expect(stalled).toBeUndefined();
    expect(errors.filter((e) => /^cut short: the run was interrupted/.test(e)).length).toBeGreaterThanOrEqual(3);
    expect(errors.some((e) => /^not sent: the run was interrupted/.test(e))).toBe(true);
    expect(errors.filter((e) => /timeout/.test(e))).toEqual([]);
  });
});

describe('a smoke call whose retry the stop cut short', () => {
  it('says nothing of the model: its row is not run because of the stop, not rate limited', async () => {
    const server = await oneModel((_body, res) => rateLimited(res));
    try {
      const options = resolveOptions({ baseUrl: server.url, retries: 2 }, {});
      options.apiKey = 'k';
      const controller = new AbortController();
      const probe = defineProbe({ id: 'chat.any', area: 'chat', kind: 'conformance', requirement: 'a test cell', verdicts: ['pass'], cost: { requests: 0, maxTokens: 0 }, run: async () => ({ verdict: 'pass', observed: '' }) });
      // Stopped once the smoke call's 429 is in and its retry is waited for.
      const { report } = await runAudit(options, [probe], { onCall: (c) => void (c.status === 429 && controller.abort()) }, controller.signal);
      const row = report.models.find((m) => m.id === 'm1')!;
      expect(row.cause).toBe('interrupted');
      expect(row.notRun).toMatchObject({ cause: 'interrupted', outcome: 'skipped' });
    } finally {
      await server.close();
    }
  });
});

describe('a cell begun once the run was stopped', () => {
  it('is judged from what is in hand (the smoke call), sends nothing, and is not run if it needs a call', async () => {
    const server = await oneModel((_body, res) => answer(res));
    try {
      // --concurrency 1: four probes at a time. Four with the longest chains begin first and hold their
      // workers until the stop; the other two begin after it.
      const options = resolveOptions({ baseUrl: server.url, concurrency: 1, retries: 0 }, {});
      options.apiKey = 'k';
      const controller = new AbortController();
      const stopped = new Promise<void>((r) => controller.signal.addEventListener('abort', () => r()));
      let begun = 0;
      const define = (id: string, requests: number, run: (ctx: ProbeContext) => Promise<ProbeVerdict>) =>
        defineProbe({ id: `chat.${id}`, area: 'chat', kind: 'conformance', requirement: 'a test cell', verdicts: ['pass'], cost: { requests, maxTokens: 4 }, run });
      const holders = [1, 2, 3, 4].map((i) =>
        define(`holder_${i}`, 5, async () => {
          if (++begun === 4) controller.abort();
          await stopped;
          return { verdict: 'pass', observed: 'held' };
        }),
      );
      const late = [
        define('late_smoke', 1, async (ctx) => ({ verdict: 'pass', observed: `the smoke call answered ${ctx.control().status}` })),
        define('late_call', 1, async (ctx) => ({ verdict: 'pass', observed: `got ${(await ctx.chat({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 })).status}` })),
      ];
      const recorded: string[] = [];
      const { report, trace } = await runAudit(options, [...holders, ...late], { onCall: (c) => void recorded.push(c.callId) }, controller.signal);
      const cell = (id: string) => report.results.find((r) => r.probe === `chat.${id}`)!;
      expect(cell('late_smoke')).toMatchObject({ verdict: 'pass', observed: 'the smoke call answered 200' });
      expect(cell('late_smoke').evidence).toHaveLength(1);
      expect(cell('late_call')).toMatchObject({ verdict: 'error', cause: 'interrupted', notRun: true, evidence: [] });
      // Nothing was sent, nor recorded, for it: the run's calls are GET /models, the balance routes and the smoke call.
      expect(trace.filter((t) => t.path === '/chat/completions')).toHaveLength(1);
      expect(recorded).toHaveLength(trace.length);
    } finally {
      await server.close();
    }
  });
});
