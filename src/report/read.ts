import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CannotTestError } from '../errors.js';
import { ModelEntry, ProbeInfo, ProbeResult, Report } from '../results/model.js';
import type { z } from 'zod';
import { Boundary } from '../boundary/boundary.js';
import { elements, members, valueAt } from './scan.js';
import { EVERY_PROBE, rowAsResult } from '../results/view.js';
import { notJson, schemaProblem, unreadable } from '../words.js';

/** The report.json a path names: the file, or the folder holding it. */
export async function reportFile(path: string): Promise<string> {
  try {
    return (await stat(path)).isDirectory() ? join(path, 'report.json') : path;
  } catch (e) {
    throw new CannotTestError(`cannot read ${path}: ${unreadable(e)}`);
  }
}

/** The report.json a path names, and its text. */
async function reportText(path: string): Promise<{ file: string; text: string }> {
  const file = await reportFile(path);
  try {
    return { file, text: await readFile(file, 'utf8') };
  } catch (e) {
    throw new CannotTestError(`cannot read ${file}: ${unreadable(e)}`);
  }
}

/** A report.json, given as the file or the folder holding it, validated. */
export async function readReport(path: string): Promise<Report> {
  const { file, text } = await reportText(path);
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

/** What `chatprobe repro` needs of a report: the cell asked for (or why none), and the probes' texts. */
export interface CellInReport {
  /** The cell, cleaned as every output is (Boundary), its model named as the report's files name it. */
  cell: ProbeResult | undefined;
  probes: ProbeInfo[];
  /** The models that have cells, named: the hint when the cell is not there. */
  models: string[];
}

const RowOfReport = ModelEntry.pick({ id: true, notRun: true });
const SHARD = Report.shape.shard;

/**
 * One cell of a report.json, read a value at a time (report/scan.ts): every model's id, the cells and the
 * rows are parsed one by one and let go, and only the cell asked for is kept and validated. A report of
 * 100,000 models is 70 MB of text, and parsed whole it needs several times that, more than a small heap
 * (the chaos suite runs repro in 320 MB) holds. `model` is named as the report's files name it.
 */
export async function readCell(path: string, model: string, probe: string): Promise<CellInReport> {
  const { file, text } = await reportText(path);
  const notReport = (why: string) => new CannotTestError(`${file} is not a chatprobe report (schemaVersion 1): ${why}`);
  let top: ReturnType<typeof members>;
  try {
    top = members(text);
  } catch {
    throw new CannotTestError(`${file} is not a chatprobe report: not JSON${notJson(text)}`);
  }
  const at = (key: string) => {
    const where = top.get(key);
    if (!where) throw notReport(`no ${key}`);
    return where;
  };
  // Each piece as the whole report's schema has it, its problem said as readReport says it.
  const checked = <T>(schema: z.ZodType<T>, value: unknown, where: string): T => {
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw notReport(`${where}: ${schemaProblem(parsed.error, value)}`);
    return parsed.data;
  };
  try {
    if (valueAt(text, at('schemaVersion')) !== 1) throw notReport('schemaVersion is not 1');
    const probes = checked(ProbeInfo.array(), valueAt(text, at('probes')), 'probes');
    const shard = top.has('shard') ? checked(SHARD, valueAt(text, top.get('shard')!), 'shard') : undefined;
    const boundary = new Boundary();
    const ids: string[] = [];
    for (const m of elements(text, at('models'))) ids.push(checked(RowOfReport, m, `models[${ids.length}]`).id);
    boundary.nameModels(shard?.allModels ?? ids);
    const named = (id: string) => boundary.modelId(id);
    let cell: ProbeResult | undefined;
    const models = new Set<string>();
    let i = 0;
    for (const r of elements(text, at('results'))) {
      const result = checked(ProbeResult, r, `results[${i++}]`);
      models.add(named(result.model));
      if (!cell && result.probe === probe && named(result.model) === model) cell = result;
    }
    if (!cell) {
      for (const m of elements(text, at('models'))) {
        const row = m as z.infer<typeof RowOfReport>;
        if (named(row.id) === model && row.notRun) {
          cell = rowAsResult(row, EVERY_PROBE);
          break;
        }
      }
    }
    return { cell: cell && boundary.result(cell), probes: boundary.clean(probes), models: [...models] };
  } catch (e) {
    if (e instanceof CannotTestError) throw e;
    throw notReport((e as Error).message.slice(0, 300));
  }
}
