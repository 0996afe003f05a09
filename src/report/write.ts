import { mkdir, rename, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Boundary } from '../boundary/boundary.js';
import type { CallRecord, Report } from './model.js';
import { renderJson } from './writers/json.js';
import { renderJunit } from './writers/junit.js';
import { renderMatrix } from './writers/markdown.js';
import { renderTrace } from './writers/trace.js';

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

export interface WriteOutcome {
  written: string[];
  failed: { file: string; error: string }[];
}

/**
 * Writes every report file from a Report that has passed the output boundary (boundary.report), so every
 * string in it is already redacted, visible and bounded. Writers are isolated: one that throws is reported
 * and the others still run. Each rendered file passes the redactor once more (a writer's own text), and is
 * written whole (temp file, then rename) so a reader never sees half a report.
 */
export async function writeReports(report: Report, trace: readonly CallRecord[], dir: string, boundary: Boundary): Promise<WriteOutcome> {
  await ensureDir(dir);
  const writers: [string, () => string][] = [
    ['report.json', () => renderJson(report)],
    ['junit.xml', () => renderJunit(report)],
    ['matrix.md', () => renderMatrix(report)],
    ['trace.jsonl', () => renderTrace(trace)],
  ];
  const outcome: WriteOutcome = { written: [], failed: [] };
  await Promise.all(
    writers.map(async ([file, render]) => {
      const path = join(dir, file);
      try {
        const tmp = `${path}.${process.pid}.tmp`;
        await writeFile(tmp, boundary.redact(render()), 'utf8');
        await rename(tmp, path);
        outcome.written.push(path);
      } catch (err) {
        outcome.failed.push({ file, error: (err as Error).message });
      }
    }),
  );
  outcome.written.sort();
  return outcome;
}
