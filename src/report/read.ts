import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CannotTestError } from '../errors.js';
import { ModelEntry, Report } from '../results/model.js';
import type { z } from 'zod';
import { notJson, schemaProblem, unreadable } from '../words.js';

/** The report.json a path names: the file, or the folder holding it. */
export async function reportFile(path: string): Promise<string> {
  try {
    return (await stat(path)).isDirectory() ? join(path, 'report.json') : path;
  } catch (e) {
    throw new CannotTestError(`cannot read ${path}: ${unreadable(e)}`);
  }
}

/**
 * What `chatprobe repro` reads of a report: every cell, each row's id and one line, the probes. Only that
 * is copied out of what JSON.parse made: a report of 100,000 models is 70 MB, and a whole copy of it is more
 * than repro's heap needs to hold.
 */
export const ReproReport = Report.pick({ schemaVersion: true, results: true, probes: true, shard: true }).extend({
  models: ModelEntry.pick({ id: true, notRun: true }).array(),
});
export type ReproReport = z.infer<typeof ReproReport>;

/** A report.json, given as the file or the folder holding it, validated. */
export async function readReport(path: string): Promise<Report> {
  return readReportAs(path, Report);
}

/** A report.json, validated as `schema` (the whole Report, or the part a command reads). */
export async function readReportAs<S extends z.ZodType>(path: string, schema: S): Promise<z.infer<S>> {
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
  // The text goes before the schema copies what it parsed: a report of 100,000 models is 70 MB of it, and
  // `chatprobe repro` runs in a heap a few times that.
  text = '';
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new CannotTestError(`${file} is not a chatprobe report (schemaVersion 1): ${schemaProblem(parsed.error, raw)}`);
  return parsed.data;
}
