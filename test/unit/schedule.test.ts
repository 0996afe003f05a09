import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/config/options.js';
import { CannotTestError } from '../../src/errors.js';
import type { Meter, MeterSource } from '../../src/engine/meter.js';
import { defineProbe, defineShared, type ProbeContext, type ProbeDefinition, type ProbeVerdict } from '../../src/engine/probe.js';
import { runAudit } from '../../src/engine/run.js';
import type { Report } from '../../src/results/model.js';
import { stubServer } from '../helpers/stub-server.js';

/**
 * What a probe declares decides how it is scheduled and what it reads: `schedule: 'alone'` runs it after
 * every other probe, one model at a time, with nothing else in flight; `meter` gives it the balance its
 * source finds; a shared exchange's `summary` is what the model's row keeps of it. Not the probe's area:
 * these test probes are all `chat.*`.
 */

const JSON_TYPE = { 'content-type': 'application/json' };
const answer = (res: ServerResponse, model: string) =>
  res.writeHead(200, JSON_TYPE).end(JSON.stringify({ id: 'x', object: 'chat.completion', created: 1, model, choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] }));

/** A balance that never moves, read without a request. */
const meter: Meter = { kind: 'test', route: 'GET /test/balance', unit: 'units', step: 1, read: async () => ({ used: 0, callId: 'balance' }), wait: async () => {} };
const found: MeterSource = { where: 'a test gateway', find: async () => ({ meter }) };
const none: MeterSource = { where: 'a test gateway', find: async () => ({ off: 'no balance here' }) };

const ask = (ctx: ProbeContext, text: string) => ctx.chat({ messages: [{ role: 'user', content: text }], max_tokens: 4 });
const pass = (observed: string): ProbeVerdict => ({ verdict: 'pass', observed });
const probe = (id: string, run: (ctx: ProbeContext) => Promise<ProbeVerdict>, more: Partial<ProbeDefinition> = {}) =>
  defineProbe({ id: `chat.${id}`, area: 'chat', kind: 'conformance', requirement: 'a test cell', verdicts: ['pass'], cost: { requests: 1, maxTokens: 4 }, run, ...more });

