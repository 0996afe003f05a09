import { z } from 'zod';
import type { ModelPrice, PriceList } from '../engine/prices.js';
import type { Meter } from '../engine/meter.js';
import type { Exchange } from '../engine/exchange.js';
import { VERSION } from '../version.js';

/**
 * A price list (--prices): what each model costs, so that each billed call's deduction can be set beside
 * what the list says it should cost for the model asked and the tokens the endpoint reported. Three forms
 * are read:
 * - chatprobe's own: US dollars per million prompt and completion tokens (the way providers publish
 *   prices), a fee per call, and the gateway's quota unit;
 * - new-api's ratio settings (ModelRatio, CompletionRatio, ModelPrice, GroupRatio: the JSON its console's
 *   ratio page holds, each map as an object or as the JSON text new-api keeps it in);
 * - new-api's GET /api/pricing answer, as saved from the gateway (`data` with model_ratio,
 *   completion_ratio, model_price and quota_type per model, and `group_ratio`).
 * new-api bills (prompt + completion × completion ratio) × model ratio × group ratio quota units, or a
 * model price × group ratio dollars per call, at 500,000 quota units to the dollar by default.
 */

/** new-api's QuotaPerUnit (and one-api's): quota units to the US dollar, unless the gateway changed it. */
export const NEW_API_QUOTA_PER_USD = 500_000;

const price = z.number().min(0);
const quotaPerUsd = z.number().positive().describe("The gateway's quota units to the US dollar (new-api and one-api: 500,000, their QuotaPerUnit); used only where the balance is read in quota units");
const group = z.string().describe('The group of the key (new-api): which entry of GroupRatio applies; default "default"');

const OwnModel = z
  .object({
    input: price.default(0).describe('US dollars per million prompt tokens'),
    output: price.default(0).describe('US dollars per million completion tokens (reasoning tokens included)'),
    perCall: price.default(0).describe('US dollars per call, on top of the token prices'),
  })
  .strict();

export const OwnPrices = z
  .object({
    $schema: z.string().optional().describe('The JSON Schema of this file, for editors: ignored by chatprobe'),
    quotaPerUsd: quotaPerUsd.default(NEW_API_QUOTA_PER_USD),
    groupRatio: z.number().positive().default(1).describe("What every price is multiplied by for this key (new-api's group ratio); default 1"),
    models: z.record(z.string(), OwnModel).describe('Model id, exactly as the calls name it → its prices'),
  })
  .strict()
  .describe("chatprobe's own form: US dollars per million tokens");

/** new-api keeps each ratio map as JSON text in its options; its console shows and takes them so. */
const ratioMap = z.union([z.record(z.string(), price), z.string()]);

export const NewApiRatios = z
  .object({
    $schema: z.string().optional(),
    ModelRatio: ratioMap.describe('Model → model ratio: quota units per prompt token'),
    CompletionRatio: ratioMap.optional().describe('Model → completion ratio: a completion token costs this many prompt tokens (a model not named: 1)'),
    ModelPrice: ratioMap.optional().describe('Model → US dollars per call (new-api bills these models per call, whatever their tokens)'),
    GroupRatio: z.union([z.number().positive(), ratioMap]).optional().describe('Group → group ratio, or the key group\'s ratio alone (default 1)'),
    group: group.optional(),
    quotaPerUsd: quotaPerUsd.optional(),
  })
  .loose()
  .describe("new-api's ratio settings (the other options of an export are ignored)");

export const NewApiPricing = z
  .object({
    data: z.array(
      z
        .object({
          model_name: z.string(),
          /** 0: per token (model_ratio, completion_ratio); 1: per call (model_price). */
          quota_type: z.number().int().default(0),
          model_ratio: price.optional(),
          completion_ratio: price.optional(),
          model_price: price.optional(),
        })
        .loose(),
    ),
    group_ratio: z.record(z.string(), price).optional(),
    group: group.optional(),
    quotaPerUsd: quotaPerUsd.optional(),
  })
  .loose()
  .describe("new-api's GET /api/pricing answer, as saved");

/** Every form, for editors (schema/prices.schema.json). */
export const PriceFile = z.union([OwnPrices, NewApiRatios, NewApiPricing]);

export const PRICES_SCHEMA_URL = `https://unpkg.com/chatprobe@${VERSION}/schema/prices.schema.json`;

