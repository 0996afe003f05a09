/**
 * The identity calibration on the real llama.cpp server (issue 34), not part of CI: `npm run
 * calibrate:identity` (after `npm run real:setup`).
 *
 *   --raw              the raw logprob spreads (raw-logprobs.ts): repeats, restarts, -t 1 vs -t 2, requests
 *                      decoded together, and each other set of weights against the F16 reference
 *   --runs FILE        the identity probes themselves (the built CLI; npm run build first), round after
 *                      round until --minutes M (default 40) have passed, each run appended to FILE (JSON
 *                      lines), then the figures; a second call appends to the same FILE; --every N: the
 *                      quiet pair, the variants and the load-balanced pair every N rounds (default 4)
 *   --full FILE        --pairs N (default 2) pairs of whole default audits (--concurrency 4), appended to FILE
 *   --analyse FILE     the figures of the runs in FILE only
 *
 * Prints markdown tables for docs/identity.md, and writes them to --out FILE when given.
 */
import { appendFileSync, cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPortkey, loadBalanceHeaders } from '../helpers/portkey.js';
import { busy, IDENTITY_MODEL, runIdentity, type IdentityRun } from './identity-runs.js';
import { analyse, type Kind } from './identity-figures.js';
import { realPaths, startLlama, stopAll, type Llama, type Weights } from './llama.js';
import { askedTwice, RAW_PROMPTS, sample, spread, type Spread, type TopLogprobs } from './raw-logprobs.js';

const MODEL = IDENTITY_MODEL;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The calibration's own copy of the bundle, inside the checkout (the bundle's imports resolve from
 * node_modules there): a test run meanwhile rebuilds dist/, and a run started in that moment would find no
 * CLI. One a process (two calibrations side by side keep their own), removed at its end.
 */
const CLI_COPY = join(ROOT, `.calibrate-cli-${process.pid}`);
const cli = join(CLI_COPY, 'cli.mjs');
const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const value = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

const lines: string[] = [];
const say = (line = '') => {
  lines.push(line);
  console.log(line);
};

async function serving<T>(weights: Weights, threads: number, fn: (server: Llama) => Promise<T>, slots?: number): Promise<T> {
  const server = await startLlama(realPaths(), weights, MODEL, slots ? { threads, slots } : { threads });
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}

const fmt = (x: number) => (x === 0 ? '0' : x.toExponential(1));

function row(name: string, s: Spread): string {
  return `| ${name} | ${s.pairs} | ${s.identical} | ${fmt(s.medianAbs)} | ${fmt(s.maxAbs)} | ${s.topAgree}/${s.pairs} | ${s.minOverlap.toFixed(2)} |`;
}

async function raw(): Promise<void> {
  const repeats = Number(value('--repeats') ?? 5);
  const t0 = Date.now();
  const ref = await serving('stops', 2, (s) => sample(s.url, MODEL, repeats));
  const together = await serving('stops', 2, (s) => sample(s.url, MODEL, repeats, { together: 4 }));
  const top20 = await serving('stops', 2, (s) => sample(s.url, MODEL, repeats, { top: 20 }));
  const together8 = await serving('stops', 2, (s) => sample(s.url, MODEL, repeats, { together: 8 }), 8);
  const [firsts, seconds] = await serving('stops', 2, (s) => askedTwice(s.url, MODEL), 1);
  const restart = await serving('stops', 2, (s) => sample(s.url, MODEL, repeats));
  const oneThread = await serving('stops', 1, (s) => sample(s.url, MODEL, repeats));
  const variants: [string, Weights][] = [
    ['Q8_0', 'stopsQ8'],
    ['Q4_0', 'stopsQ4'],
    ['other weights', 'other'],
  ];
  const others: [string, TopLogprobs[][]][] = [];
  for (const [name, w] of variants) others.push([name, await serving(w, 2, (s) => sample(s.url, MODEL, repeats))]);

  say(`Raw first-token logprobs (top 5), ${RAW_PROMPTS.length} prompts × ${repeats} samples, temperature 0, max_tokens 1; each sample against the F16 reference's first (${Math.round((Date.now() - t0) / 1000)} s):`);
  say();
  say('| against F16, -t 2, one request at a time | pairs | bit-identical | median max\\|Δ\\| | max\\|Δ\\| | same top token | min top-5 overlap |');
  say('|---|---|---|---|---|---|---|');
  say(row('its own repeats', spread(ref, ref)));
  say(row('restarted', spread(ref, restart)));
  say(row('-t 1', spread(ref, oneThread)));
  say(row('top_logprobs 20 (its top 5 compared)', spread(ref, top20)));
  say(row('asked again at once (-np 1: all but the last token cached), against the first ask', spread(firsts, seconds)));
  say(row('4 requests at once (one batch)', spread(ref, together)));
  say(row('8 requests at once (-np 8, one batch)', spread(ref, together8)));
  for (const [name, s] of others) {
    say(row(`${name}: its own repeats`, spread(s, s)));
    say(row(name, spread(ref, s)));
  }
}

