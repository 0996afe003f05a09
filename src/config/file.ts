import { existsSync, readFileSync } from 'node:fs';
import { CannotTestError } from '../engine/errors.js';
import { DEFAULT_CONFIG, parseConfig, type AuditFlags } from './options.js';

/** The config file named by --config, else ./chatprobe.config.json when it exists, else nothing. */
export function loadConfig(path: string | undefined, cwd = process.cwd()): { file: string | undefined; config: Partial<AuditFlags> } {
  const file = path ?? (existsSync(`${cwd}/${DEFAULT_CONFIG}`) ? `${cwd}/${DEFAULT_CONFIG}` : undefined);
  if (!file) return { file: undefined, config: {} };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CannotTestError(`cannot read config ${file}: ${unreadable(e)}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new CannotTestError(`invalid config ${file}: not JSON${notJson(text)}`);
  }
  return { file, config: parseConfig(raw, file) };
}

/** Why a file could not be read, in words (not Node's "ENOENT: no such file or directory, open …"). */
function unreadable(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'not allowed to read it';
  if (code === 'EISDIR') return 'it is a folder';
  return code ?? 'unreadable';
}

/** What is wrong with a config that is not JSON, as far as we can say it ourselves (V8's message quotes the file). */
function notJson(text: string): string {
  return text.trim() === '' ? ' (the file is empty)' : ' (check it with a JSON linter: keys and strings in double quotes, no trailing commas)';
}
