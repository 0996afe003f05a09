import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { CallLog } from '../engine/calls.js';
import { probeInfo, type ProbeShape, result } from '../engine/cell-result.js';
import { CannotTestError } from '../errors.js';
import { arrivalWindow, LoopLag } from '../engine/lag.js';
import type { ProbeVerdict } from '../engine/probe.js';
import { inconclusive } from '../engine/verdicts.js';
import type { Exchange, StreamExchange } from '../engine/exchange.js';
import { HttpClient } from '../http/client.js';
import type { RecordedCall } from '../engine/recorded-call.js';
import { startRun } from '../results/head.js';
import type { CallRecord, ProbeInfo, ProbeResult, Report } from '../results/model.js';
import { answerOf, AREA, CASES, LIMIT, markerOf, type PassCase, requestOf, type UpstreamRecord } from './cases.js';
import { tooDeep } from '../wire/json-depth.js';
import { isObject } from '../wire/json.js';
import { Slots } from '../engine/slots.js';

export interface PassthroughOptions {
  /** The gateway's base URL (ending in /v1). */
  baseUrl: string;
  apiKey: string | undefined;
  /** The environment variable the key was read from (shown in its place in the record). */
  apiKeyEnv?: string;
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
  /** Requests a minute at most through the gateway (--rpm), as an audit paces its own. */
  rpm?: number | undefined;
}

export const probeIdOf = (c: PassCase) => `${AREA}.${c.id}`;

/** A case as the report lists its probe: one request a model, at the cases' output limit. */
export const caseProbe = (c: PassCase): ProbeShape => ({ id: probeIdOf(c), area: AREA, kind: 'conformance', scope: 'model', requirement: c.requirement, cost: { requests: 1, maxTokens: LIMIT } });

export function passthroughProbes(): ProbeInfo[] {
  return CASES.map((c) => probeInfo(caseProbe(c)));
}

/**
 * A case's verdict made into its cell, as the audit makes its own (engine/cell-result.ts): texts and
 * findings bounded, the outcome without a baseline.
 */
export function caseResult(model: string, c: PassCase, v: ProbeVerdict, evidence: string[], ms: number): ProbeResult {
  return result(model, caseProbe(c), v, evidence, ms);
}

