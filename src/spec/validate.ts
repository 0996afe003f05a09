import { Ajv2020, type ValidateFunction, type ErrorObject } from 'ajv/dist/2020.js';
import * as schemas from './schemas.js';

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
const compiled: Partial<Record<Shape, Record<Tier, ValidateFunction>>> = {};

/** One validator per shape and tier, each compiled the first time it is needed: start-up compiles none. */
function validators(shape: Shape): Record<Tier, ValidateFunction> {
  ajv ??= new Ajv2020({ allErrors: true, strict: false });
  const a = ajv;
  return (compiled[shape] ??= { lenient: a.compile(sources[shape].lenient), strict: a.compile(sources[shape].strict) });
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
  return { tier, path, message };
}

/** Lenient deviations first; the strict tier is only checked where the lenient one holds, to avoid echoes. */
export function validateShape(shape: Shape, value: unknown): Deviation[] {
  const v = validators(shape);
  if (!v.lenient(value)) return dedupe((v.lenient.errors ?? []).map((e) => describe('lenient', e)));
  if (!v.strict(value)) return dedupe((v.strict.errors ?? []).map((e) => describe('strict', e)));
  return [];
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
