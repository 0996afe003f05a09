/**
 * The overhead row: the whole audit of the default profile against bare undici replaying the
 * requests that audit sent, at the same concurrency. bench/run.ts bundles this file as the package is
 * bundled (tsdown, no TypeScript at run time) and runs it in a process of its own, so what is timed is the
 * code npx runs: under tsx every function of ours would also pay for its name being kept (tsx's
 * keepNames wraps each closure it creates), a cost the package does not have.
 *
 * A third side, timed in the same turns, is the audit as the CLI runs it: every call also recorded into
 * exchanges.har through the output boundary (report/har.ts recordCalls, for a key as long as an OpenAI project key),
 * and into the run's record (record/recorder.ts, the key's stand-in where it was echoed), work a CLI run does per
 * call that runAudit alone does not.
 *
 * Prints one JSON line: { oursMs, recordedMs, baselineMs, calls, connections, runs }.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Boundary } from '../src/boundary/boundary.js';
import { HarWriter, recordCalls } from '../src/report/har.js';
import { RunRecord } from '../src/record/recorder.js';
import { Agent, request } from 'undici';
import { resolveOptions } from '../src/config/options.js';
import { runAudit } from '../src/engine/run.js';
import { loadProfile } from '../src/reference/profiles.js';
import { startReferenceServer } from '../src/reference/server.js';
import { PROBES } from '../suites/index.js';

/** Runs timed in turns (audit, recorded audit, replay, audit …), so a burst of load on the machine weighs on all three. */
const RUNS = 41;
/** Untimed turns first, so every side is timed compiled (the JIT's warm-up). */
const WARM_UPS = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const profile = loadProfile('default');
for (const m of profile.models) m.chunkDelayMs = 0;
/** As long as an OpenAI project key (164 characters: 157 fragments for the redactor to find). */
const KEY = `sk-proj-${'Q7vT2mX9pL4wR8nK3jH6bF1cZ5yD0aE'.repeat(6)}`.slice(0, 164);
const server = await startReferenceServer({ profile, apiKey: KEY, recordBodies: true });
const dir = mkdtempSync(join(tmpdir(), 'chatprobe-bench-'));
try {
  const options = resolveOptions({ baseUrl: server.url, concurrency: 8, retries: 0 }, {});
  options.apiKey = KEY;
  let calls = 0;
  let connections = 0;
  let sent: { method: 'GET' | 'POST'; path: string; raw: string | undefined }[] = [];
  const audit = async () => {
    server.received.length = 0;
    const before = server.connections();
    calls = (await runAudit(options, PROBES)).report.calls;
    connections = server.connections() - before;
    sent = server.received.map((r) => ({ method: r.method as 'GET' | 'POST', path: r.path, raw: r.raw }));
  };
  const recorded = async () => {
    // A boundary per run, as a CLI run has: nothing it cleaned in an earlier run is known to it.
    const boundary = Boundary.of([KEY]);
    const har = new HarWriter(join(dir, 'exchanges.har'), 'bench');
    const record = new RunRecord(join(dir, 'record.jsonl.gz'), boundary, options, [{ value: KEY, label: 'the key' }]);
    const run = await runAudit(options, PROBES, { onCall: recordCalls(har, boundary) }, undefined, { recorder: record });
    har.close();
    record.finish(run.report);
    record.commit();
  };
  // Baseline: the requests of the audit just run replayed as they were sent (bodies, streams read to their
  // end), through bare undici with keep-alive, 8 at a time, nothing judged. Like a run, the replay opens its
  // pool and closes it at the end: opening a connection (a socket on each side, a parser) is HTTP work every
  // run does, not chatprobe's overhead, and a pool kept warm across replays skipped it.
  const origin = new URL(server.url).origin;
  const replay = async () => {
    const agent = new Agent({ connections: 8 });
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = next++; i < sent.length; i = next++) {
          const r = sent[i]!;
          const headers: Record<string, string> = { authorization: `Bearer ${KEY}` };
          if (r.raw !== undefined) headers['content-type'] = 'application/json';
          const res = await request(`${origin}${r.path}`, { method: r.method, body: r.raw, headers, dispatcher: agent });
          await res.body.text();
        }
      }),
    );
    await agent.close();
  };
  for (let i = 0; i < WARM_UPS; i++) {
    await audit();
    await recorded();
    await replay();
  }
  const ours: number[] = [];
  const withRecord: number[] = [];
  const baseline: number[] = [];
  // Each run starts on an empty young generation, so neither side is timed collecting the other's garbage.
  const gc = (globalThis as { gc?: (o: { type: 'minor' }) => void }).gc;
  const collect = () => gc?.({ type: 'minor' });
  for (let i = 0; i < RUNS; i++) {
    collect();
    let t = performance.now();
    await audit();
    ours.push(performance.now() - t);
    collect();
    t = performance.now();
    await recorded();
    withRecord.push(performance.now() - t);
    collect();
    t = performance.now();
    await replay();
    baseline.push(performance.now() - t);
  }
  console.log(JSON.stringify({ oursMs: median(ours), recordedMs: median(withRecord), baselineMs: median(baseline), calls, connections, runs: RUNS }));
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
