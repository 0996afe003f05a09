import { existsSync, readFileSync } from 'node:fs';
import { CannotTestError } from '../errors.js';
import { DEFAULT_CONFIG, parseConfig, type AuditFlags } from './options.js';
import { notJson, unreadable } from '../words.js';

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