/**
 * Rounds of identity runs, each appended to `file` as it ends. A round, its runs side by side on separate
 * servers (the requests of two servers are never batched together, so this moves no logprob):
 * - two busy F16 runs, each while three other requests keep its server decoding in batches, as an audit's
 *   other probes do at --concurrency 4: a same-model pair, one server with -t 2 and one with -t 1;
 * - every --every N rounds (default 4): two quiet F16 runs (another pair, -t 2 and -t 1), one run each of
 *   Q8_0, Q4_0 and the other weights, and one through Portkey load-balancing F16 with Q4_0 or with the
 *   other weights, in turn.
 * The servers are restarted every RESTART_EVERY rounds, their thread counts swapped.
 */
async function runs(file: string): Promise<void> {
  const minutes = Number(value('--minutes') ?? 40);
  const every = Number(value('--every') ?? 4);
  const until = Date.now() + minutes * 60_000;
  const paths = realPaths();
  const RESTART_EVERY = 8;
  // -n 16: the audit's smoke call, sent without a limit, ends after 16 tokens rather than the hundreds the
  // stopping model writes at the default sampling (most of a run's time on two cores). The fingerprint's
  // requests carry their own max_tokens (1 and 8): nothing of them changes.
  const serverArgs = ['-n', '16'];
  const gateway = await startPortkey();
  let servers: Record<string, Llama> = {};
  const start = async (round: number) => {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
    const swap = Math.floor(round / RESTART_EVERY) % 2 === 1;
    const [ta, tb] = swap ? [1, 2] : [2, 1];
    const entries: [string, Weights, number][] = [
      ['busyA', 'stops', ta],
      ['busyB', 'stops', tb],
      ['quietA', 'stops', ta],
      ['quietB', 'stops', tb],
      ['q8_0', 'stopsQ8', 2],
      ['q4_0', 'stopsQ4', 2],
      ['other', 'other', 2],
      // The load-balanced pair's own servers: nothing else's requests are batched with theirs.
      ['lbF16', 'stops', 2],
      ['lbQ4_0', 'stopsQ4', 2],
      ['lbOther', 'other', 2],
    ];
    servers = Object.fromEntries(await Promise.all(entries.map(async ([k, w, t]) => [k, await startLlama(paths, w, MODEL, { threads: t, args: serverArgs })] as const)));
    return { ta, tb };
  };
  const record = (round: number, kind: Kind, threads: number | undefined, run: IdentityRun) =>
    appendFileSync(file, JSON.stringify({ round, kind, threads, at: new Date().toISOString(), cells: run.cells, fingerprint: run.fingerprint }) + '\n');
  const busyRun = async (s: Llama) => {
    const load = busy(s.url);
    try {
      return await runIdentity(s.url, [], 'identity.*', cli);
    } finally {
      await load.stop();
    }
  };
  const first = existsSync(file) ? Math.max(-1, ...readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { round: number }).round)) + 1 : 0;
  let threads = { ta: 2, tb: 1 };
  let forceRestart = false;
  try {
    for (let round = first; Date.now() < until; round++) {
      if ((round - first) % RESTART_EVERY === 0 || forceRestart) {
        forceRestart = false;
        threads = await start(round);
      }
      const { ta, tb } = threads;
      const s = servers;
      const jobs: Promise<void>[] = [busyRun(s.busyA!).then((r) => record(round, 'busy', ta, r)), busyRun(s.busyB!).then((r) => record(round, 'busy', tb, r))];
      if (round % every === 0) {
        const pair = (round / every) % 2 === 0 ? (['lb_q4_0', s.lbQ4_0!] as const) : (['lb_other', s.lbOther!] as const);
        jobs.push(
          runIdentity(s.quietA!.url, [], 'identity.*', cli).then((r) => record(round, 'quiet', ta, r)),
          runIdentity(s.quietB!.url, [], 'identity.*', cli).then((r) => record(round, 'quiet', tb, r)),
          runIdentity(s.q8_0!.url, [], 'identity.*', cli).then((r) => record(round, 'q8_0', 2, r)),
          runIdentity(s.q4_0!.url, [], 'identity.*', cli).then((r) => record(round, 'q4_0', 2, r)),
          runIdentity(s.other!.url, [], 'identity.*', cli).then((r) => record(round, 'other', 2, r)),
          runIdentity(gateway.url, loadBalanceHeaders([s.lbF16!.url, pair[1].url]), 'identity.*', cli).then((r) => record(round, pair[0], undefined, r)),
        );
      }
      const failed = (await Promise.allSettled(jobs)).filter((j) => j.status === 'rejected');
      for (const f of failed) appendFileSync(`${file}.errors`, `round ${round}: ${String((f as PromiseRejectedResult).reason).slice(0, 2000)}\n`);
      // A run that failed (a server gone, a CLI that did not start) counts nowhere; the servers start afresh.
      if (failed.length > 0) forceRestart = true;
      console.error(`round ${round} done${failed.length ? `, ${failed.length} run(s) failed (${file}.errors)` : ''} (${Math.round((until - Date.now()) / 60_000)} min left)`);
    }
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
    await gateway.close();
  }
}

