import { costOfProbes, resolveCost, type ProbeDefinition } from '../engine/probe.js';
import { PROBES } from '../../suites/index.js';
import { withProbeFiles } from '../pipeline/user-probes.js';
import { cannotTest, out } from './output.js';

/** Costs are shown at the default --samples. */
const SAMPLES = 4;

/** `chatprobe probes`: every probe, chatprobe's own then those of the --probe-file files, loaded as an audit loads them. */
export async function probesCommand(json: boolean, probeFiles: readonly string[]): Promise<number> {
  let all: readonly ProbeDefinition[];
  try {
    all = await withProbeFiles(probeFiles);
  } catch (e) {
    return cannotTest(e);
  }
  const rows = all.map((p) => ({
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
  for (const r of rows) {
    const shared = r.cost.shared.length > 0 ? ` +${r.cost.shared.length} shared` : '';
    const cost = `${r.cost.requests} req${shared}`;
    const tier = r.tier === 'extended' ? '(extended tier) ' : '';
    out(`${r.id.padEnd(idWidth)}  ${r.kind.padEnd(11)}  ${(r.scope === 'target' ? 'endpoint' : 'model').padEnd(8)}  ${cost.padEnd(16)}  ${tier}${r.requirement}\n`);
  }
  const chosen = all.filter((p) => p.tier !== 'extended');
  const model = costOfProbes(chosen.filter((p) => p.scope !== 'target'), SAMPLES);
  // What naming them adds to the default selection: shared exchanges both read are paid once.
  const every = costOfProbes(all.filter((p) => p.scope !== 'target'), SAMPLES);
  const extended = { requests: every.requests - model.requests };
  const endpoint = costOfProbes(all.filter((p) => p.scope === 'target'), SAMPLES);
  out(
    `\n${rows.length} probes${all.length > PROBES.length ? ` (${all.length - PROBES.length} of them from --probe-file)` : ''}. Per model, by default: at most ${model.requests + 1} requests (smoke call, shared exchanges and billing calls included), ${model.maxTokens + 2} max tokens; ` +
      `the extended tier adds ${extended.requests}; once per endpoint: ${endpoint.requests} requests. At --samples ${SAMPLES}; "chatprobe --dry-run" prices a real plan.\n`,
  );
  return 0;
}
