import { existsSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Boundary } from '../boundary/boundary.js';
import { loadConfig } from '../config/file.js';
import { resolveEndpoints, secretsOf, type ResolvedOptions } from '../config/options.js';
import { CannotTestError } from '../errors.js';
import { HAR_FILE } from '../report/har.js';
import { readReport } from '../report/read.js';
import { ownVocabulary } from '../report/vocabulary.js';
import { ensureDir } from '../report/write.js';
import { writeCompareHtml, type ComparedRun } from '../report/writers/compare-html.js';
import { renderSideMatrix } from '../report/writers/side-markdown.js';
import { EXIT } from '../results/exit.js';
import { auditWith } from './audit.js';
import { cannotTest, displayPath, err } from './output.js';

/**
 * `chatprobe --base-url A --base-url B`: each endpoint audited in turn, as a run of its own (its reports,
 * record and baseline in its folder of --out, so `judge`, `repro` and baselines work per endpoint), then
 * matrix.md and report.html at the top of --out with a column per endpoint (report/compare.ts sideBySide).
 *
 * One after the other, not side by side: --concurrency and --rpm are what the user allows at once, and
 * the endpoints are often one upstream behind two gateways, which would see twice the load; the console
 * then shows one run's progress at a time. --max-duration stays the whole run's: each endpoint gets an
 * equal share of the time left when it starts. The exit code is the worst of the endpoints'.
 */
export async function auditEndpoints(endpoints: readonly ResolvedOptions[], env: NodeJS.ProcessEnv): Promise<number> {
  const first = endpoints[0]!;
  // The top of --out: the folder every endpoint's folder is in.
  const out = join(first.out, '..');
  if (first.json) return cannotTest(new CannotTestError('--json prints one report, and this run audits several endpoints', "read each endpoint's report.json in its folder of --out"));
  // One baseline file rewritten by each endpoint in turn would keep the last one's cells only.
  if (first.updateBaseline) return cannotTest(new CannotTestError('--update-baseline writes one baseline file, and this run audits several endpoints', 'update each endpoint\'s baseline in a run of its own (--base-url URL --baseline FILE --update-baseline)'));
  const say = (text: string) => {
    if (!first.quiet) err(text);
  };
  const end = first.maxDurationMs === undefined ? undefined : performance.now() + first.maxDurationMs;
  const codes: number[] = [];
  const done: ResolvedOptions[] = [];
  for (const [i, options] of endpoints.entries()) {
    const share = end === undefined ? undefined : Math.max(1, Math.floor((end - performance.now()) / (endpoints.length - i)));
    say(`endpoint ${i + 1} of ${endpoints.length}: ${options.baseUrl} → ${displayPath(options.out)}\n`);
    const code = await auditWith(share === undefined ? options : { ...options, maxDurationMs: share }, env);
    codes.push(code);
    done.push(options);
    if (code === EXIT.interrupted) break;
  }
  let worst = Math.max(...codes);
  if (first.dryRun) return worst;
  // The endpoints that wrote a report, side by side.
  const runs: ComparedRun[] = [];
  for (const options of done) {
    if (!existsSync(join(options.out, 'report.json'))) continue;
    const report = await readReport(options.out);
    runs.push({ label: new URL(options.baseUrl).host, path: options.out, report, harPath: join(options.out, HAR_FILE) });
  }
  // Two endpoints on one host are told apart by their folders.
  if (new Set(runs.map((r) => r.label)).size < runs.length) for (const r of runs) r.label = r.path.slice(r.path.lastIndexOf('/') + 1);
  if (runs.length < 2) {
    say(`not written: the side-by-side matrix.md and report.html in ${displayPath(out)} (${runs.length} endpoint(s) wrote a report)\n`);
    return worst;
  }
  // Every endpoint's secrets (its key, its headers' values) kept out of the files that show them all.
  const boundary = Boundary.of(endpoints.flatMap(secretsOf), { vocabulary: ownVocabulary() });
  const redact = (s: string) => boundary.redact(s);
  const shown = runs.map((r) => ({ ...r, report: boundary.report(r.report) }));
  try {
    await ensureDir(out);
    // Each file written beside, then put in place: a reader never sees half of one.
    const matrix = join(out, 'matrix.md');
    await writeFile(`${matrix}.tmp`, redact(renderSideMatrix(shown)));
    await rename(`${matrix}.tmp`, matrix);
    const page = join(out, 'report.html');
    await writeCompareHtml(`${page}.tmp`, `chatprobe · ${runs.length} endpoints`, shown, redact);
    await rename(`${page}.tmp`, page);
    say(`endpoints side by side: ${displayPath(matrix)}, ${displayPath(page)}\n`);
  } catch (e) {
    err(`error: could not write the side-by-side reports in ${displayPath(out)}: ${(e as Error).message}\n`);
    worst = Math.max(worst, EXIT.cannotTest);
  }
  return worst;
}

/** chatprobe [audit]: one endpoint audited (cli/audit.ts auditWith), or several in turn, side by side. */
export async function auditCommand(flags: Record<string, unknown>, env: NodeJS.ProcessEnv, configPath?: string): Promise<number> {
  let endpoints: ResolvedOptions[];
  try {
    endpoints = resolveEndpoints(flags, env, loadConfig(configPath).config);
  } catch (e) {
    return cannotTest(e);
  }
  // Several base URLs: each audited in turn, then shown side by side (cli/endpoints.ts).
  if (endpoints.length > 1) return auditEndpoints(endpoints, env);
  return auditWith(endpoints[0]!, env);
}
