import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { oneLine } from '../boundary/text.js';
import { LATE_TICK_MS, RECORD_FILE, RECORDED_STREAM_BYTES } from '../record/format.js';
import { readRecording, replayOptions, replayRun, type ReplayGaps, type RunRecording } from '../record/replay.js';
import { diffJudgements } from '../report/judgement-diff.js';
import { readReport } from '../report/read.js';
import { EVERY_PROBE } from '../results/view.js';
import type { Report } from '../results/model.js';
import { auditWith } from './audit.js';
import { EXIT } from '../results/exit.js';
import { cannotTest, displayPath, err } from './output.js';
import { CannotTestError } from '../errors.js';

/** Where `judge` writes when --out is not given: beside the run's reports, never over them. */
export const JUDGED_FOLDER = 'judged';

/** Cells listed one a line before the rest are counted. */
const LISTED = 50;

/**
 * chatprobe judge RUN_DIR: the recorded run's judgements made again offline, by this chatprobe, from its
 * record (record/replay.ts), into the usual reports; then what the record could not answer, and every cell
 * whose judgement differs from the report the run wrote. Exits as the judged run would, or 2 when a cell
 * asked for a request the record does not hold (its cell is then no judgement of the endpoint).
 */
export async function judgeCommand(runDir: string, flags: { out?: string; baseline?: string; json: boolean; quiet: boolean }, env: NodeJS.ProcessEnv): Promise<number> {
  let recording: RunRecording;
  let dir: string;
  try {
    const folder = existsSync(runDir) && statSync(runDir).isDirectory();
    dir = folder ? runDir : dirname(runDir);
    recording = await readRecording(folder ? join(runDir, RECORD_FILE) : runDir);
    if (flags.out && resolve(flags.out) === resolve(dir)) throw new CannotTestError(`--out ${flags.out} is the run's own folder: its reports are what the judgement is compared with`, `write elsewhere, e.g. --out ${join(runDir, JUDGED_FOLDER)} (the default)`);
  } catch (e) {
    return cannotTest(e);
  }
  const say = (text: string) => {
    if (!flags.quiet) err(text);
  };
  if (!recording.end) say('note: the record has no end (the run was killed before it finished): calls after its last line are not in it\n');
  const options = { ...replayOptions(recording), out: flags.out ?? join(dir, JUDGED_FOLDER), baseline: flags.baseline, json: flags.json, quiet: flags.quiet };
  let gaps: ReplayGaps | undefined;
  let judged: Report | undefined;
  const code = await auditWith(options, env, {
    doing: 'judging again, from its record,',
    run: async (o, probes, hooks) => {
      // The recorded run's expected models, not the baseline's given here: they shaped its plan.
      const replayed = await replayRun(recording, { ...o, expectedModels: options.expectedModels, hasKey: options.hasKey }, probes, hooks);
      gaps = replayed.gaps;
      judged = replayed.run.report;
      return replayed.run;
    },
  });
  if (!gaps || !judged) return code;
  const unjudged = unjudgedCells(judged, gaps);
  if (gaps.unrecorded.length > 0) {
    err(`${gaps.unrecorded.length} request(s) are not in the record (a probe asks for more than the run sent): the cells that sent them are no judgement of the endpoint:\n`);
    for (const line of unjudged.unrecorded.slice(0, LISTED)) err(`  ${line}\n`);
    if (unjudged.unrecorded.length > LISTED) err(`  … and ${unjudged.unrecorded.length - LISTED} more\n`);
  }
  if (unjudged.partial.length > 0) {
    err(`${unjudged.partial.length} cell(s) read an answer the record holds only in part (a stream past its first ${RECORDED_STREAM_BYTES / 1024} KiB) or altered (a secret in a form its stand-in could not take, a body not UTF-8 that held one): judged from what it holds:\n`);
    for (const line of unjudged.partial.slice(0, LISTED)) err(`  ${line}\n`);
  }
  if (gaps.notAsked > 0) err(`${gaps.notAsked} recorded call(s) were not asked for again (a probe asks for less than the run sent)\n`);
  if (gaps.outOfOrder > 0) err(`${gaps.outOfOrder} answer(s) came out of the run's order (the one due was not asked for): a judgement that follows the order of answers may differ\n`);
  if (gaps.lagFromTicks > 0) err(`${gaps.lagFromTicks} lag window(s) no recorded judgement asked about: read from the ticks that ran ${LATE_TICK_MS} ms late or more\n`);
  const reportPath = join(dir, 'report.json');
  if (existsSync(reportPath)) {
    try {
      const [recorded, written] = await Promise.all([readReport(reportPath), readReport(join(options.out, 'report.json'))]);
      const diffs = diffJudgements(recorded, written);
      if (diffs.length === 0) say(`every cell judged as ${displayPath(reportPath)} has it\n`);
      else {
        err(`${diffs.length} cell(s) judged otherwise than ${displayPath(reportPath)}:\n`);
        for (const d of diffs.slice(0, LISTED)) {
          err(`  ${oneLine(d.model)} ${d.probe === EVERY_PROBE ? '(row)' : d.probe}: ${d.field} ${oneLine(JSON.stringify(d.a) ?? '—').slice(0, 200)} → ${oneLine(JSON.stringify(d.b) ?? '—').slice(0, 200)}\n`);
        }
        if (diffs.length > LISTED) err(`  … and ${diffs.length - LISTED} more\n`);
      }
    } catch (e) {
      err(`note: the judgement was not compared with the run's report: ${oneLine((e as Error).message)}\n`);
    }
  }
  return gaps.unrecorded.length > 0 && code !== EXIT.cannotTest ? EXIT.cannotTest : code;
}

/** The cells that sent a request the record does not hold, and those that read a body it holds in part. */
function unjudgedCells(report: Report, gaps: ReplayGaps): { unrecorded: string[]; partial: string[] } {
  const missing = new Set(gaps.unrecorded.map((c) => c.id));
  const partial = new Set(gaps.partial);
  const name = (r: { model: string; probe: string }) => `${oneLine(r.model)} ${r.probe === EVERY_PROBE ? '(row)' : r.probe}`;
  const cells = [...report.results, ...report.models.flatMap((m) => (m.notRun ? [{ ...m.notRun, model: m.id, probe: EVERY_PROBE }] : []))];
  return {
    unrecorded: cells.filter((r) => r.evidence.some((id) => missing.has(id))).map(name),
    partial: cells.filter((r) => r.evidence.some((id) => partial.has(id))).map(name),
  };
}
