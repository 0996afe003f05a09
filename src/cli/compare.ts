import { Boundary } from '../boundary/boundary.js';
import { oneLine } from '../text.js';
import { CannotTestError } from '../errors.js';
import { compareReports, type ReportComparison } from '../report/compare.js';
import { readReport, reportFile } from '../report/read.js';
import { writeCompareHtml } from '../report/writers/compare-html.js';
import { unreadable } from '../words.js';
import { EXIT } from '../results/exit.js';
import type { Report } from '../results/model.js';
import { HAR_FILE } from '../report/har.js';
import { displayPath, err, out } from './output.js';
import { dirname, join } from 'node:path';

/** What the fingerprints say, model by model: the verdict, then the test's figures and where the two differ. */
export function identityLines(identity: ReportComparison['identity']): string[] {
  if (identity.length === 0) return [];
  const count = (v: string) => identity.filter((i) => i.comparison.verdict === v).length;
  const lines = [`identity: ${identity.length} model(s) fingerprinted in both: ${count('same')} same, ${count('different')} different, ${count('unverifiable')} unverifiable`];
  let width = 0;
  for (const i of identity) width = Math.max(width, oneLine(i.model).length);
  for (const { model, comparison: c } of identity) {
    // The why ends with the measured false alarms; the power is the calibration's, at the floor only. The
    // tokenizers' counts are exact: no rate of chance to quote (docs/identity.md).
    const power =
      c.signal === 'tokenizer'
        ? 'exact counts: false alarms 0, no power figure needed'
        : c.verdict === 'unverifiable'
          ? 'no verdict, so no power to quote'
          : c.power === undefined
            ? 'power not measured at this threshold'
            : `power ${Math.round(c.power * 1000) / 10}% against a Q4_0 twin in the calibration`;
    lines.push(`${c.verdict.padEnd(13)}  ${oneLine(model).padEnd(width)}  ${oneLine(c.why)} (${power}; n = ${c.sampleSize.a}/${c.sampleSize.b} answers over ${c.sampleSize.prompts} prompts)`);
    const t = c.tokenizer;
    if (t && t.a.family !== t.b.family) lines.push(`${''.padEnd(13)}  ${''.padEnd(width)}    tokenizer: A ${oneLine(t.a.label)} (the unit ${t.a.unitTokens} tokens a copy), B ${oneLine(t.b.label)} (${t.b.unitTokens})`);
    for (const w of c.verdict === 'same' ? [] : c.where) lines.push(`${''.padEnd(13)}  ${''.padEnd(width)}    ${w.prompt}: ${c.signal === 'logprobs' ? `moved ${Math.round(w.distance * 1000) / 1000}, ` : ''}A ${JSON.stringify(w.a ?? null)}, B ${JSON.stringify(w.b ?? null)}`);
  }
  return lines;
}

/** The headline's word on identity: a name that now serves another model makes B worse, as the exit code says. */
function identityHeadline(identity: ReportComparison['identity']): string {
  const different = identity.filter((i) => i.comparison.verdict === 'different').length;
  return different > 0 ? `; ${different} model(s) a different model in B than in A (worse: see identity below)` : '';
}

/** chatprobe compare A B: the cells that differ between two reports; exit 1 when B is worse than A. */
export async function compareCommand(a: string, b: string, args: { json: boolean; html?: string | undefined }): Promise<number> {
  try {
    // The reports were redacted when written and no secret is known here; the boundary still bounds and
    // shows what a report file carries, which may have been edited by hand.
    const boundary = new Boundary();
    const [ra, rb] = (await Promise.all([readReport(a), readReport(b)])).map((r) => boundary.report(r)) as [Report, Report];
    const result = compareReports(ra, rb);
    if (args.html) {
      // Each report's exchanges.har, beside its report.json, holds the evidence the page shows.
      const har = async (path: string) => join(dirname(await reportFile(path)), HAR_FILE);
      const runs = [
        { label: 'A', path: a, report: ra, harPath: await har(a) },
        { label: 'B', path: b, report: rb, harPath: await har(b) },
      ];
      try {
        await writeCompareHtml(args.html, `chatprobe compare · ${ra.target.baseUrl} → ${rb.target.baseUrl}`, runs, (s) => boundary.redact(s));
      } catch (e) {
        throw new CannotTestError(`cannot write ${args.html}: ${unreadable(e)}`);
      }
      err(`comparison page: ${displayPath(args.html)}\n`);
    }
    if (args.json) {
      out(`${JSON.stringify(result, null, 2)}\n`);
    } else {
      const c = result.counts;
      const cells = result.changes.filter((x) => x.cells === undefined).length;
      const lines = [
        `compare ${oneLine(a)} → ${oneLine(b)}: ${cells} cell(s) differ: ${c.worse} worse, ${c.better} better, ${c.different} different` +
          (c.model_missing ? `; ${c.model_missing} model(s) gone from B (worse)` : '') +
          (c.model_added ? `; ${c.model_added} model(s) new in B` : '') +
          identityHeadline(result.identity),
      ];
      if (result.probesOnlyIn.a.length > 0) lines.push(`not compared, only in A: ${result.probesOnlyIn.a.join(', ')}`);
      if (result.probesOnlyIn.b.length > 0) lines.push(`not compared, only in B: ${result.probesOnlyIn.b.join(', ')}`);
      if (result.modelsOnlyIn.a.length > 0) lines.push(`not compared, models B's --models left out: ${result.modelsOnlyIn.a.map(oneLine).join(', ')}`);
      if (result.modelsOnlyIn.b.length > 0) lines.push(`not compared, models A's --models left out: ${result.modelsOnlyIn.b.map(oneLine).join(', ')}`);
      // A loop, not a spread: two runs of 100,000 models can differ in more cells than a call takes arguments.
      let width = 0;
      for (const x of result.changes) width = Math.max(width, oneLine(x.model).length);
      for (const x of result.changes) {
        const what =
          x.change === 'model_missing' ? `${x.probe}: ${x.cells} cell(s) in A, the model gone from B` : x.change === 'model_added' ? `${x.probe}: ${x.cells} cell(s) in B, the model not in A` : `${x.probe}: ${x.a ?? '—'} → ${x.b ?? '—'}`;
        lines.push(`${x.change.padEnd(13)}  ${oneLine(x.model).padEnd(width)}  ${what}`);
      }
      lines.push(...identityLines(result.identity));
      out(`${lines.join('\n')}\n`);
    }
    return result.worse ? EXIT.failed : EXIT.ok;
  } catch (e) {
    if (e instanceof CannotTestError) {
      err(`chatprobe: ${oneLine(e.message)}\n`);
      return EXIT.cannotTest;
    }
    throw e;
  }
}
