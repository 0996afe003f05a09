// A flag, declared once: command-line.ts reads the line by it, help.ts prints it, and the audit's flags are
// derived from the options schema (config/options.ts) into audit-flags.json, so --help loads no zod.
import type { z } from 'zod';
import { rangeFromJsonSchema, type NumberRange } from '../config/range.js';

/** One flag of a command, under its kebab-case name. */
export interface Flag {
  type: 'string' | 'number' | 'boolean';
  /** Takes several values: the flag repeated, or several after it (`--models a b`), each one kept. */
  many?: boolean;
  /** With `many`: one value each time the flag is given, never the words after it (`--base-url A --base-url B`). */
  repeated?: boolean;
  describe: string;
  /** The value when the flag is not given (for a command no config file speaks for). */
  default?: string | number | boolean;
  /**
   * The default --help shows but the line does not apply: the options schema applies it after the config
   * file is merged in, so a flag the user did not pass never hides a value from the config file.
   */
  shownDefault?: string;
  /** A number's range, checked on the line before the command runs, in the words the config file uses. */
  range?: NumberRange;
  required?: boolean;
}

/** A positional argument of a command (`merge <dirs..>`). */
export interface Positional {
  describe: string;
  /** One or more: it takes the rest of the line. */
  many?: boolean;
}

/** kebab-case flag names for the camelCase keys of an options schema. */
export const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
/** The camelCase key of a kebab-case flag, as the config file and the commands' code name it. */
export const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

interface ZodLike {
  _zod: { def: { type: string; innerType?: ZodLike; defaultValue?: unknown } };
  description?: string;
  toJSONSchema(params?: { io?: 'input' | 'output' }): Record<string, unknown>;
}

/**
 * Flags derived from a zod object schema, so flags, defaults and help text have one source. Only the
 * shapes our options use are handled: string, number, boolean, a choice of words, arrays of strings.
 */
/**
 * List options whose flag takes one value each time it is given: a word after `--base-url URL` is a stray
 * argument (a key pasted there is refused as one, not read as a second endpoint), and a word after
 * `--probe-file F` may be a command's own argument (`judge --probe-file p.mjs RUN_DIR`).
 */
const REPEATED = new Set(['baseUrl', 'probeFile']);

export function flagsFrom(schema: z.ZodObject): Record<string, Flag> {
  const out: Record<string, Flag> = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    let node = field as unknown as ZodLike;
    const describe = node.description ?? '';
    let fallback: unknown;
    while (node._zod.def.type === 'default' || node._zod.def.type === 'optional') {
      if (node._zod.def.type === 'default') fallback = node._zod.def.defaultValue;
      node = node._zod.def.innerType!;
    }
    const type = node._zod.def.type;
    let flag: Flag;
    if (type === 'array') flag = { type: 'string', many: true, ...(REPEATED.has(key) ? { repeated: true } : {}), describe };
    else if (type === 'number') flag = { type, describe, range: rangeFromJsonSchema(node.toJSONSchema({ io: 'input' })) };
    else if (type === 'boolean' || type === 'string') flag = { type, describe };
    // One of a few words (--tier): read as a string, checked by the options schema with the others.
    else if (type === 'enum') flag = { type: 'string', describe };
    else throw new Error(`flag --${kebab(key)}: unsupported option type ${type}`);
    if (fallback !== undefined && !(Array.isArray(fallback) && fallback.length === 0) && fallback !== false) flag.shownDefault = JSON.stringify(fallback);
    out[kebab(key)] = flag;
  }
  return out;
}

/** One flag: its schema key, and its declaration. */
export interface FlagRow {
  key: string;
  flag: Flag;
}

/** The flags of a schema as plain data (src/cli/audit-flags.json is this table for AuditFlags). */
export function auditFlagTable(schema: z.ZodObject): FlagRow[] {
  const flags = flagsFrom(schema);
  return Object.keys(schema.shape).map((key) => ({ key, flag: flags[kebab(key)]! }));
}

/** The flags of a table under their kebab-case names, leaving out the keys in `omit`. */
export function optionsOf(table: readonly FlagRow[], omit: readonly string[] = []): Record<string, Flag> {
  return Object.fromEntries(table.filter((r) => !omit.includes(r.key)).map((r) => [kebab(r.key), r.flag]));
}

/** The values of the table's keys the line gave (only those: they override the config file). */
export function pickFlags(table: readonly FlagRow[], values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key } of table) if (values[key] !== undefined) out[key] = values[key];
  return out;
}