/** The JSON Schema of a price file, generated from these models (npm run schema). */
export function pricesJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(PriceFile, { io: 'input' }) as Record<string, unknown>;
  return { ...schema, $id: PRICES_SCHEMA_URL, title: 'chatprobe price list (--prices)' };
}

const obj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The first problem zod found, as a path and its message. */
function problem(e: z.ZodError): string {
  const issue = e.issues[0]!;
  const at = issue.path.length > 0 ? issue.path.map(String).join('.') : 'the file';
  return `${at}: ${issue.message}`;
}

/** A ratio map as written (object, or new-api's JSON text). */
function mapOf(v: unknown, key: string): Record<string, number> {
  if (v === undefined) return {};
  let parsed: unknown = v;
  if (typeof v === 'string') {
    try {
      parsed = JSON.parse(v);
    } catch {
      throw new Error(`${key}: a string that is not JSON (new-api keeps the map as JSON text: {"model": ratio, …})`);
    }
  }
  const checked = z.record(z.string(), price).safeParse(parsed);
  if (!checked.success) throw new Error(`${key}: ${problem(checked.error)}`);
  return checked.data;
}

/** The key group's ratio: the number given, the named group's entry, "default", or the only one. */
function groupRatioOf(given: number | Record<string, number> | undefined, name: string | undefined, key: string): number {
  if (given === undefined) return 1;
  if (typeof given === 'number') return given;
  const g = name ?? 'default';
  if (given[g] !== undefined) return given[g];
  const groups = Object.keys(given);
  if (name === undefined && groups.length === 1) return given[groups[0]!]!;
  throw new Error(`${key} names no group "${g}" (it has ${groups.join(', ') || 'none'}): say which group the key is in with "group"`);
}

/** A ratio as US dollars per token. */
const perToken = (ratio: number, qpu: number) => ratio / qpu;

/**
 * Reads a price file's JSON into a price list; throws an Error whose message says what is wrong, in our
 * words (`from`: the path, as the report will name the list).
 */
export function readPriceList(raw: unknown, from: string): PriceList {
  if (!obj(raw)) throw new Error('not a JSON object');
  if ('models' in raw) {
    const p = OwnPrices.safeParse(raw);
    if (!p.success) throw new Error(problem(p.error));
    const models: Record<string, ModelPrice> = {};
    for (const [id, m] of Object.entries(p.data.models)) models[id] = { input: m.input / 1e6, output: m.output / 1e6, perCall: m.perCall };
    return { from, form: 'chatprobe', quotaPerUsd: p.data.quotaPerUsd, groupRatio: p.data.groupRatio, models };
  }
  if ('ModelRatio' in raw) {
    const p = NewApiRatios.safeParse(raw);
    if (!p.success) throw new Error(problem(p.error));
    const qpu = p.data.quotaPerUsd ?? NEW_API_QUOTA_PER_USD;
    const ratio = mapOf(p.data.ModelRatio, 'ModelRatio');
    const completion = mapOf(p.data.CompletionRatio, 'CompletionRatio');
    const perCall = mapOf(p.data.ModelPrice, 'ModelPrice');
    const g = p.data.GroupRatio;
    const groupRatio = groupRatioOf(typeof g === 'number' || g === undefined ? g : mapOf(g, 'GroupRatio'), p.data.group, 'GroupRatio');
    const models: Record<string, ModelPrice> = {};
    for (const [id, r] of Object.entries(ratio)) {
      models[id] = { input: perToken(r, qpu), output: perToken(r * (completion[id] ?? 1), qpu), perCall: 0, ...(completion[id] === undefined ? { outputGuessed: true as const } : {}) };
    }
    // new-api bills a model with a fixed price per call, whatever its ratio says.
    for (const [id, usd] of Object.entries(perCall)) models[id] = { input: 0, output: 0, perCall: usd };
    return { from, form: 'new-api ratios', quotaPerUsd: qpu, groupRatio, models };
  }
  if (Array.isArray(raw.data)) {
    const p = NewApiPricing.safeParse(raw);
    if (!p.success) throw new Error(problem(p.error));
    const qpu = p.data.quotaPerUsd ?? NEW_API_QUOTA_PER_USD;
    const models: Record<string, ModelPrice> = {};
    for (const m of p.data.data) {
      models[m.model_name] =
        m.quota_type === 1
          ? { input: 0, output: 0, perCall: m.model_price ?? 0 }
          : { input: perToken(m.model_ratio ?? 0, qpu), output: perToken((m.model_ratio ?? 0) * (m.completion_ratio ?? 1), qpu), perCall: 0 };
    }
    return { from, form: 'new-api pricing', quotaPerUsd: qpu, groupRatio: groupRatioOf(p.data.group_ratio, p.data.group, 'group_ratio'), models };
  }
  throw new Error('not a price list: expected "models" (chatprobe\'s form), "ModelRatio" (new-api\'s ratio settings) or a "data" list (new-api\'s GET /api/pricing)');
}

