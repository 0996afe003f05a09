// The numbers an option takes, said once for the flags (cli/flags.ts, before a command runs), the config
// file (config/options.ts) and the shipped schema: no zod here, so --help and --version stay light.

/**
 * The values a number option takes, as its JSON Schema says them (so a flag, the config file and the
 * shipped config.schema.json bound it alike).
 */
export interface NumberRange {
  type: 'number' | 'integer';
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
}

/** What a number option expects, in words: "a whole number from 1 to 64", "a number above 0, at most 3600". */
export function expectedNumber(r: NumberRange): string {
  const what = r.type === 'integer' ? 'a whole number' : 'a number';
  const low = r.minimum !== undefined ? `${r.minimum}` : r.exclusiveMinimum !== undefined ? `above ${r.exclusiveMinimum}` : undefined;
  if (r.minimum !== undefined && r.maximum !== undefined) return `${what} from ${r.minimum} to ${r.maximum}`;
  if (low !== undefined && r.maximum !== undefined) return `${what} ${low}, at most ${r.maximum}`;
  if (r.minimum !== undefined) return `${what} of at least ${r.minimum}`;
  if (low !== undefined) return `${what} ${low}`;
  return r.maximum !== undefined ? `${what} of at most ${r.maximum}` : what;
}

/** Whether `v` is a value of the range. */
export function inRange(v: number, r: NumberRange): boolean {
  if (!Number.isFinite(v)) return false;
  if (r.type === 'integer' && !Number.isInteger(v)) return false;
  if (r.minimum !== undefined && v < r.minimum) return false;
  if (r.exclusiveMinimum !== undefined && v <= r.exclusiveMinimum) return false;
  return r.maximum === undefined || v <= r.maximum;
}

/** A number's range from its JSON Schema (z.toJSONSchema of the option). */
export function rangeFromJsonSchema(j: Record<string, unknown>): NumberRange {
  const range: NumberRange = { type: j.type === 'integer' ? 'integer' : 'number' };
  for (const k of ['minimum', 'exclusiveMinimum', 'maximum'] as const) if (typeof j[k] === 'number') range[k] = j[k];
  return range;
}