describe('a probe scheduled alone, reading a meter', () => {
  /** Each chat request as it arrived: its model, its text, and how many others were open (not yet answered). */
  const arrivals: { model: string; text: string; open: number }[] = [];
  let open = 0;
  const chat = (body: string, res: ServerResponse) => {
    const b = JSON.parse(body) as { model: string; messages: { content: string }[] };
    arrivals.push({ model: b.model, text: b.messages[0]!.content, open });
    // Answered on the next turn of the loop: requests sent together are open together.
    open++;
    setImmediate(() => {
      open--;
      answer(res, b.model);
    });
  };
  const metersSeen = new Map<string, boolean>();
  const seeMeter = (ctx: ProbeContext, id: string) => metersSeen.set(`${ctx.model} ${id}`, ctx.meter !== undefined);
  const set = defineShared<{ model: string }>({
    key: 'test.set',
    cost: { requests: 1, maxTokens: 4 },
    async make(ctx) {
      await ctx.meter!.read();
      await ask(ctx, 'ALONE set');
      return { model: ctx.model };
    },
    summary: (v) => ({ billing: { unit: `units of ${v.model}`, calls: [] } }),
  });
  const alone = { schedule: 'alone', meter: found } as const;
  // A free probe's shared exchange the alone probe reads where it was made; one no probe makes.
  const kept = defineShared<string>({ key: 'test.kept', cost: { requests: 1, maxTokens: 4 }, make: async (ctx) => `kept ${(await ask(ctx, 'KEPT')).status}` });
  const unmade = defineShared<string>({ key: 'test.unmade', cost: { requests: 1, maxTokens: 4 }, make: async (ctx) => `unmade ${(await ask(ctx, 'UNMADE')).status}` });
  const readsSeen = new Map<string, [string | undefined, string | undefined]>();
  const probes = [
    ...['free_1', 'free_2', 'free_3'].map((id) =>
      probe(id, async (ctx) => {
        seeMeter(ctx, id);
        if (id === 'free_1') await ctx.shared(kept);
        return pass(`got ${(await ask(ctx, `FREE ${id}`)).status}`);
      }),
    ),
    probe(
      'alone_set',
      async (ctx) => {
        seeMeter(ctx, 'alone_set');
        return pass(`read the set of ${(await ctx.shared(set)).model}`);
      },
      { ...alone, cost: { requests: 0, maxTokens: 0, shared: [set] } },
    ),
    probe(
      'alone_own',
      async (ctx) => {
        seeMeter(ctx, 'alone_own');
        readsSeen.set(ctx.model, [await ctx.made?.(kept), await ctx.made?.(unmade)]);
        return pass(`got ${(await ask(ctx, 'ALONE own')).status}`);
      },
      { ...alone, reads: [kept, unmade] },
    ),
  ];
  let server: { url: string; close(): Promise<void> } | undefined;
  let report: Report;

  beforeAll(async () => {
    // Answered at once, but --concurrency 4 lets the free probes of both models run side by side.
    server = await stubServer(['m1', 'm2'], (body, res) => chat(body, res));
    const options = resolveOptions({ baseUrl: server.url, concurrency: 4 }, {});
    options.apiKey = 'k';
    ({ report } = await runAudit(options, probes));
  });
  afterAll(() => server?.close());

  it('runs after every other probe of the run, one model at a time in the plan\'s order, with nothing else open', () => {
    expect(report.results.every((r) => r.verdict === 'pass')).toBe(true);
    const aloneAt = arrivals.flatMap((a, i) => (a.text.startsWith('ALONE') ? [i] : []));
    const freeAt = arrivals.flatMap((a, i) => (a.text.startsWith('FREE') ? [i] : []));
    expect(freeAt).toHaveLength(6);
    expect(Math.min(...aloneAt)).toBeGreaterThan(Math.max(...freeAt));
    expect(aloneAt.map((i) => `${arrivals[i]!.model} ${arrivals[i]!.text}`)).toEqual(['m1 ALONE set', 'm1 ALONE own', 'm2 ALONE set', 'm2 ALONE own']);
    expect(aloneAt.map((i) => arrivals[i]!.open)).toEqual([0, 0, 0, 0]);
  });

  it('gives the meter to the probes that declare it, and to no other', () => {
    for (const m of ['m1', 'm2']) {
      expect(metersSeen.get(`${m} alone_set`), m).toBe(true);
      expect(metersSeen.get(`${m} alone_own`), m).toBe(true);
      expect(metersSeen.get(`${m} free_1`), m).toBe(false);
    }
    expect(report.billing).toEqual({ kind: 'test', route: 'GET /test/balance', unit: 'units' });
    // The meter's reads are evidence of the cell whose shared exchange read it.
    expect(report.results.find((r) => r.model === 'm1' && r.probe === 'chat.alone_set')!.evidence).toContain('balance');
  });

  it('keeps for it the shared exchanges it reads where another probe made them, and sends none that no probe made', () => {
    expect(readsSeen.get('m1')).toEqual(['kept 200', undefined]);
    expect(readsSeen.get('m2')).toEqual(['kept 200', undefined]);
    expect(arrivals.filter((a) => a.text === 'UNMADE')).toEqual([]);
    // The calls of what it read are its evidence.
    const own = report.results.find((r) => r.model === 'm1' && r.probe === 'chat.alone_own')!;
    const keptCall = report.results.find((r) => r.model === 'm1' && r.probe === 'chat.free_1')!.evidence[0];
    expect(own.evidence).toContain(keptCall);
  });

  it('keeps in each model\'s row what the shared exchange\'s summary says of it', () => {
    expect(report.models.map((m) => [m.id, m.billing])).toEqual([
      ['m1', { unit: 'units of m1', calls: [] }],
      ['m2', { unit: 'units of m2', calls: [] }],
    ]);
  });
});

