/**
 * The latency rows: 20 models × the full suite through a proxy that holds every request 200 ms,
 * at --concurrency 8, against the ideal schedule of the same calls. On a local server an audit is bound by
 * CPU; behind real latency it is bound by how well it keeps its request slots busy, which is what these
 * rows measure. Each run lasts about calls × 200 ms / 8 (half a minute). Run alone with
 * `npx tsx bench/latency.ts`; the diagnostics go to stderr.
 *
 * The proxy and the reference server run in this process, as in bench/run.ts: their work shares the
 * audit's event loop and lengthens every call a little (a call alone through the proxy takes ~204 ms; with
 * eight in flight ~215 ms, against ~206 ms with the proxy in another process). The diagnostics keep that
 * apart from the schedule: slots left idle are the schedule's, calls running long are the process's.
 */
import { Agent as HttpAgent, createServer, request as forward, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { resolveOptions } from '../src/config/options.js';
import { runAudit } from '../src/engine/run.js';
import { Profile } from '../src/reference/profile.js';
import { loadProfile } from '../src/reference/profiles.js';
import { startReferenceServer } from '../src/reference/server.js';
import type { CallRecord } from '../src/results/model.js';
import { PROBES } from '../suites/index.js';

interface Row {
  name: string;
  baseline: string;
  oursMs: number;
  baselineMs: number;
}

const MODELS = 20;
const CONCURRENCY = 8;
const LATENCY_MS = 200;
/** What the second latency row charges a new connection (a TCP and TLS handshake to a far host). */
const CONNECT_MS = 100;

/** Hop-by-hop headers (RFC 9110 §7.6.1): each side of the proxy frames its own connection. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade', 'te', 'trailer']);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !HOP_HEADERS.has(k)));
}

interface LatencyProxy {
  /** Base URL ending in /v1, like the server's behind it. */
  url: string;
  /** TCP connections the audit opened to the proxy. */
  connections(): number;
  close(): Promise<void>;
}

/**
 * A reverse proxy that holds each request `latencyMs` before forwarding it, and a new connection's first
 * request `connectMs` more; the answer then streams back unchanged, so SSE timing is the server's.
 */
async function startLatencyProxy(target: string, latencyMs: number, connectMs: number): Promise<LatencyProxy> {
  const upstream = new URL(target);
  // Keep-alive towards the reference server, as a gateway keeps its upstream pool: the connections that
  // count are the audit's own, not one short-lived connection of the proxy's per request.
  const agent = new HttpAgent({ keepAlive: true });
  // Resolved `connectMs` after the connection was accepted: its handshake. Later requests find it resolved.
  const handshakes = new WeakMap<Socket, Promise<void>>();
  let connections = 0;

  const relay = async (req: IncomingMessage, res: ServerResponse) => {
    await handshakes.get(req.socket);
    await sleep(latencyMs);
    const out = forward(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: endToEnd(req.headers), agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
        answer.pipe(res);
      },
    );
    out.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    // The audit gave up (a probe's timeout, a stream read to its cap): so does the hop behind.
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  };

  const server = createServer((req, res) => void relay(req, res));
  server.on('connection', (socket: Socket) => {
    connections++;
    handshakes.set(socket, connectMs > 0 ? sleep(connectMs) : Promise.resolve());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    connections: () => connections,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      agent.destroy();
    },
  };
}

/** The default profile's plain model (ref-standard) 20 times over, streaming without pauses between chunks. */
function twentyModels(): Profile {
  const base = loadProfile('default');
  const plain = base.models.find((m) => m.id === 'ref-standard');
  if (!plain) throw new Error('the default profile has no ref-standard model');
  const models = Array.from({ length: MODELS }, (_, i) => ({ ...structuredClone(plain), id: `ref-standard-${i + 1}`, chunkDelayMs: 0 }));
  // Parsed again, so a change to the schema that this clone no longer satisfies fails here, not mid-run.
  return Profile.parse({ ...base, name: 'latency-bench', description: `${MODELS} plain models`, models });
}

