import { access, appendFile, constants, mkdir, open, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { CannotTestError } from '../engine/errors.js';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Boundary } from '../boundary/boundary.js';
import type { CallRecord, Report } from './model.js';
import { renderJson } from './writers/json.js';
import { renderJunit } from './writers/junit.js';
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
    return (e as NodeJS.ErrnoException).code ?? (e as Error).message;
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
    refuse('the reports to', paths.out, (e as NodeJS.ErrnoException).code ?? (e as Error).message, 'pass a writable --out');
  }
  const outWhy = await unwritableFolder(paths.out);
  if (outWhy) refuse('the reports to', paths.out, outWhy, 'pass a writable folder as --out');
  if (paths.baseline) {
    const target = paths.baseline;
    const info = await stat(target).catch(() => undefined);
    if (info?.isDirectory()) refuse('the baseline', target, 'it is a folder', 'pass a file path as --baseline');
    const why = info ? await access(target, constants.W_OK).then(() => undefined, (e: NodeJS.ErrnoException) => e.code ?? e.message) : await unwritableFolder(dirname(resolve(target)));
    if (why) refuse('the baseline', target, why === 'ENOENT' ? 'its folder does not exist' : why, 'create the folder, or pass another --baseline');
  }
  if (paths.summary) {
    try {
      await appendFile(paths.summary, '');
    } catch (e) {
      refuse('the step summary', paths.summary, (e as NodeJS.ErrnoException).code ?? (e as Error).message, 'check $GITHUB_STEP_SUMMARY');
    }
  }
}

export interface WriteOutcome {
  written: string[];
  failed: { file: string; error: string }[];
}

/** Trace records cleaned, rendered and written per batch: the trace of a long run is never one string. */
const TRACE_BATCH = 2000;

/** The temporary files being written: removed if the process quits meanwhile (a second Ctrl-C). */
const WRITING = new Set<string>();
let exitHooked = false;

/**
 * Writes `path` whole: `write` fills a temporary file, renamed over `path` once complete, so a reader never
 * sees half a file. A write that fails, or a process that quits meanwhile, leaves `path` as it was and no
 * temporary file.
 */
export async function writeWhole(path: string, write: (tmp: string) => Promise<void>): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', () => {
      for (const t of WRITING) rmSync(t, { force: true });
    });
  }
  WRITING.add(tmp);
  try {
    await write(tmp);
    await rename(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  } finally {
    WRITING.delete(tmp);
  }
}

/**
 * Writes every report file from a Report that has passed the output boundary (boundary.report), so every
 * string in it is already redacted, visible and bounded; the trace's records pass it here, a batch at a
 * time. Writers are isolated: one that throws is reported and the others still run. Each rendered file
 * passes the redactor once more (a writer's own text), and is written whole (writeWhole) so a reader never
 * sees half a report. One file at a time: what is held at once is one file's text (report.html
 * is written a batch at a time, its exchanges read from `har`, the run's complete exchanges.har).
 */
export async function writeReports(report: Report, trace: readonly CallRecord[], dir: string, boundary: Boundary, har?: string): Promise<WriteOutcome> {
  await ensureDir(dir);
  const writers: [string, (tmp: string) => Promise<void>][] = [
    ['report.json', (tmp) => writeFile(tmp, boundary.redact(renderJson(report)), 'utf8')],
    ['junit.xml', (tmp) => writeFile(tmp, boundary.redact(renderJunit(report)), 'utf8')],
    ['matrix.md', (tmp) => writeFile(tmp, boundary.redact(renderMatrix(report)), 'utf8')],
    ['report.html', (tmp) => writeHtml(tmp, report, har, (s) => boundary.redact(s))],
    [
      'trace.jsonl',
      async (tmp) => {
        const file = await open(tmp, 'w');
        try {
          for (let i = 0; i < trace.length; i += TRACE_BATCH) {
            await file.write(boundary.redact(traceLines(boundary.trace(trace.slice(i, i + TRACE_BATCH)))), null, 'utf8');
          }
        } finally {
          await file.close();
        }
      },
    ],
  ];
  const outcome: WriteOutcome = { written: [], failed: [] };
  for (const [file, write] of writers) {
    const path = join(dir, file);
    try {
      await writeWhole(path, write);
      outcome.written.push(path);
    } catch (err) {
      outcome.failed.push({ file, error: (err as Error).message });
    }
  }
  outcome.written.sort();
  return outcome;
}