describe('a probe whose meter source finds no balance', () => {
  let server: { url: string; close(): Promise<void> } | undefined;
  beforeAll(async () => {
    server = await stubServer(['m1'], (body, res) => answer(res, 'm1'));
  });
  afterAll(() => server?.close());
  const metered = probe('metered', async () => pass('read the balance'), { schedule: 'alone', meter: none });
  const plain = probe('plain', async (ctx) => pass(`got ${(await ask(ctx, 'hello')).status}`));
  const options = () => Object.assign(resolveOptions({ baseUrl: server!.url }, {}), { apiKey: 'k' });

  it('leaves the plan, and the report says why', async () => {
    const { report } = await runAudit(options(), [plain, metered]);
    expect(report.probes.map((p) => p.id)).toEqual(['chat.plain']);
    expect(report.billing).toEqual({ off: 'no balance here' });
    expect(report.models[0]!.billing).toBeUndefined();
  });

  it('alone in the selection, stops the run with where a balance can be read', async () => {
    const run = runAudit(options(), [metered]);
    await expect(run).rejects.toBeInstanceOf(CannotTestError);
    await expect(run).rejects.toMatchObject({ message: 'the billing probes cannot run: no balance here', advice: 'quota deduction is audited only through a test gateway' });
  });

  it('is not looked for when no selected probe reads it', async () => {
    const { report } = await runAudit(options(), [plain]);
    expect(report.billing).toEqual({ off: 'no billing probe selected' });
  });
});

describe('a summary that reads another shared exchange of its row', () => {
  let server: { url: string; close(): Promise<void> } | undefined;
  beforeAll(async () => {
    server = await stubServer(['m1', 'm2'], (body, res) => answer(res, (JSON.parse(body) as { model: string }).model));
  });
  afterAll(() => server?.close());
  // `first`'s summary says what it read of `second` and of `unmade` (which no probe makes). On m1 `second`
  // waits for `first`, on m2 `first` waits for `second`: they arrive in both orders.
  const unmade = defineShared<string>({ key: 'test.unmade', cost: { requests: 1, maxTokens: 4 }, make: async (ctx) => `unmade ${(await ask(ctx, 'UNMADE')).status}` });
  const first: ReturnType<typeof defineShared<string>> = defineShared<string>({
    key: 'test.first',
    cost: { requests: 1, maxTokens: 4 },
    async make(ctx) {
      if (ctx.model === 'm2') await ctx.shared(second);
      return `first ${(await ask(ctx, 'FIRST')).status}`;
    },
    summary: (v, made) => ({ billing: { unit: `${v}; read ${made(second)} and ${made(unmade)}`, calls: [] } }),
  });
  const second: ReturnType<typeof defineShared<string>> = defineShared<string>({
    key: 'test.second',
    cost: { requests: 1, maxTokens: 4 },
    async make(ctx) {
      if (ctx.model === 'm1') await ctx.shared(first);
      return `second ${(await ask(ctx, 'SECOND')).status}`;
    },
  });
  const probes = [probe('reads_first', async (ctx) => pass(await ctx.shared(first))), probe('reads_second', async (ctx) => pass(await ctx.shared(second)))];

  it('is taken once the model\'s probes are done: it reads the other whichever arrived first, and nothing of one not made', async () => {
    const { report } = await runAudit(Object.assign(resolveOptions({ baseUrl: server!.url, concurrency: 2 }, {}), { apiKey: 'k' }), probes);
    expect(report.models.map((m) => [m.id, m.billing?.unit])).toEqual([
      ['m1', 'first 200; read second 200 and undefined'],
      ['m2', 'first 200; read second 200 and undefined'],
    ]);
  });
});

describe('defineProbe', () => {
  it('refuses an endpoint probe scheduled alone: alone is one model at a time', () => {
    expect(() => probe('endpoint_alone', async () => pass(''), { scope: 'target', schedule: 'alone' })).toThrow(/cannot be scheduled alone/);
  });
});
