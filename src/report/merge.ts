import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CannotTestError } from '../errors.js';
import { CallRecord, Report, type ProbeInfo, type ProbeResult } from '../results/model.js';
import { schemaProblem, unreadable } from '../words.js';
import { readReport } from './read.js';

export interface RunFiles {
  dir: string;
  report: Report;
  trace: CallRecord[];
}

/** Reads report.json (validated) and trace.jsonl from a report folder. */
export async function readRunFiles(dir: string): Promise<RunFiles> {
  const report = await readReport(dir);
  const trace: CallRecord[] = [];
  const traceFile = join(dir, 'trace.jsonl');
  let traceText: string | undefined;
  try {
    traceText = await readFile(traceFile, 'utf8');
  } catch (e) {
    // A folder without a trace (copied without it) merges with the calls it has: none.
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new CannotTestError(`cannot read ${traceFile}: ${unreadable(e)}`);
  }
  const lines = traceText?.split('\n').filter(Boolean) ?? [];
  for (let i = 0; i < lines.length; i++) {
    let line: unknown;
    try {
      line = JSON.parse(lines[i]!);
    } catch {
      throw new CannotTestError(`${traceFile} line ${i + 1} is not JSON (a trace cut short, or not chatprobe's)`);
    }
    const record = CallRecord.safeParse(line);
    if (!record.success) throw new CannotTestError(`${traceFile} line ${i + 1} is not a chatprobe call record: ${schemaProblem(record.error, line)}`);
    trace.push(record.data);
  }
  return { dir, report, trace };
}

/**
 * The shards given must be one plan, whole: the same n and model list, each index 1..n once, and every
 * model of the list in some shard. A merge that drops a third of the models must not pass as a full run.
 */
export function checkComplete(runs: readonly RunFiles[]): void {
  const sharded = runs.filter((r) => r.report.shard);
  if (sharded.length === 0) return;
  if (sharded.length !== runs.length) {
    const plain = runs.find((r) => !r.report.shard)!;
    throw new CannotTestError(`${plain.dir} is not a shard report (no --shard), the others are`, 'merge the shard reports of one run only');
  }
  const { count, allModels } = sharded[0]!.report.shard!;
  for (const { dir, report } of sharded) {
    const s = report.shard!;
    if (s.count !== count || JSON.stringify(s.allModels) !== JSON.stringify(allModels)) {
      throw new CannotTestError(`${dir} is shard ${s.index}/${s.count} of another plan than ${sharded[0]!.dir} (${count} shards of ${allModels.length} models)`, 'merge the shards of one run only');
    }
  }
  const seen = new Map<number, string>();
  for (const { dir, report } of sharded) {
    const i = report.shard!.index;
    if (seen.has(i)) throw new CannotTestError(`shard ${i}/${count} is given twice: ${seen.get(i)} and ${dir}`, 'merge each shard once');
    seen.set(i, dir);
  }
  const missing = Array.from({ length: count }, (_, k) => k + 1).filter((i) => !seen.has(i));
  const present = new Set(sharded.flatMap((r) => r.report.models.map((m) => m.id)));
  const absent = allModels.filter((id) => !present.has(id));
  if (missing.length > 0 || absent.length > 0) {
    const parts = [];
    if (missing.length > 0) parts.push(`shard(s) ${missing.map((i) => `${i}/${count}`).join(', ')} missing`);
    if (absent.length > 0) parts.push(`${absent.length} of ${allModels.length} model(s) in no shard: ${absent.slice(0, 10).join(', ')}${absent.length > 10 ? ', …' : ''}`);
    throw new CannotTestError(`incomplete merge: ${parts.join('; ')}`, 'pass every shard folder of the run (chatprobe --shard i/n writes one each)');
  }
}

/**
 * Shard reports (or any reports of one target) as the single report a full run would have written:
 * models in the plan's order, probes in catalogue order, results sorted the same way, times spanning all.
 */
export function mergeRuns(given: readonly RunFiles[]): { report: Report; trace: CallRecord[] } {
  if (given.length === 0) throw new CannotTestError('nothing to merge', 'name the report folders of the shards');
  // Shard 1 carries the endpoint probes and the catalogue order: read it first, whatever the order given.
  const runs = [...given].sort((a, b) => (a.report.shard?.index ?? 0) - (b.report.shard?.index ?? 0));
  const first = runs[0]!.report;
  for (const { dir, report } of runs) {
    if (report.target.baseUrl !== first.target.baseUrl) {
      throw new CannotTestError(`${dir} audited ${report.target.baseUrl}, not ${first.target.baseUrl}`, 'merge only the shards of one run');
    }
  }
  checkComplete(runs);
  const order = first.shard?.allModels ?? [];
  const models = new Map<string, Report['models'][number]>();
  for (const { report } of runs) for (const m of report.models) if (!models.has(m.id)) models.set(m.id, m);
  const modelIds = [...order.filter((id) => models.has(id)), ...[...models.keys()].filter((id) => !order.includes(id))];
  const probes = new Map<string, ProbeInfo>();
  for (const { report } of runs) for (const p of report.probes) if (!probes.has(p.id)) probes.set(p.id, p);
  const results = new Map<string, ProbeResult>();
  for (const { dir, report } of runs) {
    for (const r of report.results) {
      const key = `${r.model}\u0000${r.probe}`;
      if (results.has(key)) throw new CannotTestError(`${dir} repeats ${r.model} · ${r.probe}`, 'merge each shard once');
      results.set(key, r);
    }
  }
  const modelRank = new Map(modelIds.map((id, i) => [id, i]));
  const probeRank = new Map([...probes.keys()].map((id, i) => [id, i]));
  const rank = (id: string) => modelRank.get(id) ?? -1; // endpoint results first
  const sorted = [...results.values()].sort((a, b) => rank(a.model) - rank(b.model) || probeRank.get(a.probe)! - probeRank.get(b.probe)!);
  const startedAt = runs.map((r) => r.report.startedAt).sort()[0]!;
  const finishedAt = runs.map((r) => r.report.finishedAt).sort().at(-1)!;
  const { shard: _shard, ...rest } = first;
  const report: Report = {
    ...rest,
    startedAt,
    finishedAt,
    durationMs: Date.parse(finishedAt) - Date.parse(startedAt),
    interrupted: runs.some((r) => r.report.interrupted),
    ...(runs.some((r) => r.report.maxDurationReached) ? { maxDurationReached: true } : {}),
    ...mergedCaps(runs.map((r) => r.report)),
    models: modelIds.map((id) => models.get(id)!),
    probes: [...probes.values()],
    results: sorted,
    calls: runs.reduce((n, r) => n + r.report.calls, 0),
  };
  const trace = runs.flatMap((r) => r.trace).sort((a, b) => a.at.localeCompare(b.at));
  return { report, trace };
}

/**
 * The spending caps the shards reached: each shard has its own (its own process, its own count), so a
 * whole-run cap is said once with its limit and a per-model cap with the rows it stopped in all.
 */
function mergedCaps(reports: readonly Report[]): Pick<Report, 'budgetReached'> {
  const caps = new Map<string, NonNullable<Report['budgetReached']>[number]>();
  for (const r of reports) {
    for (const b of r.budgetReached ?? []) {
      const seen = caps.get(b.cap);
      if (!seen) caps.set(b.cap, { ...b });
      else if (seen.models !== undefined || b.models !== undefined) seen.models = (seen.models ?? 0) + (b.models ?? 0);
    }
  }
  return caps.size > 0 ? { budgetReached: [...caps.values()] } : {};
}
