import pLimit from 'p-limit';
import { HttpClient, type HttpRequest, type HttpResponse } from '../http/client.js';
import { createRedactor, type Redactor } from '../http/redact.js';
import type { ResolvedOptions } from '../config/options.js';
import { SCHEMA_VERSION, type CallRecord, type ModelEntry, type ProbeResult, type Report } from '../report/model.js';
import { outcomeOf } from '../report/outcome.js';
import { ADVICE } from './diagnose.js';
import { readModelList } from './discover.js';
import { toExchange, toStreamExchange, type Exchange, type StreamExchange } from './exchange.js';
import { makePlan, type PlannedModel } from './plan.js';
import type { ChatBody, ProbeContext, ProbeDefinition, ProbeVerdict } from './probe.js';
import { describeFailure } from './verdicts.js';
import { VERSION } from '../version.js';

export interface AuditHooks {
  /** Called after each result, for progress lines. */
  onResult?(result: ProbeResult, done: number, total: number): void;
  onPlan?(models: readonly PlannedModel[], probes: readonly ProbeDefinition[]): void;
}

export interface AuditRun {
  report: Report;
  trace: CallRecord[];
  redact: Redactor;
}

/** Causes that stop a model row after its smoke call: nothing further is spent on that model. */
/** The smoke call's prompt: one word, so the call is cheap without a token limit. */
export const SMOKE_PROMPT = 'Reply with the single word OK.';

const ROW_STOPPERS = new Set(['auth', 'model_not_in_group', 'quota', 'rate_limited', 'upstream', 'timeout', 'network']);

const KEPT_HEADERS = /^(x-ratelimit-|retry-after$|cf-ray$|x-request-id$|x-oneapi-request-id$|apim-request-id$|x-ds-trace-id$|openai-processing-ms$)/;

