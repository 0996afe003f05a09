/**
 * The start-up and memory rows of the README's benchmark table, each measured in fresh processes, since a process's start and its
 * peak RSS cannot be measured from inside the one that runs the bench:
 * - start-up: `chatprobe --version` and `--help` from the built CLI (dist/), against `node -e 0`;
 * - peak RSS of the built CLI auditing 50 and 200 models of the reference server (run in this process);
 * - peak RSS of reading one 100 MB stream through chatprobe's call path, against a 1 MB one.
 */
import { execFileSync } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Profile } from '../src/reference/profile.js';
import { loadProfile } from '../src/reference/profiles.js';
import { startReferenceServer } from '../src/reference/server.js';
import { runCommand } from '../test/helpers/cli.js';

export interface Measured {
  name: string;
  baseline: string;
  ours: number;
  base: number;
  unit: 'ms' | 'MB' | 'requests' | 'tokens';
  /** The goal: the ratio at most, or (`absolute`) ours at most, in the row's unit. */
  goal: { max: number; absolute?: boolean };
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli.mjs');
const KEY = 'sk-bench-memory-qz7w';

/** Node run to its end in a clean environment; resolves with its stdout, stderr and exit code. */
const run = (args: string[], env: Record<string, string> = {}) => runCommand(process.execPath, args, env, ROOT);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The CLI is measured as users run it: built. */
export function build(): void {
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
}

async function startup(): Promise<Measured[]> {
  const kinds: Record<string, string[]> = { node: ['-e', '0'], version: [CLI, '--version'], help: [CLI, '--help'] };
  const times: Record<string, number[]> = { node: [], version: [], help: [] };
  // Interleaved, so a burst of load on the machine weighs on all three alike.
  for (let i = 0; i < 15; i++) {
    for (const [kind, args] of Object.entries(kinds)) {
      const t = performance.now();
      const { code } = await run(args);
      if (code !== 0) throw new Error(`node ${args.join(' ')} exited ${code}`);
      times[kind]!.push(performance.now() - t);
    }
  }
  const node = median(times.node!);
  return [
    { name: '`chatprobe --version`', baseline: '`node -e 0`', ours: median(times.version!), base: node, unit: 'ms', goal: { max: 2.5 } },
    { name: '`chatprobe --help`', baseline: '`node -e 0`', ours: median(times.help!), base: node, unit: 'ms', goal: { max: 2.5 } },
  ];
}

/** The default profile's plain model `n` times over, streaming without pauses. */
function manyModels(n: number): Profile {
  const base = loadProfile('default');
  const plain = base.models.find((m) => m.id === 'ref-standard')!;
  const models = Array.from({ length: n }, (_, i) => ({ ...structuredClone(plain), id: `ref-standard-${i + 1}`, chunkDelayMs: 0 }));
  return Profile.parse({ ...base, name: `bench-${n}`, models });
}

/**
 * The node flag that sizes V8's heap for memory: the low-memory launch the README documents
 * (`node --optimize-for-size …/chatprobe/dist/cli.mjs`; NODE_OPTIONS refuses this flag).
 */
const SIZED_HEAP = ['--optimize-for-size'];

/**
 * Peak RSS (MB) and CPU time (ms, all threads) of the built CLI auditing `n` models at concurrency 8,
 * reports written; `nodeFlags` go to the CLI's node.
 */
async function cliAudit(n: number, nodeFlags: string[] = []): Promise<{ mb: number; cpuMs: number }> {
  const server = await startReferenceServer({ profile: manyModels(n), apiKey: KEY });
  const out = await mkdtemp(join(tmpdir(), 'chatprobe-bench-'));
  try {
    const preload = join(ROOT, 'bench', 'rss.cjs');
    const r = await run([...nodeFlags, '--require', preload, CLI, '--base-url', server.url, '--out', out, '--quiet', '--concurrency', '8'], { OPENAI_API_KEY: KEY });
    const m = /peak-rss-kb (\d+) cpu-us (\d+)/.exec(r.stderr);
    if (r.code === 2 || !m) throw new Error(`the audit of ${n} models failed (exit ${r.code}): ${r.stderr.slice(-500)}`);
    return { mb: Number(m[1]) / 1024, cpuMs: Number(m[2]) / 1000 };
  } finally {
    await server.close();
    await rm(out, { recursive: true, force: true });
  }
}

/**
 * The CLI's peak memory as shipped (V8's default heap), and with the heap sized for memory: the 50-model
 * audit run in turns both ways, and what the low-memory launch costs in CPU.
 */
async function auditMemory(): Promise<Measured[]> {
  const node = median(await Promise.all([0, 1, 2].map(async () => Number(/peak-rss-kb (\d+)/.exec((await run(['--require', join(ROOT, 'bench', 'rss.cjs'), '-e', '0'])).stderr)?.[1]) / 1024)));
  const shipped: { mb: number; cpuMs: number }[] = [];
  const sized: { mb: number; cpuMs: number }[] = [];
  for (let i = 0; i < 3; i++) {
    shipped.push(await cliAudit(50));
    sized.push(await cliAudit(50, SIZED_HEAP));
  }
  const fifty = median(shipped.map((s) => s.mb));
  const fiftySized = median(sized.map((s) => s.mb));
  // Growth is measured with the heap sized for memory: V8's default heap grows by its own policy, which
  // would hide whether what chatprobe keeps grows with the results only.
  const twoHundred = (await cliAudit(200, SIZED_HEAP)).mb;
  return [
    { name: 'peak RSS of an audit of 50 models, as shipped (V8\'s default heap; no goal of its own)', baseline: '`node -e 0`', ours: fifty, base: node, unit: 'MB', goal: { max: Number.NaN } },
    { name: `the same with the heap sized for memory (node ${SIZED_HEAP.join(' ')})`, baseline: '`node -e 0`', ours: fiftySized, base: node, unit: 'MB', goal: { max: 120, absolute: true } },
    { name: `peak RSS, 200 models against 50, both with the heap sized for memory (the live results grow)`, baseline: '50 models', ours: twoHundred, base: fiftySized, unit: 'MB', goal: { max: 1.4 } },
    {
      name: `CPU time of that 50-model audit with the heap sized for memory, ${fiftySized.toFixed(0)} MB at peak (no goal of its own)`,
      baseline: `as shipped, ${fifty.toFixed(0)} MB at peak`,
      ours: median(sized.map((s) => s.cpuMs)),
      base: median(shipped.map((s) => s.cpuMs)),
      unit: 'ms',
      goal: { max: Number.NaN },
    },
  ];
}

/** Serves one SSE stream of about `mb` MB, in chunks of 200 characters, written as the socket drains. */
async function streamServer(mb: number): Promise<{ url: string; close(): Promise<void> }> {
  const frame = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'x'.repeat(200) }, finish_reason: null }] })}\n\n`;
  const total = Math.ceil((mb * 1024 * 1024) / frame.length);
  const open = new Set<ServerResponse>();
  const server = createServer((_req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let i = 0;
    const more = () => {
      while (i < total) {
        i++;
        if (!res.write(frame)) return void res.once('drain', more);
      }
      res.end('data: [DONE]\n\n');
    };
    more();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: async () => {
      for (const res of open) res.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

async function streamPeak(mb: number): Promise<number> {
  const server = await streamServer(mb);
  try {
    const r = await run(['--import', 'tsx', join(ROOT, 'bench', 'stream-child.ts'), server.url]);
    const line = r.stdout.trim().split('\n').at(-1) ?? '';
    const seen = JSON.parse(line) as { peakKb: number; bytes: number; done: boolean; truncated: boolean };
    if (!seen.done || seen.truncated || seen.bytes < mb * 1024 * 1024) throw new Error(`the ${mb} MB stream was not read whole: ${line} ${r.stderr.slice(-300)}`);
    return seen.peakKb / 1024;
  } finally {
    await server.close();
  }
}

/**
 * 100 MB against 10 MB: both pass every cap of what a stream holds (the record, the kept chunks, the
 * texts), so a flat reader peaks alike; a reader that held the stream would need ten times the memory.
 * A first child warms tsx's cache, and each side is the median of three.
 */
async function streamMemory(): Promise<Measured[]> {
  await streamPeak(1);
  const small: number[] = [];
  const large: number[] = [];
  for (let i = 0; i < 3; i++) {
    small.push(await streamPeak(10));
    large.push(await streamPeak(100));
  }
  return [{ name: 'peak RSS reading a 100 MB stream (read whole)', baseline: 'a 10 MB stream', ours: median(large), base: median(small), unit: 'MB', goal: { max: 1.2 } }];
}

export async function benchStartup(): Promise<Measured[]> {
  build();
  return startup();
}

export async function benchRss(): Promise<Measured[]> {
  build();
  return auditMemory();
}

export const benchStream = streamMemory;
