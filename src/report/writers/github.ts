import type { Report } from '../../results/model.js';
import { describeChange, notRunText, summarise } from '../summary.js';
import { escapeText, renderMatrix } from './markdown.js';
import { LISTED_LINES } from '../bounds.js';

/** GitHub caps a step summary at 1 MiB; stay well under it. */
export const SUMMARY_LIMIT = 1000 * 1024;
export const MAX_ANNOTATIONS = 10;

/** The step summary: what failed the gate first, then the matrix, cut to fit. */
export function renderGithubSummary(report: Report): string {
  const s = summarise(report);
  const head: string[] = [];
  if (s.failures.length > 0) {
    const stopped = notRunText(report, s);
    head.push(`## chatprobe: ${s.failures.length} failing cell(s)${stopped ? ` (${stopped})` : ''}`, '');
    // The first LISTED_LINES of them: the summary is cut at 1 MiB anyway, and 100,000 lines cost memory first.
    for (const r of s.failures.slice(0, LISTED_LINES)) head.push(`- **${escapeText(r.model)}** · \`${r.probe}\`: ${describeChange(r)}: ${escapeText(r.observed)}`);
    if (s.failures.length > LISTED_LINES) head.push(`- … and ${s.failures.length - LISTED_LINES} more: see the reports`);
    head.push('');
  }
  // A name that no longer serves the model its baseline requires (identity.*): it fails the run too.
  const swapped = (report.identity ?? []).filter((c) => c.outcome === 'failed');
  if (swapped.length > 0) {
    head.push(`## chatprobe: ${swapped.length} model(s) not the baseline's`, '');
    for (const c of swapped.slice(0, LISTED_LINES)) head.push(`- **${escapeText(c.model)}**: ${c.verdict}, the baseline requires ${c.require === 'same' ? 'the same model' : 'no different model'}: ${escapeText(c.why)}`);
    head.push('');
  }
  const text = `${head.join('\n')}${renderMatrix(report)}`;
  if (Buffer.byteLength(text) <= SUMMARY_LIMIT) return text;
  const note = '\n\n… cut to fit the 1 MiB step summary: see matrix.md in the reports.\n';
  let cut = text.slice(0, SUMMARY_LIMIT - note.length);
  while (Buffer.byteLength(cut) > SUMMARY_LIMIT - note.length) cut = cut.slice(0, -1024);
  return cut + note;
}

/** Workflow-command escaping (GitHub's toolkit): data and property values differ. */
const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/** One ::error annotation per failing cell, at most ten, and a note for the rest. Line breaks, percent signs
 *  and (in properties) colons and commas are escaped, so a model id cannot end the command or start another. */
export function githubAnnotations(report: Report): string[] {
  const { failures } = summarise(report);
  const lines = failures.slice(0, MAX_ANNOTATIONS).map((r) => {
    const title = escapeProperty(`chatprobe ${r.model} ${r.probe}`);
    return `::error title=${title}::${escapeData(`${r.model} · ${r.probe}: ${describeChange(r)}: ${r.observed}`)}`;
  });
  if (failures.length > MAX_ANNOTATIONS) lines.push(`::notice::${failures.length - MAX_ANNOTATIONS} more failing cell(s): see the step summary`);
  for (const c of (report.identity ?? []).filter((x) => x.outcome === 'failed').slice(0, MAX_ANNOTATIONS)) {
    lines.push(`::error title=${escapeProperty(`chatprobe ${c.model} identity`)}::${escapeData(`${c.model}: ${c.verdict}, the baseline requires ${c.require === 'same' ? 'the same model' : 'no different model'}: ${c.why}`)}`);
  }
  return lines;
}
