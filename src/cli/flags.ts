import type { Options } from 'yargs';
import type { z } from 'zod';
import { expectedNumber, inRange, rangeFromJsonSchema, type NumberRange } from '../config/range.js';

/** kebab-case flag names for the camelCase keys of an options schema. */
export const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
/** The camelCase key yargs also gives a kebab-case flag. */
const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

interface ZodLike {
  _zod: { def: { type: string; innerType?: ZodLike; defaultValue?: unknown } };
  description?: string;
  toJSONSchema(params?: { io?: 'input' | 'output' }): Record<string, unknown>;
}

/** A number option's range from its zod schema. */
const rangeOf = (field: ZodLike): NumberRange => rangeFromJsonSchema(field.toJSONSchema({ io: 'input' }));

/**
 * yargs options derived from a zod object schema, so flags, defaults and help text have one source.
 * Only the shapes our options use are handled: string, number, boolean, arrays of strings.
 */
export function yargsOptionsFrom(schema: z.ZodObject, omit: readonly string[] = []): Record<string, FlagOptions> {
  const out: Record<string, FlagOptions> = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    if (omit.includes(key)) continue;
    let node = field as unknown as ZodLike;
    const describe = node.description;
    let fallback: unknown;
    while (node._zod.def.type === 'default' || node._zod.def.type === 'optional') {
      if (node._zod.def.type === 'default') fallback = node._zod.def.defaultValue;
      node = node._zod.def.innerType!;
    }
    const type = node._zod.def.type;
    const option: FlagOptions = { describe };
    if (type === 'array') Object.assign(option, { type: 'string', array: true });
    else if (type === 'number' || type === 'boolean' || type === 'string') option.type = type;
    else throw new Error(`flag --${kebab(key)}: unsupported option type ${type}`);
    if (type === 'number') Object.assign(option, { range: rangeOf(node) });
    // Defaults are shown, not set: the schema applies them after the config file is merged in, so a flag
    // the user did not pass never hides a value from the config file.
    if (fallback !== undefined && !(Array.isArray(fallback) && fallback.length === 0) && fallback !== false) {
      option.defaultDescription = JSON.stringify(fallback);
    }
    out[kebab(key)] = option;
  }
  return out;
}

/**
 * A flag's yargs options, and for a number its range (a key yargs does not read: main.ts checks the
 * values against it before a command runs, so every command says a bad number in the same words).
 */
export type FlagOptions = Options & { range?: NumberRange };

/** One flag: its schema key, and its yargs options under the kebab-case name. */
export interface FlagRow {
  key: string;
  options: FlagOptions;
}

/** The flags of a schema as plain data (src/cli/audit-flags.json is this table for AuditFlags). */
export function auditFlagTable(schema: z.ZodObject): FlagRow[] {
  return Object.entries(yargsOptionsFrom(schema)).map(([flag, options]) => {
    const key = Object.keys(schema.shape).find((k) => kebab(k) === flag)!;
    return { key, options };
  });
}

/** yargs options from a flag table, leaving out the keys in `omit`. */
export function optionsOf(table: readonly FlagRow[], omit: readonly string[] = []): Record<string, FlagOptions> {
  return Object.fromEntries(table.filter((r) => !omit.includes(r.key)).map((r) => [kebab(r.key), r.options]));
}

/** The camelCase values of the table's keys from a yargs argv. */
export function pickFlags(table: readonly FlagRow[], argv: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key } of table) {
    // Without defaults, yargs leaves out what the user did not pass: only that overrides the config file.
    if (argv[key] !== undefined) out[key] = argv[key];
  }
  return out;
}

/**
 * A yargs usage message as a person reads it: flags written as typed on the line (`--bogus-flag`), each
 * once (yargs names an unknown kebab-case flag twice, as typed and camel-cased), required ones with their
 * dashes. Anything else is left as yargs wrote it.
 */
export function usageMessage(msg: string, argv: readonly string[]): string {
  const m = /^(Unknown arguments?|Missing required arguments?): (.*)$/.exec(msg);
  if (!m) return msg;
  const names = m[2]!.split(', ');
  // The camel-cased twin of a kebab-case name also in the list goes.
  const kept = names.filter((n) => !names.some((o) => o !== n && o.includes('-') && camel(o) === n));
  /** A name as the line spells it: `--name`, `--no-name`, `-n` (alone or in a cluster), else a positional. */
  const typed = (n: string) => {
    for (const a of argv) {
      if (a === `--${n}` || a.startsWith(`--${n}=`)) return `--${n}`;
      if (a === `--no-${n}`) return `--no-${n}`;
      if (n.length === 1 && /^-[^-]/.test(a) && a.slice(1).split('=')[0]!.includes(n)) return `-${n}`;
    }
    return n;
  };
  const shown = kept.map((n) => (m[1]!.startsWith('Missing') ? `--${kebab(n)}` : typed(n)));
  const what = m[1]!.startsWith('Missing') ? 'missing required flag' : 'unknown argument';
  return `${what}${shown.length > 1 ? 's' : ''}: ${shown.join(', ')}`;
}

/**
 * What is wrong with the value flags of a command as given on the line, or undefined. A flag given
 * without a value (last on the line, before another flag, `--baseline=`, or an empty string, as an unset
 * variable in a CI line gives) is refused rather than read as "not given": `--baseline "$FILE"` with FILE
 * unset must not turn a regression gate off. A flag that takes one value, given twice, is refused too.
 */
export function flagProblem(argv: readonly string[], options: Record<string, FlagOptions>, args: Record<string, unknown>): string | undefined {
  const given = new Map<string, boolean>();
  /** Each flag's value as typed (the last one), for a message that quotes it. */
  const typed = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    const m = /^--([^=]+)(=?)(.*)$/.exec(a);
    if (!m) continue;
    // `--name=` with nothing after it, or `--name` last or before another flag: no value, whatever yargs
    // made of it (0 for a number, or the flag's default).
    const next = argv[i + 1];
    const bare = m[2] === '=' ? m[3]!.trim() === '' : next === undefined || next.trim() === '' || (next.startsWith('-') && !/^-\d/.test(next));
    given.set(camel(m[1]!), given.get(camel(m[1]!)) === true || bare);
    if (!bare) typed.set(camel(m[1]!), m[2] === '=' ? m[3]! : next!);
  }
  for (const [name, o] of Object.entries(options)) {
    if (o.type === 'boolean') continue;
    const key = camel(name);
    if (!given.has(key)) continue;
    const v = args[key];
    const many = o.array === true || o.type === 'array';
    if (!many && Array.isArray(v)) return `--${name} was given more than once (it takes one value)`;
    // A list with an empty piece (`--models a "$UNSET"`) is refused too.
    const empty = given.get(key) || v === undefined || (typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && (v.length === 0 || v.some((x) => String(x).trim() === '')));
    if (empty) return `--${name} was given without a value`;
    // yargs reads "abc" as NaN and "1e400" as Infinity, and bounds nothing: the number is checked here,
    // in our words, for every command alike (a server's listen() or zod said it in theirs).
    if (o.type === 'number' && o.range && !inRange(Number(v), o.range)) {
      const shown = typeof v === 'number' && Number.isFinite(v) ? String(v) : JSON.stringify((typed.get(key) ?? String(v)).slice(0, 40));
      return `invalid --${name} ${shown}: expected ${expectedNumber(o.range)}`;
    }
  }
  return undefined;
}