/**
 * The longest chain of dependent calls, estimated from the trace: GET /models comes before everything; a
 * model's smoke call (two calls if its first try ran away) comes before its probes; a probe's calls go one
 * after another. Per model: discovery + smoke + the most calls any one of its probes made (the endpoint
 * probes count with the model that hosted them). Probes run side by side, so their calls are not added.
 * A shared exchange is recorded under the probe that sent it, so a probe that waited for one and then made
 * calls of its own counts only its own: the estimate can fall short, which makes the ideal stricter. The
 * search for a balance route (billing.meter: its GETs side by side, once GET /models has answered) is one
 * more step before the smoke calls, left out of the chain: the estimate falls short by that round trip
 * too, which makes the ideal stricter still.
 */
function longestChain(trace: readonly CallRecord[]): number {
  const discovery = trace.filter((c) => c.probe === 'discovery').length;
  const perModel = new Map<string, { smoke: number; probes: Map<string, number> }>();
  for (const c of trace) {
    if (c.model === undefined) continue;
    let m = perModel.get(c.model);
    if (!m) perModel.set(c.model, (m = { smoke: 0, probes: new Map() }));
    if (c.probe === 'smoke') m.smoke++;
    else m.probes.set(c.probe, (m.probes.get(c.probe) ?? 0) + 1);
  }
  let longest = 0;
  for (const m of perModel.values()) longest = Math.max(longest, m.smoke + Math.max(0, ...m.probes.values()));
  return discovery + longest;
}

/**
 * How full the request slots were over the run, from each call's start and duration: the mean in flight
 * (sum of durations / wall time), the share of the time all slots were busy, how long the run took to
 * fill them (discovery, the balance-route search, the first smoke calls), and how long it ran with fewer
 * after the last moment they were all busy (the tail).
 */
