import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Boundary } from '../boundary/boundary.js';
import type { ResolvedOptions } from '../config/options.js';
import { CannotTestError } from '../errors.js';
import type { ProbeDefinition } from '../engine/probe.js';
import { RECORD_FILE } from '../record/format.js';
import { readRecording, replayOptions, replayRun, type ReplayGaps, type RunRecording } from '../record/replay.js';
import { diffJudgements, type JudgementDiff } from '../report/judgement-diff.js';
import { readReport } from '../report/read.js';
import type { Report } from '../results/model.js';
import { EVERY_PROBE } from '../results/view.js';
import { audit, type AuditResult, type AuditSinks } from './audit.js';

/** Where a judgement of a record is written when no folder is named: beside the run's reports, never over them. */
export const JUDGED_FOLDER = 'judged';

/** A recorded run, read, and the options it ran with (the key's place held by a stand-in). */
export interface Recorded {
  recording: RunRecording;
  /** The run's folder (where its report.json is). */
  dir: string;
  options: ResolvedOptions & { expectedModels?: ReadonlySet<string> | undefined; hasKey?: boolean };
}

/** Reads RUN_DIR's record.jsonl.gz (or the record file named). */
export async function readRecorded(runDir: string): Promise<Recorded> {
  const folder = existsSync(runDir) && statSync(runDir).isDirectory();
  const recording = await readRecording(folder ? join(runDir, RECORD_FILE) : runDir);
  return { recording, dir: folder ? runDir : dirname(runDir), options: replayOptions(recording) };
}

export interface JudgedAgain extends AuditResult {
  /** What the record could not answer: requests it does not hold, bodies it holds in part, calls not asked again. */
  gaps: ReplayGaps;
  /** The cells that sent a request the record does not hold, and those that read a body it holds in part. */
  unjudged: { unrecorded: string[]; partial: string[] };
  /** Every cell judged otherwise than the run's own report.json, when it is there to compare. */
  diffs?: JudgementDiff[];
  /** Why the judgement was not compared with the run's report, when it could not be. */
  notCompared?: string;
}

/**
 * A recorded run's judgements made again offline, by this chatprobe, from its record (record/replay.ts),
 * through the same pipeline as an audit (pipeline/audit.ts), into `out` (default RUN_DIR/judged); then
 * compared cell by cell with the report the run wrote. This is how a changed rule is tried on yesterday's
 * runs.
 */
export async function judgeRecord(
  recorded: Recorded,
  settings: { out?: string | undefined; baseline?: string | undefined; json?: boolean; quiet?: boolean },
  sinks: AuditSinks = {},
  how: { probes?: readonly ProbeDefinition[]; boundary?: Boundary; signal?: AbortSignal } = {},
): Promise<JudgedAgain> {
  const { recording, dir } = recorded;
  const out = settings.out ?? join(dir, JUDGED_FOLDER);
  if (resolve(out) === resolve(dir)) throw new CannotTestError(`--out ${out} is the run's own folder: its reports are what the judgement is compared with`, `write elsewhere, e.g. --out ${join(dir, JUDGED_FOLDER)} (the default)`);
  const options = { ...recorded.options, out, baseline: settings.baseline, json: settings.json ?? false, quiet: settings.quiet ?? false };
  let gaps: ReplayGaps | undefined;
  const result = await audit(options, sinks, {
    ...how,
    source: {
      run: async (o, probes, hooks, signal) => {
        // The recorded run's expected models, not the baseline's given here: they shaped its plan.
        const replayed = await replayRun(recording, { ...o, expectedModels: options.expectedModels, hasKey: options.hasKey }, probes, hooks, signal);
        gaps = replayed.gaps;
        return replayed.run;
      },
    },
  });
  const judged: JudgedAgain = { ...result, gaps: gaps!, unjudged: unjudgedCells(result.report, gaps!) };
  const reportPath = join(dir, 'report.json');
  if (existsSync(reportPath)) {
    try {
      const [before, after] = await Promise.all([readReport(reportPath), readReport(join(out, 'report.json'))]);
      judged.diffs = diffJudgements(before, after);
    } catch (e) {
      judged.notCompared = (e as Error).message;
    }
  }
  return judged;
}

/** The cells that sent a request the record does not hold, and those that read a body it holds in part. */
function unjudgedCells(report: Report, gaps: ReplayGaps): { unrecorded: string[]; partial: string[] } {
  const missing = new Set(gaps.unrecorded.map((c) => c.id));
  const partial = new Set(gaps.partial);
  const name = (r: { model: string; probe: string }) => `${r.model} ${r.probe === EVERY_PROBE ? '(row)' : r.probe}`;
  const cells = [...report.results, ...report.models.flatMap((m) => (m.notRun ? [{ ...m.notRun, model: m.id, probe: EVERY_PROBE }] : []))];
  return {
    unrecorded: cells.filter((r) => r.evidence.some((id) => missing.has(id))).map(name),
    partial: cells.filter((r) => r.evidence.some((id) => partial.has(id))).map(name),
  };
}
