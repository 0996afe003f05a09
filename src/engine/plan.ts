import type { ProbeDefinition } from './probe.js';
import { ENDPOINT } from '../report/model.js';
import { CannotTestError } from './errors.js';
import { isGlob, matchAny } from './glob.js';
import type { ListedModel } from './discover.js';
import { clip } from '../boundary/text.js';

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
}

export interface Plan {
  models: PlannedModel[];
  probes: ProbeDefinition[];
}

/**
 * An unknown probe id or glob is an error that lists the valid ones. Without a filter, every probe but the
 * extended tier; a filter picks what it names, extended or not.
 */
export function selectProbes(all: readonly ProbeDefinition[], filter: readonly string[]): ProbeDefinition[] {
  if (filter.length === 0) return all.filter((p) => p.tier !== 'extended');
  const unknown = filter.filter((f) => !all.some((p) => matchAny(p.id, [f])));
  if (unknown.length > 0) {
    throw new CannotTestError(
      `unknown probe ${unknown.map((u) => JSON.stringify(u)).join(', ')}`,
      `valid probes: ${all.map((p) => p.id).join(', ')}`,
    );
  }
  return all.filter((p) => matchAny(p.id, filter));
}

/** Names come from the live list: a literal name that is not listed is reported and not called. */
export function selectModels(all: readonly ListedModel[], filter: readonly string[], allowUnlisted: boolean): PlannedModel[] {
  // "(endpoint)" names the endpoint row in every report: a model by that name is not audited (models.list warns).
  const listed = all.filter((m) => m.id !== ENDPOINT);
  if (filter.length === 0) return listed.map((entry) => ({ id: entry.id, listed: true, entry, call: true }));
  const chosen: PlannedModel[] = listed
    .filter((m) => matchAny(m.id, filter))
    .map((entry) => ({ id: entry.id, listed: true, entry, call: true }));
  for (const name of filter) {
    if (isGlob(name) || name === ENDPOINT || chosen.some((m) => m.id === name)) continue;
    chosen.push({ id: name, listed: false, entry: undefined, call: allowUnlisted });
  }
  return chosen;
}

export function makePlan(
  listed: readonly ListedModel[],
  selectedProbes: ProbeDefinition[],
  options: { models: readonly string[]; allowUnlisted: boolean },
): Plan {
  const models = selectModels(listed, options.models, options.allowUnlisted);
  if (listed.length === 0 && options.models.length === 0) {
    throw new CannotTestError('GET /models listed no model', 'name models with --models and --allow-unlisted, or check the token');
  }
  if (models.length === 0) {
    throw new CannotTestError(
      `no listed model matches --models ${options.models.join(' ')}`,
      listedHint(listed),
    );
  }
  return { models, probes: selectedProbes };
}