/** How many of the balance's unit make a US dollar, or undefined for a unit prices cannot be set beside. */
function perUsd(unit: string, list: PriceList): number | undefined {
  if (unit === 'USD') return 1;
  if (unit === 'US cents') return 100;
  if (unit === 'quota units') return list.quotaPerUsd;
  return undefined;
}

/** What the list says a call costs, in the balance's unit. */
export function listedCost(list: PriceList, p: ModelPrice, usage: { prompt: number; completion: number }, unit: string): number | undefined {
  const factor = perUsd(unit, list);
  if (factor === undefined) return undefined;
  // Twelve digits: the float noise of prices per token (a ratio over 500,000) is no part of a price.
  return Number(((usage.prompt * p.input + usage.completion * p.output + p.perCall) * list.groupRatio * factor).toPrecision(12));
}

/** How far a deduction may stray from an exact figure: the meter's step, and 2% for rounding in the gateway's prices. */
export function tolerance(step: number, ...amounts: number[]): number {
  return Math.max(step, 0.02 * Math.max(...amounts.map(Math.abs)), 1e-12);
}

/**
 * How far a deduction may stray from another model's price for that model to be named: the meter's step
 * (new-api rounds each charge to whole quota units) and 0.1% for float noise, no more. The 2% of
 * `tolerance` would let one of a few hundred listed models match almost any deduction by chance.
 */
export function exactly(step: number, ...amounts: number[]): number {
  return Math.max(step, 0.001 * Math.max(...amounts.map(Math.abs)), 1e-12);
}

/**
 * A call beside the list: what it should have cost and whether it did; `pricedAs`: the other models whose
 * price for the call's tokens is the deduction exactly (`exactly`), and `near`, how many others are within
 * `tolerance` of it. Which of them, if any, the set was billed as is priced-as.ts's to say, from every call.
 */
export type Priced = { missing: string } | { expected: number; matches: boolean; pricedAs?: string[]; near?: number };

/**
 * One billed call beside the price list: undefined when there is nothing to price (the refused call, a
 * call that failed or reported no usage), `missing` when the list cannot say.
 */
export function priceCall(list: PriceList, model: string, c: { label: string; x: Exchange; deducted: number }, meter: Pick<Meter, 'unit' | 'step'>): Priced | undefined {
  if (c.label === 'failed' || !c.x.ok || !c.x.usage) return undefined;
  const usage = { prompt: c.x.usage.promptTokens, completion: c.x.usage.completionTokens };
  const own = list.models[model];
  if (!own) return { missing: `the price list (${list.from}) names no price for ${model}` };
  const expected = listedCost(list, own, usage, meter.unit);
  if (expected === undefined) return { missing: `a balance in ${meter.unit} cannot be set beside prices in US dollars` };
  const near = (cost: number) => Math.abs(c.deducted - cost) <= tolerance(meter.step, cost, c.deducted);
  if (near(expected)) return { expected, matches: true };
  // Nothing billed matches every free model: no model's price is told by it.
  if (c.deducted <= 0) return { expected, matches: false };
  const others = Object.entries(list.models)
    .filter(([id]) => id !== model)
    .map(([id, p]) => ({ id, cost: listedCost(list, p, usage, meter.unit)! }))
    .filter((o) => near(o.cost));
  const exact = others.filter((o) => Math.abs(c.deducted - o.cost) <= exactly(meter.step, o.cost, c.deducted)).map((o) => o.id).sort();
  return exact.length > 0 ? { expected, matches: false, pricedAs: exact, near: others.length } : { expected, matches: false };
}
