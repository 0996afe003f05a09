/**
 * The cost rows of the README's benchmark table: what a model costs at each tier, requests and the output
 * tokens they ask for, as the reference server received them from the built CLI (the worst model of the
 * default profile), against what the dry run says (the plan at most). The goal is the tier's own (issue
 * 35: at most 20 requests a model at --tier quick, 80 at the default tier, 50 for the interface audit
 * within it, run alone by naming its probes); a ratio over 1 is what the run sent beyond its plan: a limit
 * sent again to a model that refuses max_tokens, what a refusal sends again (the dry run's resends), room
 * for reasoning.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_REQUESTS, inTier, INTERFACE_REQUESTS, NOT_INTERFACE, QUICK_REQUESTS, TIERS, type Tier } from '../src/engine/probe.js';
import { PROBES } from '../suites/index.js';
import { SMOKE_ANSWER_TOKENS } from '../src/engine/budget.js';
import { loadProfile } from '../src/reference/profiles.js';
import { startReferenceServer, type ReferenceServer } from '../src/reference/server.js';
import { runCommand } from '../test/helpers/cli.js';
import { build, type Measured } from './memory.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli.mjs');
const KEY = 'sk-bench-cost-7f2q';

/** A tier's goal for requests a model (the whole default tier's 80: issue 35), or none. */
const GOALS: Partial<Record<Tier | 'interface', number>> = { quick: QUICK_REQUESTS, default: DEFAULT_REQUESTS, interface: INTERFACE_REQUESTS };

/** The interface audit's probes (the default tier less usage, billing and identity), named for --probes. */
const INTERFACE_PROBES = PROBES.filter((p) => inTier(p, 'default') && p.scope !== 'target' && !NOT_INTERFACE.includes(p.area)).map((p) => p.id);

/**
 * Requests and asked-for tokens per model, from the chat requests the server received (an auth probe's
 * request is refused before its body is read, an unknown model's names no model of the plan).
 */
function received(server: ReferenceServer, models: readonly string[]): { requests: number; tokens: number }[] {
  const per = new Map(models.map((m) => [m, { requests: 0, tokens: 0 }]));
  for (const r of server.received) {
    if (r.path !== '/v1/chat/completions' || r.raw === undefined) continue;
    let body: { model?: string; max_tokens?: number; max_completion_tokens?: number; n?: number };
    try {
      body = JSON.parse(r.raw);
    } catch {
      continue;
    }
    const own = per.get(String(body.model));
    if (!own) continue;
    const limit = Math.max(body.max_tokens ?? 0, body.max_completion_tokens ?? 0);
    own.requests++;
    own.tokens += limit > 0 ? limit * (body.n ?? 1) : SMOKE_ANSWER_TOKENS;
  }
  return [...per.values()];
}

export async function benchCost(): Promise<Measured[]> {
  build();
  const rows: Measured[] = [];
  const env = { OPENAI_API_KEY: KEY };
  for (const tier of [...TIERS, 'interface'] as const) {
    const select = tier === 'interface' ? ['--probes', ...INTERFACE_PROBES] : ['--tier', tier];
    const named = tier === 'interface' ? 'the interface audit (default less usage, billing, identity)' : `--tier ${tier}`;
    const server = await startReferenceServer({ profile: loadProfile('default'), apiKey: KEY, recordBodies: true });
    const out = await mkdtemp(join(tmpdir(), 'chatprobe-bench-cost-'));
    try {
      const dry = await runCommand(process.execPath, [CLI, '--base-url', server.url, '--dry-run', '--json', ...select], env, ROOT);
      if (dry.code !== 0) throw new Error(`the dry run of ${named} failed: ${dry.stderr.slice(-500)}`);
      const plan = JSON.parse(dry.stdout) as { models: { id: string }[]; perModel: { requests: number; maxTokens: number } };
      server.received.length = 0;
      const run = await runCommand(process.execPath, [CLI, '--base-url', server.url, '--out', out, ...select, '--quiet'], env, ROOT);
      if (run.code === 2) throw new Error(`the audit of ${named} failed: ${run.stderr.slice(-500)}`);
      const per = received(server, plan.models.map((m) => m.id));
      const worst = { requests: Math.max(...per.map((p) => p.requests)), tokens: Math.max(...per.map((p) => p.tokens)) };
      const goal = GOALS[tier];
      rows.push({
        name: `requests a model, ${named} (received by the reference server, its worst model of ${per.length})`,
        baseline: 'the dry run (the plan at most)',
        ours: worst.requests,
        base: plan.perModel.requests,
        unit: 'requests',
        goal: { max: goal ?? Number.NaN, absolute: true },
      });
      rows.push({
        name: `max_tokens a model, ${named} (the limits received, summed; room for reasoning included; no goal of its own)`,
        baseline: 'the dry run (the plan at most)',
        ours: worst.tokens,
        base: plan.perModel.maxTokens,
        unit: 'tokens',
        goal: { max: Number.NaN },
      });
    } finally {
      await server.close();
      await rm(out, { recursive: true, force: true });
    }
  }
  return rows;
}
