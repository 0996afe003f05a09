import { randomBytes } from 'node:crypto';
import pLimit from 'p-limit';
import { request } from 'undici';
import { CallLog } from '../engine/calls.js';
import { CannotTestError } from '../engine/errors.js';
import type { Exchange } from '../engine/exchange.js';
import { HttpClient } from '../http/client.js';
import type { RecordedCall } from '../report/har.js';
import { type CallRecord, type ProbeInfo, type ProbeResult, type Report, SCHEMA_VERSION } from '../report/model.js';
import { outcomeOf } from '../report/outcome.js';
import { VERSION } from '../version.js';
import { answerOf, AREA, CASES, LIMIT, markerOf, type PassCase, requestOf, type UpstreamRecord } from './cases.js';

export interface PassthroughOptions {
  /** The gateway's base URL (ending in /v1). */
  baseUrl: string;
  apiKey: string | undefined;
  /** Headers every request to the gateway carries (a Portkey route: x-portkey-provider, x-portkey-custom-host). */
  headers: Record<string, string>;
  /** Where chatprobe upstream listens, as chatprobe reaches it (its records are read there). */
  upstream: string;
  /** The model names the gateway routes to the upstream's channel. */
  models: string[];
  /** Case ids to run (default: all). */
  cases?: string[];
  timeoutMs: number;
  concurrency: number;
}

export const probeIdOf = (c: PassCase) => `${AREA}.${c.id}`;

export function passthroughProbes(): ProbeInfo[] {
  return CASES.map((c) => ({ id: probeIdOf(c), area: AREA, kind: 'conformance', scope: 'model', requirement: c.requirement, cost: { requests: 1, maxTokens: LIMIT } }));
}

/** The upstream's records of one case of a run. */
async function recordsOf(upstream: string, run: string, caseId: string, timeoutMs: number): Promise<UpstreamRecord[]> {
  const res = await request(`${upstream.replace(/\/+$/, '')}/_chatprobe/records?run=${run}&case=${encodeURIComponent(caseId)}`, { method: 'GET', headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new CannotTestError(`chatprobe upstream at ${upstream} answered HTTP ${res.statusCode} for its records`, 'pass --upstream the address `chatprobe upstream` printed');
  return (JSON.parse(text) as { records: UpstreamRecord[] }).records;
}

/** Checks that chatprobe upstream answers at `upstream` before anything is sent through the gateway. */
export async function checkUpstream(upstream: string, timeoutMs: number): Promise<void> {
  try {
    await recordsOf(upstream, '0000000000', 'check', Math.min(timeoutMs, 10_000));
  } catch (e) {
    if (e instanceof CannotTestError) throw e;
    throw new CannotTestError(`cannot read chatprobe upstream's records at ${upstream}: ${(e as Error).message}`, 'start `chatprobe upstream --port N` and pass --upstream http://HOST:N');
  }
}

/**
 * Sends each case through the gateway, once per model, reads what the upstream recorded under its marker,
 * and judges it. The results are a report of their own: the `passthrough` area, one row per model.
 */
export async function runPassthrough(options: PassthroughOptions, hooks: { onCall?(c: RecordedCall): void; onResult?(r: ProbeResult): void } = {}, signal?: AbortSignal): Promise<{ report: Report; trace: CallRecord[] }> {
  const cases = options.cases ? CASES.filter((c) => options.cases!.includes(c.id)) : CASES;
  if (cases.length === 0) throw new CannotTestError(`no passthrough case matches ${options.cases!.join(', ')}`, 'see `chatprobe passthrough --help` for the case ids');
  await checkUpstream(options.upstream, options.timeoutMs);
  const startedAt = new Date();
  const t0 = performance.now();
  const run = randomBytes(5).toString('hex');
  const client = new HttpClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, headers: options.headers, timeoutMs: options.timeoutMs, connections: options.concurrency, ...(signal ? { signal } : {}) });
  const log = new CallLog(client, signal, { retries: 0, rpm: undefined, concurrency: options.concurrency }, 'c');
  log.onCall = hooks.onCall;
  const limit = pLimit(options.concurrency);
  const results: ProbeResult[] = [];
  try {
    await Promise.all(
      options.models.flatMap((model, m) =>
        cases.map((c) =>
          limit(async () => {
            if (signal?.aborted) return;
            const probe = probeIdOf(c);
            // A case id alone is not unique across models: the marker carries the model's place too.
            const caseKey = options.models.length > 1 ? `${c.id}.m${m}` : c.id;
            const marker = markerOf(run, caseKey);
            const { body, headers } = requestOf(c, model, marker);
            const req = { method: 'POST' as const, path: '/chat/completions', body, headers };
            const t = performance.now();
            const x: Exchange = c.stream ? await log.stream(req, probe, model) : await log.send(req, probe, model);
            const records = await recordsOf(options.upstream, run, caseKey, options.timeoutMs);
            const v = c.judge({ sent: body, sentHeaders: headers, records, x, scripted: answerOf(c.id, model, c.stream === true) });
            const { outcome } = outcomeOf(v.verdict, v.cause);
            const r: ProbeResult = {
              model,
              probe,
              kind: 'conformance',
              verdict: v.verdict,
              outcome,
              observed: v.observed,
              evidence: x.attempts,
              findings: v.findings ?? [],
              durationMs: Math.round(performance.now() - t),
              ...(v.cause ? { cause: v.cause } : {}),
              ...(v.status !== undefined ? { status: v.status } : {}),
              ...(v.message ? { message: v.message } : {}),
            };
            results.push(r);
            hooks.onResult?.(r);
          }),
        ),
      ),
    );
  } finally {
    await client.close();
  }
  const order = new Map(cases.map((c, i) => [probeIdOf(c), i]));
  const modelOrder = new Map(options.models.map((id, i) => [id, i]));
  results.sort((a, b) => modelOrder.get(a.model)! - modelOrder.get(b.model)! || order.get(a.probe)! - order.get(b.probe)!);
  const report: Report = {
    schemaVersion: SCHEMA_VERSION,
    tool: { name: 'chatprobe', version: VERSION },
    target: { baseUrl: options.baseUrl, headerNames: Object.keys(options.headers) },
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    durationMs: Math.round(performance.now() - t0),
    interrupted: signal?.aborted ?? false,
    options: { concurrency: options.concurrency, timeoutMs: options.timeoutMs, modelFilter: options.models, probeFilter: cases.map(probeIdOf), strict: false, requireAuth: false, samples: 0 },
    models: options.models.map((id) => ({ id, listed: true })),
    probes: passthroughProbes().filter((p) => order.has(p.id)),
    results,
    calls: log.trace.length,
  };
  return { report, trace: log.trace };
}
