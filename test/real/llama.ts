/** Starting and asking the real llama.cpp server the suite runs (built by scripts/real/setup.sh). */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { freePort, startServerProcess } from '../helpers/server-process.js';

export interface RealPaths {
  server: string;
  quantize: string;
  /**
   * `stops` is F16 (the identity calibration's reference); `stopsQ8`, `stopsQ4` are llama-quantize of it;
   * `other` is the same recipe with another seed (scripts/real/make-variants.py).
   */
  models: { stops: string; runaway: string; stopsQ8: string; stopsQ4: string; other: string };
  llamaCpp: { package: string; commit: string; version: string };
}

export type Weights = keyof RealPaths['models'];

/** The built server and models, or an error that says how to build them. */
export function realPaths(): RealPaths {
  const dir = execFileSync('bash', [join(ROOT, 'scripts/real/setup.sh'), '--print-dir'], { encoding: 'utf8' }).trim();
  const file = join(dir, 'paths.json');
  // setup.sh writes .complete last: a folder without it is an interrupted build.
  if (!existsSync(join(dir, '.complete'))) throw new Error(`no llama-server in ${dir}: run "npm run real:setup" first (about 6 minutes, once)`);
  return JSON.parse(readFileSync(file, 'utf8')) as RealPaths;
}

/** Every server started and not yet stopped: stopped when the tests end, even if a hook timed out. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function stopAll(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
}

export interface Llama {
  url: string;
  log: () => string;
  stop(): Promise<void>;
}

/**
 * Starts llama-server on a free loopback port and resolves when it says it listens (default: 4 slots, 2
 * threads). Any of the weights under any alias: the identity calibration serves each variant under one name.
 */
export async function startLlama(paths: RealPaths, model: Weights, alias: string, o: { apiKey?: string; slots?: number; threads?: number; args?: string[] } = {}): Promise<Llama> {
  const port = await freePort();
  const args = ['-m', paths.models[model], '--alias', alias, '--host', '127.0.0.1', '--port', String(port), '-t', String(o.threads ?? 2), '-c', '4096', '--no-ui'];
  if (o.apiKey) args.push('--api-key', o.apiKey);
  if (o.slots) args.push('-np', String(o.slots));
  if (o.args) args.push(...o.args);
  // A model that never stops then never ends an answer (llama-server shifts its context instead of stopping
  // when it fills): the audit's uncapped smoke call runs past --timeout, as on a misconfigured server.
  if (model === 'runaway') args.push('--context-shift');
  const server = await startServerProcess(paths.server, args, {}, (out) => out.includes('listening on'), 'llama-server', (child) => {
    running.add(child);
    child.once('exit', () => running.delete(child));
  });
  return { url: `http://127.0.0.1:${port}/v1`, log: server.output, stop: server.stop };
}

export interface Answer {
  status: number;
  contentType: string;
  body: any;
  text: string;
}

/** One direct request, as plain as can be: the test's own evidence, independent of chatprobe's code. */
export async function ask(base: string, body: unknown, init: { key?: string; raw?: string; authorization?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.authorization) headers.authorization = init.authorization;
  const res = await fetch(`${base}/chat/completions`, { method: 'POST', headers, body: init.raw ?? JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: parsed, text };
}

export const content = (a: Answer): string => a.body?.choices?.[0]?.message?.content ?? '';
export const calls = (a: Answer): unknown[] => a.body?.choices?.[0]?.message?.tool_calls ?? [];
