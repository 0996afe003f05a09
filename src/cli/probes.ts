import { costOfProbes, DEFAULT_REQUESTS, inTier, INTERFACE_REQUESTS, NOT_INTERFACE, QUICK_REQUESTS, resolveCost, TIERS, type ProbeDefinition, type Tier } from '../engine/probe.js';
import { costOfInterface, costOfTiers } from '../engine/cost.js';
import { PROBES } from '../../suites/index.js';
import { withProbeFiles } from '../pipeline/user-probes.js';
import { wrapText } from '../text.js';
import { cannotTest, out, terminalColumns } from './output.js';
import { AuditFlags } from '../config/options.js';

/** Costs are shown at the default --samples. */
const SAMPLES = AuditFlags.parse({}).samples;

/** One probe as `chatprobe probes` lists it. */
export interface ProbeRow {
  id: string;
  kind: string;
  scope: 'model' | 'target';
  tier: Tier;
  requirement: string;
  cost: { requests: number; shared: string[] };
}

/** Word-wrapped to `width`; a word longer than that (a field path) is cut across lines. */
function wrap(text: string, width: number): string[] {
  return wrapText(text, width).flatMap((l) => (l.length <= width ? [l] : Array.from({ length: Math.ceil(l.length / width) }, (_, i) => l.slice(i * width, (i + 1) * width))));
}

/** Narrower than this, the requirement gets lines of its own under each probe. */
const REQUIREMENT_ROOM = 30;

/**
 * The probe list as text: a header, then a probe a line with its kind, scope, cost and requirement. On a
 * terminal (`columns` given), the requirement is wrapped to its width, in a column of its own when there is
 * room for one, else on lines of its own under each probe; piped, each probe stays on one line (what grep
 * finds is the whole probe).
 */
export function renderProbeList(rows: ProbeRow[], columns?: number): string {
  const cost = (r: ProbeRow) => `${r.cost.requests} req${r.cost.shared.length > 0 ? ` +${r.cost.shared.length} shared` : ''}`;
  const requirement = (r: ProbeRow) => r.requirement;
  const scope = (r: ProbeRow) => (r.scope === 'target' ? 'endpoint' : 'model');
  const cells = rows.map((r) => [r.id, r.kind, scope(r), r.tier, cost(r)]);
  const head = ['probe', 'kind', 'scope', 'tier', 'cost'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((x, i) => x.padEnd(widths[i]!)).join('  ');
  const before = widths.reduce((n, w) => n + w + 2, 0);
  const lines: string[] = [];
  if (columns === undefined || columns - before >= REQUIREMENT_ROOM) {
    const room = columns === undefined ? Infinity : columns - before;
    lines.push(`${line(head)}  requirement`);
    rows.forEach((r, i) => {
      const text = room === Infinity ? [requirement(r)] : wrap(requirement(r), room);
      lines.push(`${line(cells[i]!)}  ${text[0]}`.trimEnd());
      for (const more of text.slice(1)) lines.push(`${' '.repeat(before)}${more}`);
    });
  } else {
    // Too narrow for a column: kind, scope and cost beside the id where they fit, the requirement below.
    const width = Math.max(40, columns);
    const meta = (c: string[]) => `${c[1]}, ${c[2]}, ${c[3]}, ${c[4]}`;
    const idWidth = widths[0]!;
    const beside = Math.max(...cells.map((c) => idWidth + 2 + meta(c).length)) <= width;
    lines.push(beside ? `${'probe'.padEnd(idWidth)}  kind, scope, tier, cost` : 'probe: kind, scope, tier, cost');
    lines.push('    requirement');
    cells.forEach((c, i) => {
      lines.push('');
      if (beside) lines.push(`${c[0]!.padEnd(idWidth)}  ${meta(c)}`);
      else for (const l of wrap(`${c[0]}: ${meta(c)}`, width)) lines.push(l);
      for (const l of wrap(requirement(rows[i]!), width - 4)) lines.push(`    ${l}`);
    });
  }
  return `${lines.join('\n')}\n`;
}

/** `chatprobe probes`: every probe, chatprobe's own then those of the --probe-file files, loaded as an audit loads them. */
export async function probesCommand(json: boolean, probeFiles: readonly string[]): Promise<number> {
  let all: readonly ProbeDefinition[];
  try {
    all = await withProbeFiles(probeFiles);
  } catch (e) {
    return cannotTest(e);
  }
  const rows: (ProbeRow & { area: string; verdicts: string[] })[] = all.map((p) => ({
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
  const columns = terminalColumns();
  out(renderProbeList(rows, columns));
  // Each tier holds the ones before it; shared exchanges are paid once per model, whichever probes read them.
  // Billing calls included: a run leaves them out where no balance route answers.
  const tierWidth = Math.max(...TIERS.map((t) => t.length));
  const tiers = costOfTiers(all, SAMPLES, true);
  const endpoint = (tier: Tier) => costOfProbes(all.filter((p) => p.scope === 'target' && inTier(p, tier)), SAMPLES);
  const fromFiles = all.length > PROBES.length ? ` (${all.length - PROBES.length} of them from --probe-file)` : '';
  out(`\n${rows.length} probes${fromFiles}. At most, per model (smoke call, shared exchanges and billing calls included), and once per endpoint:\n`);
  for (const t of tiers) {
    const goal = t.tier === 'quick' ? `  (goal: at most ${QUICK_REQUESTS} requests a model)` : t.tier === 'default' ? `  (without --tier; goal: at most ${DEFAULT_REQUESTS} requests a model)` : '';
    out(`  --tier ${t.tier.padEnd(tierWidth)}  ${String(t.probes).padStart(3)} model probes  ${String(t.requests).padStart(4)} requests  ${String(t.maxTokens).padStart(5)} max tokens;  endpoint: ${endpoint(t.tier).requests} requests${goal}\n`);
  }
  const i = costOfInterface(all, SAMPLES);
  out(`  of default, the interface audit (all but ${NOT_INTERFACE.map((a) => `${a}.*`).join(', ')}): ${i.requests} requests, ${i.maxTokens} max tokens  (goal: at most ${INTERFACE_REQUESTS} requests a model)\n`);
  const closing = `At --samples ${SAMPLES}; "chatprobe --dry-run" prices a real plan, and says whether it fits --max-requests and --max-tokens.`;
  out(`${(columns === undefined ? [closing] : wrap(closing, Math.max(40, columns))).join('\n')}\n`);
  return 0;
}