/**
 * `pairs` pairs of whole default audits (every default-tier probe, --concurrency 4), the two of a pair side
 * by side on two F16 servers (-t 2 and -t 1): the fingerprint as users get it, its requests batched with
 * whatever the other probes send meanwhile. Appended to `file` as kind `full`.
 */
async function fullAudits(file: string, pairs: number): Promise<void> {
  const paths = realPaths();
  // Rounds of their own, after any already in the file: a pair is the two runs of one round.
  const done = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { round: number }).round) : [];
  const first = Math.max(99_999, ...done) + 1;
  for (let i = 0; i < pairs; i++) {
    const a = await startLlama(paths, 'stops', MODEL, { threads: 2 });
    const b = await startLlama(paths, 'stops', MODEL, { threads: 1 });
    try {
      const round = first + i;
      const write = (threads: number, run: IdentityRun) =>
        appendFileSync(file, JSON.stringify({ round, kind: 'full', threads, at: new Date().toISOString(), cells: run.cells, fingerprint: run.fingerprint }) + '\n');
      await Promise.all([runIdentity(a.url, [], undefined, cli).then((r) => write(2, r)), runIdentity(b.url, [], undefined, cli).then((r) => write(1, r))]);
      console.error(`full pair ${i} done`);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }
}

function figures(file: string): void {
  const lines = readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  for (const line of analyse(lines)) say(line);
}

try {
  if (!flag('--raw') && !value('--analyse')) {
    if (!existsSync(join(ROOT, 'dist', 'cli.mjs'))) throw new Error('no dist/cli.mjs: npm run build first');
    rmSync(CLI_COPY, { recursive: true, force: true });
    cpSync(join(ROOT, 'dist'), CLI_COPY, { recursive: true });
  }
  if (flag('--raw')) await raw();
  else if (value('--full')) {
    await fullAudits(value('--full')!, Number(value('--pairs') ?? 2));
    figures(value('--full')!);
  } else if (value('--runs')) {
    await runs(value('--runs')!);
    figures(value('--runs')!);
  } else if (value('--analyse')) figures(value('--analyse')!);
  else {
    console.error('usage: npm run calibrate:identity -- --raw [--repeats N] | --runs FILE [--minutes M] [--every N] | --full FILE [--pairs N] | --analyse FILE; [--out FILE]');
    process.exitCode = 2;
  }
  const out = value('--out');
  if (out) writeFileSync(out, lines.join('\n') + '\n');
} finally {
  await stopAll();
  rmSync(CLI_COPY, { recursive: true, force: true });
}