/** The upstream's records of one case of a run. */
async function recordsOf(upstream: string, run: string, caseId: string, timeoutMs: number): Promise<UpstreamRecord[]> {
  const res = await request(`${upstream.replace(/\/+$/, '')}/_chatprobe/records?run=${run}&case=${encodeURIComponent(caseId)}`, { method: 'GET', headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const text = await res.body.text();
  if (res.statusCode !== 200) {
    // The channel base URL it prints ends in /v1; its records are served from the address itself.
    const hint = /\/v1\/*$/.test(upstream) ? `pass --upstream without /v1 (${upstream.replace(/\/v1\/*$/, '')}): the records are served at the upstream's address, the channel base URL is for the gateway` : 'pass --upstream the address `chatprobe upstream` printed';
    throw new CannotTestError(`chatprobe upstream at ${upstream} answered HTTP ${res.statusCode} for its records`, hint);
  }
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
/** The cases `ids` names (with or without the `passthrough.` prefix); an unknown id is refused with the list. */
export function selectCases(ids: readonly string[] | undefined): PassCase[] {
  if (!ids) return [...CASES];
  const wanted = ids.map((id) => id.replace(/^passthrough\./, ''));
  const unknown = wanted.filter((id) => !CASES.some((c) => c.id === id));
  if (unknown.length > 0) throw new CannotTestError(`unknown passthrough case(s): ${unknown.join(', ')}`, `the cases: ${CASES.map((c) => c.id).join(', ')}`);
  return CASES.filter((c) => wanted.includes(c.id));
}

export async function runPassthrough(options: PassthroughOptions, hooks: { onCall?(c: RecordedCall): void; onResult?(r: ProbeResult): void } = {}, signal?: AbortSignal): Promise<{ report: Report; trace: CallRecord[] }> {
  const cases = selectCases(options.cases);
  const models = [...new Set(options.models)];
  await checkUpstream(options.upstream, options.timeoutMs);
  const finish = startRun();
  // A run id per model: the marker then names the case alone, which the upstream answers as scripted.
  const runs = models.map(() => randomBytes(5).toString('hex'));
  const client = new HttpClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, ...(options.apiKeyEnv ? { keyVar: options.apiKeyEnv } : {}), headers: options.headers, timeoutMs: options.timeoutMs, connections: options.concurrency, ...(signal ? { signal } : {}) });
  const log = new CallLog(client, signal, { retries: 0, rpm: options.rpm, concurrency: options.concurrency }, 'c');
  log.onCall = hooks.onCall;
  const slots = new Slots(options.concurrency);
  /** Each cell at its place in the plan (model by model, cases in their order), whenever it ends. */
  const cells: (ProbeResult | undefined)[] = [];
  // Our own event loop's lateness over the run: the control for the stream timing case.
  const lag = new LoopLag();
  lag.start();
  /** Whether the upstream recorded each case's request, by its place in the plan (unknown: its records could not be read). */
  const reached: (boolean | undefined)[] = [];
  const one = async (c: PassCase, model: string, m: number, at: number): Promise<ProbeResult> => {
    const probe = probeIdOf(c);
    const t = performance.now();
    // Not run to its end, as the audit's cells the stop cut: skipped, not compared with a baseline.
    const interrupted = (evidence: string[]): ProbeResult =>
      caseResult(model, c, { verdict: 'error', cause: 'interrupted', notRun: true, observed: evidence.length > 0 ? 'not finished: the run was interrupted while its request was in flight' : 'not run: the run was interrupted' }, evidence, performance.now() - t);
    if (signal?.aborted) return interrupted([]);
    const marker = markerOf(runs[m]!, c.id);
    const { body, headers } = requestOf(c, model, marker);
    const req = { method: 'POST' as const, path: '/chat/completions', body, headers };
    const x: Exchange = c.stream ? await log.stream(req, probe, model) : await log.send(req, probe, model);
    const window = arrivalWindow(x.startedAt, (x as StreamExchange).assembled?.contentTimes ?? []);
    const loopLagMs = window ? lag.worst(...window) : 0;
    // Cut short by Ctrl-C, the call says nothing of the gateway.
    if (signal?.aborted && x.transport) return interrupted(x.attempts);
    let v: ProbeVerdict;
    try {
      const records = await recordsOf(options.upstream, runs[m]!, c.id, options.timeoutMs);
      reached[at] = records.length > 0;
      // The upstream answered for the model it was asked for: a gateway's alias does not change its script.
      // The upstream answered the request as it received it (a stream, usage asked for), for the model it was
      // asked for: a gateway's alias or an option it adds changes the script as it would a real upstream's answer.
      const received = parsedBody(records[0]?.body);
      const asked = (isObject(received) && typeof received.model === 'string' ? received.model : undefined) ?? model;
      v = c.judge({ sent: body, sentHeaders: headers, records, x, scripted: answerOf(c.id, asked, received ?? body), loopLagMs });
    } catch (e) {
      v = inconclusive(`could not read chatprobe upstream's records at ${options.upstream}: ${(e as Error).message}`);
    }
    return caseResult(model, c, v, x.attempts, performance.now() - t);
  };
  const done = (r: ProbeResult, at: number) => {
    cells[at] = r;
    hooks.onResult?.(r);
  };
  try {
    // One request first: a gateway that refuses the key or does not route the model stops the run here,
    // with the reason, instead of failing every cell.
    const first = await one(cases[0]!, models[0]!, 0, 0);
    const lastCall = log.trace.at(-1);
    const status = lastCall?.status;
    // Cut short by Ctrl-C, the first request says nothing of the gateway: the run goes on to its partial report.
    if (!signal?.aborted) {
      if (status === 401 || status === 403) throw new CannotTestError(`the gateway refused the key: ${lastCall!.error ?? `HTTP ${status}`}`, `pass a key the gateway accepts in $${options.apiKeyEnv ?? 'OPENAI_API_KEY'} (or name another variable with --api-key-env)`);
      if (status === 404) throw new CannotTestError(`the gateway answered 404 for model ${models[0]}: ${lastCall!.error ?? ''}`, 'is a channel routing this model name to chatprobe upstream? (--models names it as the gateway knows it)');
      if (status === undefined && lastCall?.error) throw new CannotTestError(`no answer from the gateway at ${options.baseUrl}: ${lastCall.error}`, 'check --base-url');
      // Nothing reached the upstream, and the case does not accept that (a bad value the gateway may refuse
      // does): the model name is not routed to chatprobe upstream. Every other case would fail alike.
      if (reached[0] === false && first.verdict !== 'pass') throw misrouted(models[0]!, status, lastCall?.error, options.upstream);
    }
    done(first, 0);
    await Promise.all(
      models.flatMap((model, m) =>
        cases.map((c, i) =>
          m === 0 && i === 0
            ? Promise.resolve()
            : slots.run(async () => {
                done(await one(c, model, m, m * cases.length + i), m * cases.length + i);
              }),
        ),
      ),
    );
  } finally {
    lag.stop();
    await client.close();
  }
  const results = cells.filter((r): r is ProbeResult => r !== undefined);
  const planned = new Set(cases.map(probeIdOf));
  const report: Report = {
    ...finish(options, signal?.aborted ?? false),
    options: { concurrency: options.concurrency, timeoutMs: options.timeoutMs, modelFilter: models, probeFilter: cases.map(probeIdOf), strict: false, requireAuth: false, samples: 0 },
    models: models.map((id) => ({ id, listed: true })),
    probes: passthroughProbes().filter((p) => planned.has(p.id)),
    results,
    calls: log.trace.length,
  };
  return { report, trace: log.trace };
}

/**
 * The first request answered while chatprobe upstream received nothing: a setup error (exit 2) that names
 * what answered instead and what to fix, not a failure of every case.
 */
function misrouted(model: string, status: number | undefined, error: string | undefined, upstream: string): CannotTestError {
  const said = error ? `: ${error}` : '';
  const fix = `point a channel for the model name ${model} at chatprobe upstream (${upstream}), or pass --models the name such a channel serves`;
  if (status !== undefined && status >= 200 && status < 300) {
    return new CannotTestError(`the gateway answered model ${model} (HTTP ${status}) but chatprobe upstream received nothing: another channel, a cache or a fallback serves that name`, fix);
  }
  if (status === 429) return new CannotTestError(`the gateway rate-limited the first request for model ${model} (HTTP 429${said}) and chatprobe upstream received nothing`, 'run again once the limit resets, or pace the run with --rpm');
  if (status !== undefined && status >= 400 && status < 500) {
    return new CannotTestError(`the gateway refused a plain request for model ${model} (HTTP ${status}${said}) and chatprobe upstream received nothing`, `${fix}; check the token's group can use it`);
  }
  return new CannotTestError(`the gateway answered HTTP ${status ?? '—'}${said} for model ${model} and chatprobe upstream received nothing`, `${fix}; check the channel is enabled and reaches the upstream`);
}

/** A recorded body, parsed (undefined when it is none, not JSON, or nested deeper than chatprobe parses). */
function parsedBody(body: string | undefined): unknown {
  if (body === undefined || tooDeep(body)) return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}
