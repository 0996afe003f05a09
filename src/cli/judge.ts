import { oneLine } from '../text.js';
import { LATE_TICK_MS, RECORDED_STREAM_BYTES } from '../record/format.js';
import { JUDGED_FOLDER, judgeRecord, readRecorded, type JudgedAgain, type Recorded } from '../pipeline/judge.js';
import { EVERY_PROBE } from '../results/view.js';
import { auditWith } from './audit.js';
import { EXIT } from '../results/exit.js';
import { cannotTest, displayPath, err } from './output.js';
import { loadPrices } from '../config/options.js';
import { join } from 'node:path';


/** Cells listed one a line before the rest are counted. */
const LISTED = 50;

/**
 * chatprobe judge RUN_DIR: the recorded run's judgements made again offline (pipeline/judge.ts) into the
 * usual reports; then what the record could not answer, and every cell whose judgement differs from the
 * report the run wrote. Exits as the judged run would, or 2 when a cell asked for a request the record
 * does not hold (its cell is then no judgement of the endpoint).
 */
export async function judgeCommand(runDir: string, flags: { out?: string; baseline?: string; probeFiles: string[]; prices?: string | undefined; json: boolean; quiet: boolean }, env: NodeJS.ProcessEnv): Promise<number> {
  let recorded: Recorded;
  try {
    recorded = await readRecorded(runDir);
    // Another price list: the recorded deductions, weighed again (the cells that read it differ from the run's report, and say so).
    if (flags.prices !== undefined) recorded = { ...recorded, options: { ...recorded.options, prices: loadPrices(flags.prices) } };
  } catch (e) {
    return cannotTest(e);
  }
  const say = (text: string) => {
    if (!flags.quiet) err(text);
  };
  if (!recorded.recording.end) say('note: the record has no end (the run was killed before it finished): calls after its last line are not in it\n');
  let judged: JudgedAgain | undefined;
  // The run's own probe files are not in its record: the probes are code, named again with --probe-file.
  const options = { ...recorded.options, probeFiles: flags.probeFiles, out: flags.out ?? join(recorded.dir, JUDGED_FOLDER), baseline: flags.baseline, json: flags.json, quiet: flags.quiet };
  const code = await auditWith(options, env, {
    doing: 'judging again, from its record,',
    start: async (sinks, how) => (judged = await judgeRecord(recorded, flags, sinks, how)),
  });
  if (!judged) return code;
  const { gaps, unjudged } = judged;
  if (gaps.unrecorded.length > 0) {
    err(`${gaps.unrecorded.length} request(s) are not in the record (a probe asks for more than the run sent): the cells that sent them are no judgement of the endpoint:\n`);
    for (const line of unjudged.unrecorded.slice(0, LISTED)) err(`  ${oneLine(line)}\n`);
    if (unjudged.unrecorded.length > LISTED) err(`  … and ${unjudged.unrecorded.length - LISTED} more\n`);
  }
  if (unjudged.partial.length > 0) {
    err(`${unjudged.partial.length} cell(s) read an answer the record holds only in part (a stream past its first ${RECORDED_STREAM_BYTES / 1024} KiB) or altered (a secret in a form its stand-in could not take, a body not UTF-8 that held one): judged from what it holds:\n`);
    for (const line of unjudged.partial.slice(0, LISTED)) err(`  ${oneLine(line)}\n`);
  }
  if (gaps.notAsked > 0) err(`${gaps.notAsked} recorded call(s) were not asked for again (a probe asks for less than the run sent)\n`);
  if (gaps.outOfOrder > 0) err(`${gaps.outOfOrder} answer(s) came out of the run's order (the one due was not asked for): a judgement that follows the order of answers may differ\n`);
  if (gaps.lagFromTicks > 0) err(`${gaps.lagFromTicks} lag window(s) no recorded judgement asked about: read from the ticks that ran ${LATE_TICK_MS} ms late or more\n`);
  const reportPath = displayPath(join(recorded.dir, 'report.json'));
  if (judged.notCompared !== undefined) err(`note: the judgement was not compared with the run's report: ${oneLine(judged.notCompared)}\n`);
  else if (judged.diffs && judged.diffs.length === 0) say(`every cell judged as ${reportPath} has it\n`);
  else if (judged.diffs) {
    const diffs = judged.diffs;
    err(`${diffs.length} cell(s) judged otherwise than ${reportPath}:\n`);
    for (const d of diffs.slice(0, LISTED)) {
      err(`  ${oneLine(d.model)} ${d.probe === EVERY_PROBE ? '(row)' : d.probe}: ${d.field} ${oneLine(JSON.stringify(d.a) ?? '—').slice(0, 200)} → ${oneLine(JSON.stringify(d.b) ?? '—').slice(0, 200)}\n`);
    }
    if (diffs.length > LISTED) err(`  … and ${diffs.length - LISTED} more\n`);
  }
  return gaps.unrecorded.length > 0 && code !== EXIT.cannotTest ? EXIT.cannotTest : code;
}
