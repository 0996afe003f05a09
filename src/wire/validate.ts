import { Ajv2020, type ValidateFunction, type ErrorObject } from 'ajv/dist/2020.js';
import * as schemas from './schemas.js';
import { clip } from '../text.js';
import { setOwn } from '../own.js';

export type Shape = 'completion' | 'chunk' | 'modelList' | 'error';
export type Tier = 'lenient' | 'strict';

export interface Deviation {
  tier: Tier;
  /** JSON pointer into the body, e.g. `/choices/0/finish_reason`. */
  path: string;
  message: string;
}

const sources: Record<Shape, Record<Tier, Record<string, unknown>>> = {
  completion: { lenient: schemas.completionLenient, strict: schemas.completionStrict },
  chunk: { lenient: schemas.chunkLenient, strict: schemas.chunkStrict },
  modelList: { lenient: schemas.modelListLenient, strict: schemas.modelListStrict },
  error: { lenient: schemas.errorLenient, strict: schemas.errorStrict },
};

let ajv: Ajv2020 | undefined;
/** Stops at the first deviation: whether a body fits is known without listing a million deviations. */
let firstOnly: Ajv2020 | undefined;
const compiled: Partial<Record<Shape, Record<Tier, ValidateFunction>>> = {};
const compiledFirst: Partial<Record<Shape, Record<Tier, ValidateFunction>>> = {};

/** One validator per shape and tier, each compiled the first time it is needed: start-up compiles none. */
function validators(shape: Shape): Record<Tier, ValidateFunction> {
  ajv ??= new Ajv2020({ allErrors: true, strict: false });
  const a = ajv;
  return (compiled[shape] ??= { lenient: a.compile(sources[shape].lenient), strict: a.compile(sources[shape].strict) });
}

function firstValidators(shape: Shape): Record<Tier, ValidateFunction> {
  firstOnly ??= new Ajv2020({ allErrors: false, strict: false });
  const a = firstOnly;
  return (compiledFirst[shape] ??= { lenient: a.compile(sources[shape].lenient), strict: a.compile(sources[shape].strict) });
}

/** A JSON Schema validator compiled on its first call (tool arguments, structured answers). */
export function lazyValidator(schema: Record<string, unknown>): (value: unknown) => { ok: boolean; errors: ErrorObject[] } {
  let validate: ValidateFunction | undefined;
  return (value) => {
    ajv ??= new Ajv2020({ allErrors: true, strict: false });
    validate ??= ajv.compile(schema);
    const ok = validate(value);
    return { ok, errors: ok ? [] : [...(validate.errors ?? [])] };
  };
}

/** Deviations listed at most: the probes show six. */
export const MAX_DEVIATIONS = 32;
/** Entries of each array listed deviations are looked for in (whether the body fits at all is checked whole). */
export const LISTED_ITEMS = 256;
/** Characters of a deviation's path and message: a key a megabyte long is not a megabyte of finding. */
const MAX_DEVIATION_CHARS = 200;

function describe(tier: Tier, e: ErrorObject): Deviation {
  const path = e.instancePath || '/';
  let message: string;
  switch (e.keyword) {
    case 'required':
      message = `missing required field "${(e.params as { missingProperty: string }).missingProperty}"`;
      break;
    case 'const':
      message = `expected ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}`;
      break;
    default:
      message = e.message ?? e.keyword;
  }
  return { tier, path: clip(path, MAX_DEVIATION_CHARS), message: clip(message, MAX_DEVIATION_CHARS) };
}

/**
 * Lenient deviations first; the strict tier is only checked where the lenient one holds, to avoid echoes.
 * Bounded whatever the body: whether it fits is checked whole, stopping at the first deviation; the
 * deviations listed (MAX_DEVIATIONS at most) are looked for in the first LISTED_ITEMS entries of each
 * array, and when those hold none, the first deviation found is the one listed.
 */
export function validateShape(shape: Shape, value: unknown): Deviation[] {
  const first = firstValidators(shape);
  for (const tier of ['lenient', 'strict'] as const) {
    if (first[tier](value)) continue;
    const found = [...(first[tier].errors ?? [])];
    const all = validators(shape)[tier];
    const listed = all(listedPart(value, 0)) ? found : (all.errors ?? []);
    return dedupe(listed.slice(0, MAX_DEVIATIONS * 4).map((e) => describe(tier, e))).slice(0, MAX_DEVIATIONS);
  }
  return [];
}

/** Levels of a body a listing copy cuts arrays in: the wire shapes are six deep. */
const LISTED_DEPTH = 8;

/** The value with each array down to LISTED_DEPTH levels cut to its first LISTED_ITEMS entries (copies only where cut). */
function listedPart(v: unknown, depth: number): unknown {
  if (depth >= LISTED_DEPTH || typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    const head = v.length > LISTED_ITEMS ? v.slice(0, LISTED_ITEMS) : v;
    let changed = head !== v;
    const items = head.map((x) => {
      const y = listedPart(x, depth + 1);
      if (y !== x) changed = true;
      return y;
    });
    return changed ? items : v;
  }
  let copy: Record<string, unknown> | undefined;
  const o = v as Record<string, unknown>;
  for (const key in o) {
    if (!Object.hasOwn(o, key)) continue;
    const x = o[key];
    if (typeof x !== 'object' || x === null) continue;
    const y = listedPart(x, depth + 1);
    if (y !== x) setOwn((copy ??= { ...o }), key, y);
  }
  return copy ?? v;
}

function dedupe(list: Deviation[]): Deviation[] {
  const seen = new Set<string>();
  return list.filter((d) => {
    const key = `${d.path} ${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function formatDeviation(d: Deviation): string {
  return `${d.path === '/' ? 'body' : d.path}: ${d.message}`;
}
