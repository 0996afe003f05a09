import { inTier, type ProbeDefinition, type Tier } from './probe.js';
import { ENDPOINT } from '../results/model.js';
import { CannotTestError } from '../errors.js';
import { isGlob, matchAny } from '../glob.js';
import { clip } from '../text.js';

/** A GET /models entry as the plan reads it (engine/discover.ts readModelList). */
export interface ListedModel {
  id: string;
  ownedBy: string | undefined;
  /** Keys beyond the standard four, kept for declared-vs-observed (supported_parameters, max_model_len, …). */
  declared: Record<string, unknown> | undefined;
}

/**
 * Listed models a "no match" hint names, each cut to HINT_ID_CHARS: the hint is read in a terminal, and the
 * server chooses how many ids it lists and how long they are (100,000 ids made a 900 KB hint).
 */
export const HINT_MODELS = 20;
const HINT_ID_CHARS = 80;

/** The first HINT_MODELS ids of the list, and how many more there are. */
export function listedHint(listed: readonly ListedModel[]): string {
  const shown = listed.slice(0, HINT_MODELS).map((m) => clip(m.id, HINT_ID_CHARS));
  const rest = listed.length - shown.length;
  return `listed models: ${shown.join(', ')}${rest > 0 ? ` and ${rest} more (GET /models lists them all)` : ''}`;
}

export interface PlannedModel {
  id: string;
  listed: boolean;
  entry: ListedModel | undefined;
  /** False for a named model that is not listed (and --allow-unlisted not given): reported, never called. */
  call: boolean;
  /** For a named model that is not listed: the listed ids closest to its name (a typo's likely meaning). */
  closest?: string[];
}

/** How many of the closest listed ids a "not listed" message names. */
export const CLOSEST_IDS = 5;

/**
 * Edit distance between two ids (insertions, deletions, substitutions), compared case-insensitively, each
 * cut to HINT_ID_CHARS: the server chooses how long its ids are and how many it lists.
 */
function distance(a: string, b: string): number {
  const x = a.slice(0, HINT_ID_CHARS).toLowerCase();
  const y = b.slice(0, HINT_ID_CHARS).toLowerCase();
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[y.length]!;
}

/** The listed ids closest to `name` by edit distance, nearest first (ties in list order), at most `n`. */
export function closestIds(name: string, listed: readonly ListedModel[], n = CLOSEST_IDS): string[] {
  const best: { id: string; d: number }[] = [];
  for (const m of listed) {
    const d = distance(name, m.id);
    if (best.length === n && d >= best[n - 1]!.d) continue;
    let at = best.findIndex((b) => d < b.d);
    if (at < 0) at = best.length;
    best.splice(at, 0, { id: m.id, d });
    if (best.length > n) best.pop();
  }
  return best.map((b) => clip(b.id, HINT_ID_CHARS));
}

export interface Plan {
  models: PlannedModel[];
  probes: ProbeDefinition[];
}

/**
 * The probes a run selects. An unknown probe id or glob is an error that lists the valid ones. Without a
 * filter, the probes of `tier` (default: the default tier, which leaves the extended one out); a filter
 * picks what it names, whatever its tier, unless a tier is given too: then only those of that tier, and
 * an error if that leaves none.
 */
export function selectProbes(all: readonly ProbeDefinition[], filter: readonly string[], tier?: Tier): ProbeDefinition[] {
  if (filter.length === 0) return all.filter((p) => inTier(p, tier ?? 'default'));
  const unknown = filter.filter((f) => !all.some((p) => matchAny(p.id, [f])));
  if (unknown.length > 0) {
    throw new CannotTestError(
      `unknown probe ${unknown.map((u) => JSON.stringify(u)).join(', ')}`,
      `valid probes: ${all.map((p) => p.id).join(', ')}`,
    );
  }
  const named = all.filter((p) => matchAny(p.id, filter));
  if (tier === undefined) return named;
  const chosen = named.filter((p) => inTier(p, tier));
  if (chosen.length === 0) {
    throw new CannotTestError(
      `no probe of --tier ${tier} matches --probes ${filter.join(' ')}`,
      `they are of a larger tier (${[...new Set(named.map((p) => p.tier ?? 'default'))].join(', ')}): leave out --tier to run them, or name a larger one`,
    );
  }
  return chosen;
}