export async function runAudit(
  options: ResolvedOptions,
  probes: readonly ProbeDefinition[],
  hooks: AuditHooks = {},
  signal?: AbortSignal,
): Promise<AuditRun> {
  const startedAt = new Date();
  const t0 = performance.now();
  const redact = createRedactor([options.apiKey, ...options.secrets]);
  const client = new HttpClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    headers: options.headers,
    timeoutMs: options.timeoutMs,
    redact,
    ...(signal ? { signal } : {}),
  });
  const trace: CallRecord[] = [];
  let seq = 0;

  async function call(req: HttpRequest, probe: string, model: string | undefined, stream: boolean): Promise<StreamExchange | Exchange> {
    const id = `c${++seq}`;
    const at = new Date().toISOString();
    const res: HttpResponse = signal?.aborted
      ? { status: undefined, headers: {}, chunks: [], bytes: 0, truncated: false, headersMs: undefined, durationMs: 0, transport: { code: 'network', message: 'interrupted' } }
      : await client.send(req);
    const x = stream ? toStreamExchange(id, req, res, redact) : toExchange(id, req, res, redact);
    const record: CallRecord = { id, at, probe, method: req.method, path: req.path, durationMs: x.durationMs, bytes: x.bytes };
    if (model !== undefined) record.model = model;
    if (x.status !== undefined) record.status = x.status;
    const ttft = (x as Partial<StreamExchange>).ttftMs;
    if (ttft !== undefined) record.ttftMs = ttft;
    if (x.requestId) record.requestId = x.requestId;
    if (x.usage) record.usage = x.usage;
    if (x.truncated) record.truncated = true;
    if (x.cause) record.cause = x.cause;
    if (!x.ok) record.error = describeFailure(x).slice(0, 500);
    const kept = Object.entries(x.headers).filter(([k]) => KEPT_HEADERS.test(k));
    if (kept.length > 0) record.headers = Object.fromEntries(kept);
    trace.push(record);
    return x;
  }

  try {
    const listing = await call({ method: 'GET', path: '/models' }, 'discovery', undefined, false);
    const listed = readModelList(listing, options.baseUrl);
    const plan = makePlan(listed, probes, options);
    hooks.onPlan?.(plan.models, plan.probes);

    const limit = pLimit(options.concurrency);
    const total = plan.models.length * plan.probes.length;
    const results: ProbeResult[] = [];
    const entries = new Map<string, ModelEntry>();
    const streamFacts = new Map<string, StreamExchange[]>();
    let done = 0;
    const emit = (r: ProbeResult) => {
      results.push(r);
      hooks.onResult?.(r, ++done, total);
    };

    const runModel = async (m: PlannedModel) => {
      const entry: ModelEntry = { id: m.id, listed: m.listed };
      if (m.entry?.ownedBy) entry.ownedBy = m.entry.ownedBy;
      if (m.entry?.declared) entry.declared = m.entry.declared;
      entries.set(m.id, entry);
      if (!m.call) {
        entry.cause = 'model_not_listed';
        entry.advice = ADVICE.model_not_listed;
        for (const p of plan.probes) {
          emit(result(m.id, p, { verdict: 'error', cause: 'model_not_listed', observed: 'not run: the model is not listed by GET /models' }, [], 0));
        }
        return;
      }
      // The smoke call: the plain request with no optional parameter. It decides whether the row is probed,
      // and it is the control every "rejected" verdict is compared with. No max_tokens, because reasoning
      // models reject it; the prompt keeps the answer to one word.
      const smoke = (await limit(() =>
        call({ method: 'POST', path: '/chat/completions', body: { model: m.id, messages: [{ role: 'user', content: SMOKE_PROMPT }] } }, 'smoke', m.id, false),
      )) as Exchange;
      entry.smoke = { durationMs: smoke.durationMs, evidence: smoke.callId };
      if (smoke.status !== undefined) entry.smoke.status = smoke.status;
      if (!smoke.ok) entry.smoke.message = describeFailure(smoke).slice(0, 300);
      if (smoke.cause && ROW_STOPPERS.has(smoke.cause)) {
        entry.cause = smoke.cause;
        entry.advice = ADVICE[smoke.cause];
        for (const p of plan.probes) {
          const v: ProbeVerdict = { verdict: 'error', cause: smoke.cause, observed: `not run: the smoke call failed with ${describeFailure(smoke)}` };
          if (smoke.status !== undefined) v.status = smoke.status;
          emit(result(m.id, p, v, [smoke.callId], 0));
        }
        return;
      }
      const streams: StreamExchange[] = [];
      streamFacts.set(m.id, streams);
      await Promise.all(
        plan.probes.map((p) =>
          limit(async () => {
            if (signal?.aborted) return;
            const evidence: string[] = [];
            const track = <T extends Exchange>(x: T): T => {
              evidence.push(x.callId);
              return x;
            };
            const ctx: ProbeContext = {
              model: m.id,
              chat: async (body: ChatBody) =>
                track((await call({ method: 'POST', path: '/chat/completions', body: { model: m.id, ...body } }, p.id, m.id, false)) as Exchange),
              stream: async (body: ChatBody) => {
                const x = track(
                  (await call({ method: 'POST', path: '/chat/completions', body: { model: m.id, ...body, stream: true } }, p.id, m.id, true)) as StreamExchange,
                );
                if (x.assembled) streams.push(x);
                return x;
              },
              send: async (req: HttpRequest) => track((await call(req, p.id, m.id, false)) as Exchange),
              control: () => track(smoke),
            };
            const t = performance.now();
            let verdict: ProbeVerdict;
            try {
              verdict = await p.run(ctx);
            } catch (err) {
              verdict = { verdict: 'error', cause: 'harness', observed: redact(`the probe threw: ${(err as Error)?.stack ?? String(err)}`).slice(0, 2000) };
            }
            if (signal?.aborted && verdict.cause === 'network') return;
            emit(result(m.id, p, verdict, [...new Set(evidence)], performance.now() - t));
          }),
        ),
      );
    };

    await Promise.all(plan.models.map(runModel));

    const models = plan.models.map((m) => {
      const entry = entries.get(m.id)!;
      const metrics = streamMetrics(streamFacts.get(m.id) ?? []);
      if (metrics) entry.metrics = metrics;
      return entry;
    });
    const modelOrder = new Map(plan.models.map((m, i) => [m.id, i]));
    const probeOrder = new Map(plan.probes.map((p, i) => [p.id, i]));
    results.sort((a, b) => modelOrder.get(a.model)! - modelOrder.get(b.model)! || probeOrder.get(a.probe)! - probeOrder.get(b.probe)!);

    const finishedAt = new Date();
    const report: Report = {
      schemaVersion: SCHEMA_VERSION,
      tool: { name: 'chatprobe', version: VERSION },
      target: { baseUrl: redact(options.baseUrl), headerNames: Object.keys(options.headers) },
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationMs: Math.round(performance.now() - t0),
      interrupted: signal?.aborted ?? false,
      options: { concurrency: options.concurrency, timeoutMs: options.timeoutMs, modelFilter: options.models, probeFilter: options.probes },
      models,
      probes: plan.probes.map((p) => ({ id: p.id, area: p.area, kind: p.kind, requirement: p.requirement, cost: { ...p.cost } })),
      results,
      calls: trace.length,
    };
    return { report, trace, redact };
  } finally {
    await client.close();
  }
}

function result(model: string, p: ProbeDefinition, v: ProbeVerdict, evidence: string[], ms: number): ProbeResult {
  const r: ProbeResult = {
    model,
    probe: p.id,
    kind: p.kind,
    verdict: v.verdict,
    outcome: outcomeOf(v.verdict, v.cause),
    observed: v.observed,
    evidence,
    findings: v.findings ?? [],
    durationMs: Math.round(ms),
  };
  if (v.cause) r.cause = v.cause;
  if (v.status !== undefined) r.status = v.status;
  if (v.message !== undefined) r.message = v.message.slice(0, 500);
  return r;
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const m = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return Math.round(m * 10) / 10;
}

function streamMetrics(streams: StreamExchange[]): ModelEntry['metrics'] {
  if (streams.length === 0) return undefined;
  const metrics: NonNullable<ModelEntry['metrics']> = { streams: streams.length };
  const ttft = median(streams.flatMap((s) => (s.ttftMs === undefined ? [] : [s.ttftMs])));
  const gap = median(streams.flatMap((s) => s.gapsMs));
  const cps = median(
    streams.flatMap((s) => {
      const n = s.assembled?.chunks.length ?? 0;
      return s.durationMs > 0 && n > 0 ? [(n * 1000) / s.durationMs] : [];
    }),
  );
  if (ttft !== undefined) metrics.ttftMsMedian = ttft;
  if (gap !== undefined) metrics.gapMsMedian = gap;
  if (cps !== undefined) metrics.chunksPerSecondMedian = cps;
  return metrics;
}
