import type { Report } from '../results/model.js';
import type { Plan, PlannedModel } from './plan.js';
import { costOfProbes, type ProbeDefinition } from './probe.js';
import { ROOM_CAP } from './room.js';

/** --dry-run's answer: the plan and what it costs at most, before anything is sent but discovery's GETs. */
export interface PlanSummary {
  baseUrl: string;
  models: PlannedModel[];
  probes: ProbeDefinition[];
  /** Per area, what one model costs (shared exchanges counted once); endpoint probes run once in all. */
  perArea: { area: string; probes: number; requests: number; maxTokens: number }[];
  endpoint: { probes: number; requests: number; maxTokens: number };
  /** One model's whole cost: its smoke call and every model-scope probe. */
  perModel: { requests: number; maxTokens: number };
  /** The balance route the billing probes read, or why they do not run. */
  billing: Report['billing'];
  total: { requests: number; maxTokens: number };
  /**
   * What room for reasoning may add, beyond `maxTokens`, on a model whose smoke call shows reasoning
   * (engine/room.ts): at most `perRequest` on each of its requests but the smoke call; `total` if every
   * model called reasons. Unknown before the smoke calls: a bound, not an estimate.
   */
  reasoningRoom: { perRequest: number; perModel: number; total: number };
}

/** What a plan costs at a given --samples: per area, the endpoint probes, one model, the whole run. */
export function costOfPlan(plan: Plan, samples: number): Pick<PlanSummary, 'perArea' | 'endpoint' | 'perModel' | 'total' | 'reasoningRoom'> {
  const modelProbes = plan.probes.filter((p) => p.scope !== 'target');
  const areas = [...new Set(modelProbes.map((p) => p.area))];
  const perArea = areas.map((area) => {
    const subset = modelProbes.filter((p) => p.area === area);
    return { area, probes: subset.length, ...costOfProbes(subset, samples) };
  });
  const targetProbes = plan.probes.filter((p) => p.scope === 'target');
  const endpoint = { probes: targetProbes.length, ...costOfProbes(targetProbes, samples) };
  const own = costOfProbes(modelProbes, samples);
  // The smoke call sends no limit; its one-word answer counts as 2 tokens.
  const perModel = { requests: own.requests + 1, maxTokens: own.maxTokens + 2 };
  const called = plan.models.filter((m) => m.call).length;
  const total = {
    requests: 1 + endpoint.requests + called * perModel.requests,
    maxTokens: endpoint.maxTokens + called * perModel.maxTokens,
  };
  // Room for reasoning goes only to models whose smoke call shows it, at most ROOM_CAP a request: counted
  // on every request but the smoke call (those sent as written, the limit and billing probes', included).
  const roomPerModel = own.requests * ROOM_CAP;
  const reasoningRoom = { perRequest: ROOM_CAP, perModel: roomPerModel, total: called * roomPerModel };
  return { perArea, endpoint, perModel, total, reasoningRoom };
}
