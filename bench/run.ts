/**
 * Benchmarks, reported as ratios against a baseline measured in the same run (absolute times depend on
 * the machine; ratios mostly do not), each with its goal where it has one (the README's benchmark table). Run with
 * `npm run bench`, or `npm run bench -- NAME` for one group (sse, junit, matrix, boundary, audit,
 * latency, startup, rss, stream, html, cost). Nothing here is asserted: the tests time nothing but report.html's load,
 * against a bound far above this row's goal.
 */
import { performance } from 'node:perf_hooks';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSse } from '../src/wire/sse.js';
import type { Report } from '../src/results/model.js';
import { renderJunit } from '../src/report/writers/junit.js';
import { Boundary } from '../src/boundary/boundary.js';
import { renderMatrix } from '../src/report/writers/markdown.js';
import { assembleStream } from '../src/wire/stream.js';
import { PROBES } from '../suites/index.js';
import { benchLatency } from './latency.js';
import { benchHtml } from './html.js';
import { benchRss, benchStartup, benchStream, type Measured } from './memory.js';
import { benchCost } from './cost.js';

interface Row {
  name: string;
  baseline: string;
  oursMs: number;
  baselineMs: number;
  /** The ratio at most. */
  goal?: number;
}

/** Median of `runs` timings of fn, after three warm-ups (the JIT's, so both sides are compared compiled). */
async function time(fn: () => unknown, runs = 5): Promise<number> {
  for (let i = 0; i < 3; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return samples.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

/** Medians of `runs` timings of a and b taken in turns (a, b, a, b …), after three warm-ups of each. */
async function interleaved(a: () => Promise<unknown>, b: () => Promise<unknown>, runs: number): Promise<[number, number]> {
  for (let i = 0; i < 3; i++) {
    await a();
    await b();
  }
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    await a();
    ta.push(performance.now() - t);
    t = performance.now();
    await b();
    tb.push(performance.now() - t);
  }
  const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  return [median(ta), median(tb)];
}

function sseBody(events: number): string {
  const parts: string[] = [];
  for (let i = 0; i < events; i++) {
    parts.push(`data: ${JSON.stringify({ id: 'chatcmpl-x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: ` token${i}` }, finish_reason: null }] })}\n\n`);
  }
  return `${parts.join('')}data: [DONE]\n\n`;
}

async function benchSse(): Promise<Row> {
  const text = sseBody(20_000);
  const bytes = new TextEncoder().encode(text);
  const chunks: { at: number; bytes: Uint8Array }[] = [];
  for (let at = 0; at < bytes.length; at += 1024) chunks.push({ at: at / 1024, bytes: bytes.subarray(at, at + 1024) });
  const ours = await time(() => assembleStream(readSse(chunks).events));
  // Baseline: what a minimal client does with the whole body at once: split on blank lines, parse JSON.
  const baseline = await time(() => {
    const whole = new TextDecoder().decode(bytes);
    for (const ev of whole.split('\n\n')) if (ev.startsWith('data: {')) JSON.parse(ev.slice(6));
  });
  return { name: `SSE reader + assembly, ${(bytes.length / 1e6).toFixed(1)} MB in 1 KiB reads`, baseline: 'split + JSON.parse of the whole body', oursMs: ours, baselineMs: baseline };
}

/**
 * Processes the overhead row is measured in. One process's figure moves by a tenth either way from one
 * process to the next on this 2-core VM (where the JIT and the heap settle, what the machine is doing): the
 * row is the process whose ratio is the median, and the three ratios are printed beside it.
 */
const AUDIT_PROCESSES = 3;

/**
 * The overhead row, measured on the bundled code in processes of their own (bench/audit.ts says why), and
 * beside it, without a goal of its own, the same audit recording exchanges.har as the CLI does.
 */
async function benchAudit(): Promise<Row[]> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const out = join(root, 'node_modules', '.cache', 'chatprobe-bench');
  execFileSync(join(root, 'node_modules', '.bin', 'tsdown'), ['bench/audit.ts', '--no-config', '-d', out, '--format', 'esm', '--platform', 'node', '--target', 'node20.19', '--logLevel', 'error', '--no-dts'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  type Measure = { oursMs: number; recordedMs: number; baselineMs: number; calls: number; connections: number; runs: number };
  const measures: Measure[] = [];
  for (let i = 0; i < AUDIT_PROCESSES; i++) {
    measures.push(JSON.parse(execFileSync(process.execPath, ['--expose-gc', join(out, 'audit.mjs')], { cwd: root, encoding: 'utf8' }).trim().split('\n').at(-1)!) as Measure);
  }
  const ratio = (m: Measure) => m.oursMs / m.baselineMs;
  const sorted = [...measures].sort((a, b) => ratio(a) - ratio(b));
  const m = sorted[Math.floor(sorted.length / 2)]!;
  const spread = measures.map((x) => `${ratio(x).toFixed(2)}×`).join(', ');
  const baseline = 'its requests replayed by bare undici, same concurrency, a pool per run as a run has';
  return [
    { name: `full audit, default profile (${m.calls} calls, ${m.connections} connections; bundled; the median of ${AUDIT_PROCESSES} processes, each the median of ${m.runs} runs: ${spread})`, baseline, oursMs: m.oursMs, baselineMs: m.baselineMs, goal: 1.5 },
    { name: 'the same audit, each call recorded in exchanges.har and record.jsonl.gz as the CLI records it (no goal of its own)', baseline, oursMs: m.recordedMs, baselineMs: m.baselineMs },
  ];
}

function bigReport(models: number): Report {
  const probes = PROBES.map((p) => ({ id: p.id, area: p.area, kind: p.kind, scope: p.scope ?? 'model', requirement: p.requirement, cost: { requests: 1, maxTokens: 1 } }));
  return {
    schemaVersion: 1,
    tool: { name: 'chatprobe', version: 'bench' },
    target: { baseUrl: 'http://bench/v1', headerNames: [] },
    startedAt: '2026-01-01T00:00:00Z',
    finishedAt: '2026-01-01T00:01:00Z',
    durationMs: 60_000,
    interrupted: false,
    options: { concurrency: 4, timeoutMs: 60_000, modelFilter: [], probeFilter: [], strict: false, requireAuth: false, samples: 4 },
    models: Array.from({ length: models }, (_, i) => ({ id: `model-${i}`, listed: true })),
    probes,
    results: Array.from({ length: models }, (_, i) =>
      probes.map((p) => ({
        model: `model-${i}`,
        probe: p.id,
        kind: p.kind,
        verdict: p.kind === 'capability' ? ('honoured' as const) : ('warn' as const),
        outcome: 'passed' as const,
        observed: 'expected X, got Y | with <markup> & ]]> in it',
        evidence: ['c1', 'c2'],
        findings: [],
        durationMs: 5,
      })),
    ).flat(),
    calls: models * 50,
  };
}

async function benchJunit(): Promise<Row> {
  const report = bigReport(200);
  const ours = await time(() => renderJunit(report));
  const baseline = await time(() => JSON.stringify(report));
  return { name: `junit.xml for 200 models × ${PROBES.length} probes`, baseline: 'JSON.stringify of the report', oursMs: ours, baselineMs: baseline, goal: 3 };
}

async function benchMatrix(): Promise<Row> {
  const report = bigReport(100);
  const ours = await time(() => renderMatrix(report));
  const baseline = await time(() => JSON.stringify(report, null, 2));
  return { name: `matrix.md for 100 models × ${PROBES.length} probes`, baseline: 'JSON.stringify of the report', oursMs: ours, baselineMs: baseline };
}

/** The output boundary over a whole report (every string redacted for a 41-character key, shown, bounded). */
async function benchBoundary(): Promise<Row> {
  const report = bigReport(100);
  const boundary = Boundary.of(['sk-proj-Q7vT2mX9pL4wR8nK3jH6bF1cZ5yD0aE']);
  const ours = await time(() => JSON.stringify(boundary.report(report), null, 2));
  const baseline = await time(() => JSON.stringify(report, null, 2));
  return { name: `report.json through the output boundary, 100 models`, baseline: 'JSON.stringify of the report', oursMs: ours, baselineMs: baseline };
}

const asMeasured = (r: Row): Measured => ({ name: r.name, baseline: r.baseline, ours: r.oursMs, base: r.baselineMs, unit: 'ms', goal: { max: r.goal ?? Number.NaN } });
const one = (bench: () => Promise<Row>) => async () => [asMeasured(await bench())];
const benches: Record<string, () => Promise<Measured[]>> = {
  sse: one(benchSse),
  junit: one(benchJunit),
  matrix: one(benchMatrix),
  boundary: one(benchBoundary),
  audit: async () => (await benchAudit()).map(asMeasured),
  latency: async () => (await benchLatency()).map((r) => asMeasured({ ...r, goal: 1.1 })),
  startup: benchStartup,
  rss: benchRss,
  stream: benchStream,
  html: benchHtml,
  cost: benchCost,
};
const only = process.argv[2];
if (only && !(only in benches)) throw new Error(`no bench "${only}": ${Object.keys(benches).join(', ')}`);
const rows: Measured[] = [];
for (const [name, bench] of Object.entries(benches)) if (!only || only === name) rows.push(...(await bench()));

const fmt = (v: number, unit: Measured['unit']) => (unit === 'MB' ? `${v.toFixed(0)} MB` : unit === 'ms' ? `${v.toFixed(1)} ms` : `${v} ${unit}`);
const within = (r: Measured) => (Number.isNaN(r.goal.max) ? undefined : (r.goal.absolute ? r.ours : r.ours / r.base) <= r.goal.max);
const goalText = (r: Measured) => (Number.isNaN(r.goal.max) ? '' : r.goal.absolute ? `≤ ${r.goal.max} ${r.unit}` : `≤ ${r.goal.max}×`);
const table = [['benchmark', 'ours', 'baseline', 'ratio', 'goal', '', 'baseline is'], ...rows.map((r) => {
  const ok = within(r);
  return [r.name, fmt(r.ours, r.unit), fmt(r.base, r.unit), `${(r.ours / r.base).toFixed(2)}×`, goalText(r), ok === undefined ? '' : ok ? 'ok' : 'MISSED', r.baseline];
})];
const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
for (const row of table) console.log(row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd());
const judged = rows.filter((r) => within(r) !== undefined);
console.log(`\n${judged.filter((r) => within(r)).length} of ${judged.length} rows with a goal are within it (node ${process.version}, ${(await import('node:os')).cpus().length} cores)`);
