import { ENDPOINT } from '../../results/model.js';
import { LISTED_LINES } from '../bounds.js';
import { sideBySide, type SideRow } from '../compare.js';
import type { ComparedRun } from './compare-html.js';
import { codeSpan, escapeText } from './markdown.js';

/** How a row changed, in the words of a run of several endpoints (each against the first). */
const CHANGE_WORDS: Record<NonNullable<SideRow['change']>, string> = {
  worse: 'worse than the first',
  better: 'better than the first',
  different: 'different',
  model_missing: 'model gone from one',
  model_added: 'model not at the first',
};

/**
 * The matrix.md of a run of several endpoints: a column per endpoint, a row per model and probe, the rows
 * that differ from the first endpoint first; past LISTED_LINES rows the rest are counted, and each
 * endpoint's own matrix.md (in its folder) has every cell.
 */
export function renderSideMatrix(runs: readonly ComparedRun[]): string {
  const view = sideBySide(runs.map((r) => r.report));
  const lines = ['# chatprobe: endpoints side by side', ''];
  for (const r of runs) {
    const s = r.report.summary;
    lines.push(`- **${escapeText(r.label)}**: ${escapeText(r.report.target.baseUrl)}${s ? ` · exit code ${s.exitCode}` : ''} · reports in ${codeSpan(r.path)}`);
  }
  lines.push('', `${view.differences.length} cell(s) differ from the first endpoint; ${view.same.length} alike or not compared.`, '');
  const head = `| model | probe | ${runs.map((r) => escapeText(r.label)).join(' | ')} | change |`;
  lines.push(head, `|${' --- |'.repeat(runs.length + 3)}`);
  const rows = [...view.differences, ...view.same];
  for (const row of rows.slice(0, LISTED_LINES)) {
    const cells = row.cells.map((c) => (c ? escapeText(c.verdict === 'error' && c.cause ? `error: ${c.cause}` : c.verdict) : '—'));
    const change = row.change ? CHANGE_WORDS[row.change] : row.notCompared ? `not compared: ${escapeText(row.notCompared)}` : '';
    lines.push(`| ${row.model === ENDPOINT ? '(endpoint)' : codeSpan(row.model)} | ${codeSpan(row.probe)} | ${cells.join(' | ')} | ${change} |`);
  }
  if (rows.length > LISTED_LINES) lines.push('', `… and ${rows.length - LISTED_LINES} more row(s): each endpoint's matrix.md and report.json have every cell.`);
  return `${lines.join('\n')}\n`;
}
