import { costOfProbes, inTier, QUICK_REQUESTS, resolveCost, TIERS, type Tier } from '../engine/probe.js';
import { costOfTiers } from '../engine/cost.js';
import { PROBES } from '../../suites/index.js';
import { out } from './output.js';

/** Costs are shown at the default --samples. */
const SAMPLES = 4;

export function probesCommand(json: boolean): number {
  const rows = PROBES.map((p) => ({
    id: p.id,
    area: p.area,
    kind: p.kind,
    scope: p.scope ?? 'model',
    tier: p.tier ?? 'default',
    requirement: p.requirement,
    verdicts: [...p.verdicts],
    cost: { ...resolveCost(p.cost, SAMPLES), shared: (p.cost.shared ?? []).map((s) => s.key) },
  }));
  if (json) {
    out(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  const idWidth = Math.max(...rows.map((r) => r.id.length));
  const tierWidth = Math.max(...TIERS.map((t) => t.length));
  for (const r of rows) {
    const shared = r.cost.shared.length > 0 ? ` +${r.cost.shared.length} shared` : '';
    const cost = `${r.cost.requests} req${shared}`;
    out(`${r.id.padEnd(idWidth)}  ${r.kind.padEnd(11)}  ${(r.scope === 'target' ? 'endpoint' : 'model').padEnd(8)}  ${r.tier.padEnd(tierWidth)}  ${cost.padEnd(16)}  ${r.requirement}\n`);
  }
  // Each tier holds the ones before it; shared exchanges are paid once per model, whichever probes read them.
  // Billing calls included: a run leaves them out where no balance route answers.
  const tiers = costOfTiers(PROBES, SAMPLES, true);
  const endpoint = (tier: Tier) => costOfProbes(PROBES.filter((p) => p.scope === 'target' && inTier(p, tier)), SAMPLES);
  out(`\n${rows.length} probes. At most, per model (smoke call, shared exchanges and billing calls included), and once per endpoint:\n`);
  for (const t of tiers) {
    const goal = t.tier === 'quick' ? `  (goal: at most ${QUICK_REQUESTS} requests a model)` : t.tier === 'default' ? '  (without --tier)' : '';
    out(`  --tier ${t.tier.padEnd(tierWidth)}  ${String(t.probes).padStart(3)} model probes  ${String(t.requests).padStart(4)} requests  ${String(t.maxTokens).padStart(5)} max tokens;  endpoint: ${endpoint(t.tier).requests} requests${goal}\n`);
  }
  out(`At --samples ${SAMPLES}; "chatprobe --dry-run" prices a real plan, and says whether it fits --max-requests and --max-tokens.\n`);
  return 0;
}
