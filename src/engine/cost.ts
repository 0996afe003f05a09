import type { Report } from '../results/model.js';
import type { Plan, PlannedModel } from './plan.js';
import { costBeyondPlan, costOfProbes, inTier, NOT_INTERFACE, TIERS, type ProbeDefinition, type Tier } from './probe.js';
import { SMOKE_ANSWER_TOKENS, type SpendingCaps } from './budget.js';
import { Cap, countsRequests, perModelCap } from '../results/budget.js';
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
  /**
   * Requests a model's refusals may send again beyond `perModel` (costBeyondPlan): the rest of what was sent
   * together without the part refused, the counting request without temperature. None where the server
   * takes what it is sent.
   */
  resends: number;
  /**
   * Requests a model whose decoding repeats neither at temperature 0 nor with a seed may send beyond `perModel`
   * (costBeyondPlan): the contrasts' further answers, which the chance bound needs where one answer a
   * side cannot decide (suites/support/repeat.ts). None where temperature 0 repeats.
   */
  unrepeatable: number;
  /** The balance route the billing probes read, or why they do not run. */
  billing: Report['billing'];
  total: { requests: number; maxTokens: number };
  /**
   * What room for reasoning may add, beyond `maxTokens`, on a model whose smoke call shows reasoning
   * (engine/room.ts): at most `perRequest` on each of its requests but the smoke call; `total` if every
   * model called reasons. Unknown before the smoke calls: a bound, not an estimate.
   */
  reasoningRoom: { perRequest: number; perModel: number; total: number };
  /**
   * What one model costs at each tier (--tier), its smoke call included, whatever --probes picks: the
   * catalogue's probes of that tier, less the billing probes when billing is not audited.
   */
  tiers: { tier: Tier; probes: number; requests: number; maxTokens: number }[];
  /** What one model costs for the interface audit (costOfInterface), against its goal INTERFACE_REQUESTS. */
  interface: { probes: number; requests: number; maxTokens: number };
  /** Each spending cap given, what the plan needs of it at most, and whether that fits (capFits). */
  caps: CapFit[];
}

/**
 * A spending cap against the plan: what the plan needs of it at most (the whole run's, or one model's),
 * and whether that fits. Beyond the plan, a run may send retries (a 429, a 5xx tried once more), the
 * limit sent again under max_completion_tokens to a model that refuses max_tokens, what a refusal sends
 * again (`resends`: the rest of what was sent together, the counting request without temperature), the
 * contrasts' further answers to a model whose decoding does not repeat (`unrepeatable`), and the smoke
 * call's capped second try; and a model that reasons asks for `room` more tokens at most. The caps count those
 * too: `fits` is the plan's count alone, `fitsWithRoom` adds the room.
 */
export interface CapFit {
  cap: Cap;
  limit: number;
  needs: number;
  fits: boolean;
  /** For a token cap: the room for reasoning that may come on top (every model reasoning). */
  room?: number;
  fitsWithRoom?: boolean;
}

/** Each cap given against what the plan needs (pure). */
export function capFits(caps: SpendingCaps, cost: Pick<PlanSummary, 'perModel' | 'total' | 'reasoningRoom'>): CapFit[] {
  const out: CapFit[] = [];
  for (const cap of Cap.options) {
    const limit = caps[cap];
    if (limit === undefined) continue;
    const of = perModelCap(cap) ? cost.perModel : cost.total;
    const needs = countsRequests(cap) ? of.requests : of.maxTokens;
    const fit: CapFit = { cap, limit, needs, fits: needs <= limit };
    if (!countsRequests(cap)) {
      fit.room = perModelCap(cap) ? cost.reasoningRoom.perModel : cost.reasoningRoom.total;
      fit.fitsWithRoom = needs + fit.room <= limit;
    }
    out.push(fit);
  }
  return out;
}

/**
 * What one model costs at each tier, its smoke call included: the probes of `all` in that tier, model
 * scope, less those that read the balance when `billing` is off.
 */
export function costOfTiers(all: readonly ProbeDefinition[], samples: number, billing: boolean): PlanSummary['tiers'] {
  return TIERS.map((tier) => {
    const probes = all.filter((p) => inTier(p, tier) && p.scope !== 'target' && (billing || !p.meter));
    const own = costOfProbes(probes, samples);
    return { tier, probes: probes.length, requests: own.requests + 1, maxTokens: own.maxTokens + SMOKE_ANSWER_TOKENS };
  });
}

/**
 * What the interface audit costs one model, its smoke call included: the default tier's model probes of
 * `all` outside NOT_INTERFACE's areas, each shared exchange they read counted once.
 */
export function costOfInterface(all: readonly ProbeDefinition[], samples: number): { probes: number; requests: number; maxTokens: number } {
  const probes = all.filter((p) => inTier(p, 'default') && p.scope !== 'target' && !NOT_INTERFACE.includes(p.area));
  const own = costOfProbes(probes, samples);
  return { probes: probes.length, requests: own.requests + 1, maxTokens: own.maxTokens + SMOKE_ANSWER_TOKENS };
}

/** What a plan costs at a given --samples: per area, the endpoint probes, one model, the whole run. */
export function costOfPlan(plan: Plan, samples: number): Pick<PlanSummary, 'perArea' | 'endpoint' | 'perModel' | 'resends' | 'unrepeatable' | 'total' | 'reasoningRoom'> {
  const modelProbes = plan.probes.filter((p) => p.scope !== 'target');
  const areas = [...new Set(modelProbes.map((p) => p.area))];
  const perArea = areas.map((area) => {
    const subset = modelProbes.filter((p) => p.area === area);
    return { area, probes: subset.length, ...costOfProbes(subset, samples) };
  });
  const targetProbes = plan.probes.filter((p) => p.scope === 'target');
  const endpoint = { probes: targetProbes.length, ...costOfProbes(targetProbes, samples) };
  const own = costOfProbes(modelProbes, samples);
  // The smoke call sends no limit; its one-word answer counts as 2 tokens (as the spending caps count it).
  const perModel = { requests: own.requests + 1, maxTokens: own.maxTokens + SMOKE_ANSWER_TOKENS };
  const called = plan.models.filter((m) => m.call).length;
  const total = {
    requests: 1 + endpoint.requests + called * perModel.requests,
    maxTokens: endpoint.maxTokens + called * perModel.maxTokens,
  };
  // Room for reasoning goes only to models whose smoke call shows it, at most ROOM_CAP a request: counted
  // on every request but the smoke call (those sent as written, the limit and billing probes', included).
  const roomPerModel = own.requests * ROOM_CAP;
  const reasoningRoom = { perRequest: ROOM_CAP, perModel: roomPerModel, total: called * roomPerModel };
  return { perArea, endpoint, perModel, resends: costBeyondPlan(modelProbes, 'resends'), unrepeatable: costBeyondPlan(modelProbes, 'unrepeatable'), total, reasoningRoom };
}