function occupancy(trace: readonly CallRecord[], startedAt: number, wallMs: number, slots: number) {
  const edges: { t: number; d: number }[] = [];
  for (const c of trace) {
    const t = Date.parse(c.at) - startedAt;
    edges.push({ t, d: 1 }, { t: t + c.durationMs, d: -1 });
  }
  // Ends before starts at the same instant: a slot handed on is not two calls at once.
  edges.sort((a, b) => a.t - b.t || a.d - b.d);
  let level = 0;
  let last = 0;
  let fullMs = 0;
  let firstFull: number | undefined;
  let lastFull = 0;
  for (const e of edges) {
    if (level >= slots) fullMs += e.t - last;
    last = e.t;
    level += e.d;
    if (level >= slots) firstFull ??= e.t;
    else if (e.d < 0 && level === slots - 1) lastFull = e.t;
  }
  const busyMs = trace.reduce((n, c) => n + c.durationMs, 0);
  return {
    meanInFlight: busyMs / wallMs,
    fullShare: fullMs / wallMs,
    rampMs: firstFull ?? wallMs,
    tailMs: firstFull === undefined ? 0 : wallMs - lastFull,
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Resolution of the event-loop monitor; its readings include it, so it is taken off again. */
const LOOP_RESOLUTION_MS = 5;

interface Measure {
  calls: number;
  connections: number;
  chain: number;
  oursMs: number;
  idealMs: number;
  meanCallMs: number;
  cpuMsPerCall: number;
  /** How long the event loop was held up beyond its timer: mean and 99th percentile. */
  loopDelayMs: { mean: number; p99: number };
  slots: ReturnType<typeof occupancy>;
}

/** One audit of the profile through a fresh proxy: its wall time, the ideal for the same calls, and why. */
async function auditThroughProxy(profile: Profile, latencyMs: number, connectMs: number): Promise<Measure> {
  const server = await startReferenceServer({ profile, apiKey: 'bench' });
  const proxy = await startLatencyProxy(server.url, latencyMs, connectMs);
  try {
    const options = resolveOptions({ baseUrl: proxy.url, concurrency: CONCURRENCY, retries: 0 }, {});
    options.apiKey = 'bench';
    // The proxy, the server and the audit share one event loop: its delay and the CPU spent say how much
    // of a call's time beyond the latency is this process's own work rather than the schedule.
    const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    loop.enable();
    const cpu = process.cpuUsage();
    const startedAt = Date.now();
    const t = performance.now();
    const { trace } = await runAudit(options, PROBES);
    const oursMs = performance.now() - t;
    const { user, system } = process.cpuUsage(cpu);
    loop.disable();
    const calls = trace.length;
    const chain = longestChain(trace);
    // Any schedule needs calls × latency of slot time spread over the slots, and the longest chain end to
    // end. With a cost per connection, it also opens one connection per slot (in parallel), and its
    // first call waits for one.
    const idealMs = Math.max((calls * latencyMs + CONCURRENCY * connectMs) / CONCURRENCY, chain * latencyMs + connectMs);
    const beyond = (ns: number) => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
    return {
      calls,
      connections: proxy.connections(),
      chain,
      oursMs,
      idealMs,
      meanCallMs: trace.reduce((n, c) => n + c.durationMs, 0) / calls,
      cpuMsPerCall: (user + system) / 1000 / calls,
      loopDelayMs: { mean: beyond(loop.mean), p99: beyond(loop.percentile(99)) },
      slots: occupancy(trace, startedAt, oursMs, CONCURRENCY),
    };
  } finally {
    await proxy.close();
    await server.close();
  }
}

/** Where the time went: the schedule (slots left idle) apart from the calls themselves running long. */
function describe(label: string, m: Measure): string {
  const s = m.slots;
  return [
    `[latency] ${label}: ${m.calls} calls, ${m.connections} connections, longest chain ${m.chain}; ` +
      `ideal ${seconds(m.idealMs)}, measured ${seconds(m.oursMs)} (${(m.oursMs / m.idealMs).toFixed(2)}×)`,
    `[latency]   slots: ${s.meanInFlight.toFixed(2)} of ${CONCURRENCY} in flight on average, all busy ${(s.fullShare * 100).toFixed(0)}% of the time, ` +
      `ramp-up ${seconds(s.rampMs)}, tail ${seconds(s.tailMs)}`,
    `[latency]   calls: ${m.meanCallMs.toFixed(1)} ms each on average (latency ${LATENCY_MS} ms); CPU ${m.cpuMsPerCall.toFixed(1)} ms per call ` +
      `(proxy and server included); event loop held up ${m.loopDelayMs.mean.toFixed(1)} ms on average, p99 ${m.loopDelayMs.p99.toFixed(1)} ms`,
  ].join('\n');
}

export async function benchLatency(): Promise<Row[]> {
  const profile = twentyModels();
  // A warm-up audit without latency first: the first run in a process also pays for the JIT and for the
  // validators compiled on first use, and it would be the plain row's alone.
  await auditThroughProxy(profile, 0, 0);
  // One run each: a run is half a minute of mostly waiting, and its ideal comes from its own trace.
  const plain = await auditThroughProxy(profile, LATENCY_MS, 0);
  console.error(describe('plain', plain));
  const connect = await auditThroughProxy(profile, LATENCY_MS, CONNECT_MS);
  console.error(describe(`+${CONNECT_MS} ms per new connection`, connect));
  const ideal = 'ideal: calls × latency / concurrency, or the longest chain';
  return [
    {
      name: `${MODELS} models through a ${LATENCY_MS} ms proxy, concurrency ${CONCURRENCY} (${plain.calls} calls)`,
      baseline: ideal,
      oursMs: plain.oursMs,
      baselineMs: plain.idealMs,
    },
    {
      name: `… + ${CONNECT_MS} ms per new connection (${connect.calls} calls)`,
      baseline: `${ideal}, + a connection per slot`,
      oursMs: connect.oursMs,
      baselineMs: connect.idealMs,
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await benchLatency()) {
    console.log(`${r.name.padEnd(80)} ${`${r.oursMs.toFixed(0)} ms`.padEnd(10)} ${`${r.baselineMs.toFixed(0)} ms`.padEnd(10)} ${(r.oursMs / r.baselineMs).toFixed(2)}×  (${r.baseline})`);
  }
}
