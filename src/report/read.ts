import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CannotTestError } from '../errors.js';
import { Report } from '../results/model.js';
import { notJson, schemaProblem, unreadable } from '../words.js';

/** The report.json a path names: the file, or the folder holding it. */
export async function reportFile(path: string): Promise<string> {
  try {
    return (await stat(path)).isDirectory() ? join(path, 'report.json') : path;
  } catch (e) {
    throw new CannotTestError(`cannot read ${path}: ${unreadable(e)}`);
  }
}

/** A report.json, given as the file or the folder holding it, validated. */
export async function readReport(path: string): Promise<Report> {
  const file = await reportFile(path);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new CannotTestError(`cannot read ${file}: ${unreadable(e)}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new CannotTestError(`${file} is not a chatprobe report: not JSON${notJson(text)}`);
  }
  const parsed = Report.safeParse(raw);
  if (!parsed.success) throw new CannotTestError(`${file} is not a chatprobe report (schemaVersion 1): ${schemaProblem(parsed.error, raw)}`);
  return parsed.data;
}