/**
 * Names come from the live list: a literal name that is not listed is reported and not called, unless
 * --allow-unlisted calls it on purpose. A name the baseline expects (`expected`) and the list lacks is left
 * out of the plan: the judgement reports it as a model gone missing, a regression, as it does an unnamed one.
 */
export function selectModels(all: readonly ListedModel[], filter: readonly string[], allowUnlisted: boolean, expected?: ReadonlySet<string>): PlannedModel[] {
  // "(endpoint)" names the endpoint row in every report: a model by that name is not audited (models.list warns).
  const listed = all.filter((m) => m.id !== ENDPOINT);
  if (filter.length === 0) return listed.map((entry) => ({ id: entry.id, listed: true, entry, call: true }));
  const chosen: PlannedModel[] = listed
    .filter((m) => matchAny(m.id, filter))
    .map((entry) => ({ id: entry.id, listed: true, entry, call: true }));
  for (const name of filter) {
    if (isGlob(name) || name === ENDPOINT || chosen.some((m) => m.id === name)) continue;
    if (allowUnlisted) chosen.push({ id: name, listed: false, entry: undefined, call: true });
    else if (!expected?.has(name)) chosen.push({ id: name, listed: false, entry: undefined, call: false, closest: closestIds(name, listed) });
  }
  return chosen;
}

/** "closest listed to gpt-nope: gpt-4o, gpt-4o-mini" for each name, or the first listed ids when none is named. */
function closestHint(unknown: readonly PlannedModel[], listed: readonly ListedModel[]): string {
  if (listed.length === 0) return 'GET /models listed no model';
  const each = unknown.map((m) => `closest listed to ${clip(m.id, HINT_ID_CHARS)}: ${(m.closest ?? []).join(', ')}`);
  return `${each.join('; ')} (of ${listed.length} listed); --allow-unlisted calls a name the list lacks`;
}

/**
 * The plan, or exit 2 when it leaves nothing to test (README, exit codes): no model listed and none named;
 * globs that match no listed model; named models none of which is listed (a typo, or the wrong gateway),
 * each with the closest listed ids. A run that tests some models and names one the list lacks goes on:
 * that name is a row that could not be tested (exit 1), its closest ids in its advice. A name the baseline
 * expects is never "nothing to test": a model gone from the list is a regression the run must report.
 */
export function makePlan(
  listed: readonly ListedModel[],
  selectedProbes: ProbeDefinition[],
  options: { models: readonly string[]; allowUnlisted: boolean; expected?: ReadonlySet<string> | undefined },
): Plan {
  const models = selectModels(listed, options.models, options.allowUnlisted, options.expected);
  if (listed.length === 0 && options.models.length === 0) {
    throw new CannotTestError('GET /models listed no model', 'name models with --models and --allow-unlisted, or check the token');
  }
  const expectedGone = options.models.some((name) => !isGlob(name) && options.expected?.has(name) && !listed.some((m) => m.id === name));
  if (models.some((m) => m.call) || expectedGone) return { models, probes: selectedProbes };
  const unknown = models.filter((m) => !m.call);
  if (unknown.length > 0) {
    const names = unknown.map((m) => clip(m.id, HINT_ID_CHARS)).join(', ');
    throw new CannotTestError(`--models names ${names}, which GET /models does not list: no model to test`, closestHint(unknown, listed));
  }
  throw new CannotTestError(`no listed model matches --models ${options.models.join(' ')}`, listedHint(listed));
}

/**
 * One shard of the plan: the models at positions i-1, i-1+n, … of the plan's order, so the split is
 * deterministic for a given model list. Endpoint probes run in shard 1 only.
 */
export function shardPlan(plan: Plan, shard: { index: number; count: number }): Plan {
  return {
    models: plan.models.filter((_, k) => k % shard.count === shard.index - 1),
    probes: shard.index === 1 ? plan.probes : plan.probes.filter((p) => p.scope !== 'target'),
  };
}
