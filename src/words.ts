import type { z } from 'zod';

/**
 * What went wrong with a file or a value, in chatprobe's words. Node's and V8's messages ("ENOENT: no such
 * file or directory, open …", "Unexpected token } in JSON at position 7") and zod's ("Invalid input:
 * expected string, received number") are not a user's: every message the CLI prints is ours.
 */

/** Why a file could not be read. */
export function unreadable(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'not allowed to read it';
  if (code === 'EISDIR') return 'it is a folder';
  if (code === 'ENOTDIR') return 'a part of its path is a file';
  return code ?? 'unreadable';
}

/** Why a file or folder could not be written. */
export function unwritable(e: unknown): string {
  const code = typeof e === 'string' ? e : (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'its folder does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'not allowed to write there';
  if (code === 'EROFS') return 'the file system is read-only';
  if (code === 'ENOTDIR') return 'a part of its path is a file';
  if (code === 'EISDIR') return 'a folder is in its place';
  if (code === 'EEXIST') return 'a file is in its place';
  if (code === 'ENOSPC') return 'the disk is full';
  return code ?? 'unwritable';
}

/** What is wrong with a text that is not JSON, as far as we can say it ourselves (V8's message quotes the file). */
export function notJson(text: string): string {
  return text.trim() === '' ? ' (the file is empty)' : ' (check it with a JSON linter: keys and strings in double quotes, no trailing commas)';
}

/** A value as a message names it: numbers and booleans as they are, anything else by its kind (a string may be a secret). */
export function described(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  if (typeof v === 'string') return /^[-+.\deE]{1,20}$/.test(v) ? `the string "${v}"` : 'a string';
  if (Array.isArray(v)) return 'a list';
  return v === undefined ? 'nothing' : 'an object';
}

const KINDS: Record<string, string> = { string: 'a string', number: 'a number', int: 'a whole number', boolean: 'true or false', array: 'a list', object: 'an object', null: 'null' };

/**
 * A schema's first complaint about `raw`, in words: where (the path), what it takes, what it got. Messages
 * of refinements (custom checks, formats) are written in this repository and said as they are.
 */
export function schemaProblem(error: z.ZodError, raw: unknown): string {
  const issue = error.issues[0]!;
  const path = issue.path.map(String);
  const where = path.length > 0 ? path.join('.') : 'the top level';
  let value: unknown = raw;
  for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  switch (issue.code) {
    case 'invalid_type':
      return `${where}: expected ${KINDS[issue.expected] ?? issue.expected}, got ${described(value)}`;
    case 'invalid_value':
      return `${where}: expected ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}, got ${described(value)}`;
    case 'too_small':
      return `${where}: ${described(value)} is less than ${issue.minimum}${issue.origin === 'array' ? ' items' : ''}`;
    case 'too_big':
      return `${where}: ${described(value)} is more than ${issue.maximum}${issue.origin === 'array' ? ' items' : ''}`;
    case 'unrecognized_keys':
      return `${where}: unknown key ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
    case 'invalid_union':
      return `${where}: ${described(value)} is none of the forms it may take`;
    default:
      return `${where}: ${issue.message}`;
  }
}
