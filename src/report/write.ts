import { RECORD_FILE } from '../record/format.js';
import { access, appendFile, constants, mkdir, stat, unlink, writeFile } from 'node:fs/promises';
import { CannotTestError } from '../errors.js';
import { unwritable } from '../words.js';
import { closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Boundary } from '../boundary/boundary.js';
import type { CallRecord, Report } from '../results/model.js';
import { jsonPieces } from './writers/json.js';
import { junitPieces } from './writers/junit.js';
import { writeHtml } from './writers/html.js';
import { renderMatrix } from './writers/markdown.js';
import { traceLines } from './writers/trace.js';

/**
 * mkdir -p, one level at a time: Node's recursive mkdir can spin forever where a parent refuses new
 * entries (/proc), and a plain mkdir answers at once.
 */
export async function ensureDir(dir: string): Promise<void> {
  const missing: string[] = [];
  let at = resolve(dir);
  while (!existsSync(at)) {
    missing.unshift(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const level of missing) {
    try {
      await mkdir(level);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

/** Why `path` cannot be written by this process, or undefined when it can: tried, not guessed. */
async function unwritableFolder(dir: string): Promise<string | undefined> {
  try {
    if (!(await stat(dir)).isDirectory()) return 'it is not a folder';
    const probe = join(dir, `.chatprobe-${process.pid}.probe`);
    await writeFile(probe, '');
    await unlink(probe);
    return undefined;
  } catch (e) {
    return unwritable(e);
  }
}

/**
 * Every path a run will write, checked before the first request is paid for: the reports folder (created
 * if missing), the baseline it will rewrite, the step summary it will append to. Throws CannotTestError
 * (exit 2) naming the path and the reason.
 */
export async function checkOutputs(paths: { out: string; baseline?: string; summary?: string }): Promise<void> {
  const refuse = (what: string, path: string, why: string, hint: string): never => {
    throw new CannotTestError(`cannot write ${what} ${path}: ${why}`, hint);
  };
  try {
    await ensureDir(paths.out);
  } catch (e) {
    refuse('the reports to', paths.out, unwritable(e), 'pass a writable --out');
  }
  const outWhy = await unwritableFolder(paths.out);
  if (outWhy) refuse('the reports to', paths.out, outWhy, 'pass a writable folder as --out');
  if (paths.baseline) {
    const target = paths.baseline;
    const info = await stat(target).catch(() => undefined);
    if (info?.isDirectory()) refuse('the baseline', target, 'it is a folder', 'pass a file path as --baseline');
    const why = info ? await access(target, constants.W_OK).then(() => undefined, (e: NodeJS.ErrnoException) => e.code ?? e.message) : await unwritableFolder(dirname(resolve(target)));
    if (why) refuse('the baseline', target, unwritable(why), 'create the folder, or pass another --baseline');
  }
  if (paths.summary) {
    try {
      await appendFile(paths.summary, '');
    } catch (e) {
      refuse('the step summary', paths.summary, unwritable(e), 'check $GITHUB_STEP_SUMMARY');
    }
  }
}

export interface WriteOutcome {
  written: string[];
  failed: { file: string; error: string }[];
  /** Files not written because the time to write them had run out (an earlier run's copy removed). */
  skipped: string[];
  /** Where the folder's previous complete reports were moved, this run's being partial (KEPT_FOLDER). */
  kept?: { dir: string; startedAt: string | undefined };
  /** Why they could not be, if they could not (they were then replaced). */
  notKept?: string;
}

/** Every file a run puts in the folder: what is kept together when a partial run would replace them. */
const RUN_FILES = ['report.json', 'junit.xml', 'matrix.md', 'trace.jsonl', 'report.html', 'exchanges.har', RECORD_FILE];

/**
 * Where a partial run (interrupted, or some file not written) moves the complete run's reports it would
 * replace, inside the reports folder: a Ctrl-C must not cost yesterday's complete reports. The next partial
 * run over a complete one replaces its files there; nothing else in it is touched.
 */
export const KEPT_FOLDER = 'last-complete';

/** Characters of report.json read to find its head's `interrupted` (the head comes before the models). */
const HEAD_CHARS = 64 * 1024;

/** The run whose report.json is in `dir`, if it is a complete one (not interrupted): when it started. */
function completeRunIn(dir: string): { startedAt: string | undefined } | undefined {
  let head: string;
  try {
    const fd = openSync(join(dir, 'report.json'), 'r');
    try {
      const buffer = Buffer.alloc(HEAD_CHARS);
      head = buffer.subarray(0, readSync(fd, buffer, 0, HEAD_CHARS, 0)).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (!/^\s*\{\s*"\$schema"/.test(head) || !/\n {2}"interrupted": false,?\n/.test(head)) return undefined;
  return { startedAt: /\n {2}"startedAt": "([^"]{1,40})"/.exec(head)?.[1] };
}

/** Moves a complete run's files from `dir` into its KEPT_FOLDER (synchronous: part of the one step that puts files in place). */
function keepPrevious(dir: string): string {
  const kept = join(dir, KEPT_FOLDER);
  mkdirSync(kept, { recursive: true });
  // The set kept before goes whole, so the folder never mixes two runs' files.
  for (const file of RUN_FILES) rmSync(join(kept, file), { force: true });
  for (const file of RUN_FILES) if (existsSync(join(dir, file))) renameSync(join(dir, file), join(kept, file));
  return kept;
}

/**
 * The file written whatever the time: the record every other file and the exit code derive from (a merge
 * or a later `chatprobe` command renders the others from it). The others are left out once `deadline` has
 * passed (said, never a failure), cheapest and most read first.
 */
const ALWAYS_WRITTEN = new Set(['report.json']);

/** Trace records cleaned, rendered and written per batch: the trace of a long run is never one string. */
const TRACE_BATCH = 2000;

/** Characters of a file gathered before they are redacted and written. */
const WRITE_BATCH = 256 * 1024;

/**
 * Writes a file given in pieces, a batch at a time, each batch redacted as it goes (a piece is whole
 * entries, so no secret is split between two batches): a report of 100,000 models is never one string.
 */
export function writePieces(path: string, pieces: Iterable<string>, redact: (s: string) => string): void {
  const file = openSync(path, 'w');
  try {
    let batch: string[] = [];
    let size = 0;
    for (const piece of pieces) {
      batch.push(piece);
      size += piece.length;
      if (size < WRITE_BATCH) continue;
      writeSync(file, redact(batch.join('')), null, 'utf8');
      batch = [];
      size = 0;
    }
    if (batch.length > 0) writeSync(file, redact(batch.join('')), null, 'utf8');
  } finally {
    closeSync(file);
  }
}

/** Why a file could not be written or put in place, in words (Node's name the temporary path: "EISDIR: illegal operation on a directory, rename …"). */
function writeFailure(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  const words: Record<string, string> = {
    EISDIR: 'a folder is in its place',
    ENOTEMPTY: 'a folder is in its place',
    ENOSPC: 'the disk is full',
    EDQUOT: 'the disk quota is used up',
    EACCES: 'not allowed',
    EPERM: 'not allowed',
    EROFS: 'the file system is read-only',
    EIO: 'the disk failed (EIO)',
  };
  if (code) return words[code] ?? code;
  // A writer's own failure (our bug): its message is ours.
  return (err as Error).message ?? String(err);
}

/** The temporary files written and not yet put in place: removed if the process quits meanwhile (a second Ctrl-C). */
const STAGED = new Set<string>();
let exitHooked = false;

/** A file written under a temporary name, to be put in place by `commitStaged`. */
export interface Staged {
  path: string;
  tmp: string;
}

/**
 * Writes `path`'s content under a temporary name (`write` fills it). A write that fails leaves no temporary
 * file; nor does a process that quits before `commitStaged`, and `path` then stays as it was.
 */
export async function stageFile(path: string, write: (tmp: string) => Promise<void>): Promise<Staged> {
  const tmp = `${path}.${process.pid}.tmp`;
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', () => {
      for (const t of STAGED) rmSync(t, { force: true });
    });
  }
  STAGED.add(tmp);
  try {
    await write(tmp);
    return { path, tmp };
  } catch (err) {
    STAGED.delete(tmp);
    rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * Puts staged files in place, all in one synchronous step: no signal handler (a second Ctrl-C) runs between
 * two of them, so a folder holds one run's files or the other's, never a mix. Returns those that could not
 * be put in place, with why (their temporary files removed).
 */
export function commitStaged(staged: readonly Staged[]): { path: string; error: string }[] {
  const failed: { path: string; error: string }[] = [];
  for (const s of staged) {
    try {
      renameSync(s.tmp, s.path);
    } catch (err) {
      failed.push({ path: s.path, error: writeFailure(err) });
      rmSync(s.tmp, { force: true });
    }
    STAGED.delete(s.tmp);
  }
  return failed;
}

/**
 * Writes every report file from a Report that has passed the output boundary (boundary.report), so every
 * string in it is already redacted, visible and bounded; the trace's records pass it here, a batch at a
 * time. Writers are isolated: one that throws is reported and the others still run. Each rendered file
 * passes the redactor once more (a writer's own text). Every file is staged first and all are put in place
 * together at the end (commitStaged), with `alongside` (the run's exchanges.har, put in place by its writer)
 * in the same step: a reader never sees half a report, nor this run's report.json beside the last run's
 * other files. One file at a time: what is held at once is one file's text (report.html is written a batch
 * at a time, its exchanges read from `har`, the run's complete exchanges record).
 */
export async function writeReports(report: Report, trace: readonly CallRecord[], dir: string, boundary: Boundary, har?: string, alongside?: () => void, deadline?: number): Promise<WriteOutcome> {
  // `deadline` (performance.now()): --max-duration's end, or a few seconds after Ctrl-C or SIGTERM. Past
  // it, the files not in ALWAYS_WRITTEN are left out, and report.html embeds no more exchanges.
  await ensureDir(dir);
  const writers: [string, (tmp: string) => Promise<void>][] = [
    // Written synchronously (report.html too, a batch at a time): no write of ours is left in flight when
    // the process quits, so a temporary file removed then is not made again behind it.
    ['report.json', async (tmp) => writePieces(tmp, jsonPieces(report), (s) => boundary.redact(s))],
    ['junit.xml', async (tmp) => writePieces(tmp, junitPieces(report), (s) => boundary.redact(s))],
    ['matrix.md', async (tmp) => writeFileSync(tmp, boundary.redact(renderMatrix(report)), 'utf8')],
    [
      'trace.jsonl',
      async (tmp) => {
        const file = openSync(tmp, 'w');
        try {
          for (let i = 0; i < trace.length; i += TRACE_BATCH) {
            writeSync(file, boundary.redact(traceLines(boundary.trace(trace.slice(i, i + TRACE_BATCH)))), null, 'utf8');
          }
        } finally {
          closeSync(file);
        }
      },
    ],
    ['report.html', (tmp) => writeHtml(tmp, report, har, (s) => boundary.redact(s), deadline)],
  ];
  const outcome: WriteOutcome = { written: [], failed: [], skipped: [] };
  const staged: Staged[] = [];
  for (const [file, write] of writers) {
    if (deadline !== undefined && performance.now() > deadline && !ALWAYS_WRITTEN.has(file)) {
      outcome.skipped.push(file);
      continue;
    }
    try {
      staged.push(await stageFile(join(dir, file), write));
    } catch (err) {
      outcome.failed.push({ file, error: writeFailure(err) });
    }
  }
  // A partial run beside a complete one: the complete one is kept, whole, before this one takes its place.
  const previous = report.interrupted || outcome.failed.length > 0 || outcome.skipped.length > 0 ? completeRunIn(dir) : undefined;
  if (previous) {
    try {
      outcome.kept = { dir: keepPrevious(dir), startedAt: previous.startedAt };
    } catch (err) {
      outcome.notKept = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    }
  }
  const unplaced = commitStaged(staged);
  // A file left out goes with the run it came from: the folder never mixes this run's report with an older page.
  for (const file of outcome.skipped) rmSync(join(dir, file), { force: true });
  alongside?.();
  outcome.written = staged.map((s) => s.path).filter((p) => !unplaced.some((u) => u.path === p));
  for (const u of unplaced) outcome.failed.push({ file: basename(u.path), error: u.error });
  outcome.written.sort();
  return outcome;
}
