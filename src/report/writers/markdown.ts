import { oneLine } from '../../text.js';
import type { ProbeResult, Report } from '../../results/model.js';
import { cellText, extentText, VERDICT_MARK } from '../style.js';
import { capsReachedText, comparedWithBaseline, describeChange, notRunText, saysNotRun, summarise } from '../summary.js';
import { isMissing, runModels, viewOf } from '../../results/view.js';
import { REPRODUCIBLE, reproLine } from '../repro.js';
import { LISTED_LINES, MATRIX_MODELS } from '../bounds.js';
import { viewFingerprint } from '../../results/identity.js';

/**
 * Text from a server (or a user) in Markdown, safe in a table cell and in a GitHub step summary: one line,
 * and every character Markdown or GitHub acts on escaped with a backslash (links, images, HTML, emphasis,
 * code, pipes, math, mentions), including the triggers of bare-URL autolinks (`://`, `www.`). What renders
 * is the text as sent; nothing in it can load, link or format.
 */
export function escapeText(text: string): string {
  return oneLine(text)
    .replace(/[\\`*_{}[\]()#!|<>~@&$]/g, '\\$&')
    .replace(/:(?=\/\/)/g, '\\:')
    .replace(/(www)\./gi, '$1\\.')
    // cmark-gfm links e-mail addresses after parsing, escaped or not: a word joiner after the @ breaks the address.
    .replace(/@/g, '@\u2060');
}

/**
 * A command as a code span that shows it exactly, rendered and raw: code spans take no escapes, so nothing
 * of escapeText's may touch it; the fence is one backtick longer than any run inside (no backtick in it can
 * close the span), and a space pads a command that begins or ends with a backtick or a space (CommonMark
 * strips one from each side). The command is one line (shellQuote writes line breaks as escapes), so no
 * block (a list item, a heading) can start inside it.
 */
export function codeSpan(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = /^[` ]|[` ]$/.test(text) ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

const CHANGE: Partial<Record<string, string>> = { regression: ' **⬇ regression**', improvement: ' ⬆ improvement' };

const cell = (r: ProbeResult | undefined) =>
  r ? `${VERDICT_MARK[r.verdict]} ${cellText(r.verdict, r.cause)}${r.comparison ? (CHANGE[r.comparison] ?? '') : ''}` : '—';

/** The billing calls of each model, the deduction beside the usage and the listed price (billing.* probes). */
function quotaSection(report: Report): string[] {
  const b = report.billing;
  if (!b || ('off' in b && b.off === 'no billing probe selected')) return [];
  if ('off' in b) return ['## Quota deduction', '', `Not audited: ${escapeText(b.off)}.`, ''];
  const out = ['## Quota deduction', '', `Read through \`${escapeText(b.route)}\` (${escapeText(b.kind)}), in ${escapeText(b.unit)}: each call sent between two reads of the balance, nothing else in flight.`, ''];
  const rows = report.models.filter((m) => m.billing);
  if (rows.length === 0) return [...out, 'No model was called for it.', ''];
  const priced = rows.some((m) => m.billing!.prices !== undefined);
  const list = rows.find((m) => m.billing!.prices !== undefined)?.billing!.prices;
  if (list !== undefined) out.push(`Listed prices from ${escapeText(list)} (--prices), for the model asked and the tokens reported.`, '');
  out.push(`| model | call | HTTP | limit | usage (prompt + completion) | deducted | ${priced ? 'listed | ' : ''}per token | shown after |`, `|---|---|---|---|---|---|${priced ? '---|' : ''}---|---|`);
  const notes: string[] = [];
  const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  for (const m of rows) {
    const bill = m.billing!;
    for (const c of bill.calls) {
      const tokens = c.promptTokens !== undefined && c.completionTokens !== undefined ? c.promptTokens + c.completionTokens : undefined;
      const usage = tokens === undefined ? '—' : `${c.promptTokens} + ${c.completionTokens}`;
      const perToken = tokens ? String(Number((c.deducted / tokens).toPrecision(4))) : '—';
      const lag = c.lagMs === undefined ? '—' : `${c.lagMs} ms`;
      // A deduction given to no call is marked, and said under the table.
      const deducted = `${Number(c.deducted.toPrecision(6))}${c.unattributed ? ' (?)' : ''}`;
      const listed = c.listed === undefined ? '—' : `${Number(c.listed.toPrecision(6))}${c.pricedAs ? ` (billed as ${c.pricedAs.map(escapeText).join(', ')})` : ''}`;
      out.push(`| ${escapeText(m.id)} | ${c.call} | ${c.status ?? '—'} | ${c.limit} | ${usage} | ${deducted} | ${priced ? `${listed} | ` : ''}${perToken} | ${lag} |`);
      if (c.unattributed) notes.push(`- **${escapeText(m.id)}** ${c.call} (?): ${escapeText(c.unattributed)}`);
    }
    if (bill.settlement && bill.settlement.lateMs > 0) {
      notes.push(`- **${escapeText(m.id)}**: the balance was watched ${secs(bill.settlement.quietMs)} with nothing sent before the calls; it showed charges up to ${secs(bill.settlement.lateMs)} after their call`);
    }
    if (bill.unmeasurable) notes.push(`- **${escapeText(m.id)}**: ${escapeText(bill.unmeasurable)}`);
    if (bill.unbilled) notes.push(`- **${escapeText(m.id)}**: ${escapeText(bill.unbilled)}`);
  }
  return [...out, '', ...(notes.length > 0 ? [...notes, ''] : [])];
}

/**
 * Each model's fingerprint (identity.*): its signal, its own spread at temperature 0, the anchor's answers;
 * and, with a baseline that keeps fingerprints, the comparison with it (report/gate.ts).
 */
function identitySection(report: Report): string[] {
  const rows = report.models.filter((m) => m.fingerprint && !m.notRun);
  const checks = new Map((report.identity ?? []).map((c) => [c.model, c]));
  if (rows.length === 0) return [];
  const out = ['## Fingerprints', '', '| model | fingerprint | against the baseline |', '|---|---|---|'];
  for (const m of rows.slice(0, LISTED_LINES)) {
    const c = checks.get(m.id);
    const gate = c ? `${c.outcome === 'failed' ? '❌ ' : ''}${c.verdict}${c.require ? ` (requires ${c.require.replace('_', ' ')})` : ''}: ${escapeText(c.why)}` : '—';
    out.push(`| ${escapeText(m.id)} | ${escapeText(viewFingerprint(m.fingerprint!).text)} | ${gate} |`);
  }
  if (rows.length > LISTED_LINES) out.push('', `The table lists the first ${LISTED_LINES} of ${rows.length} fingerprints; report.json has them all.`);
  return [...out, ''];
}

export function renderMatrix(report: Report): string {
  const s = summarise(report);
  const view = viewOf(report);
  const out: string[] = [];
  out.push('# chatprobe capability matrix', '');
  out.push(
    `Target ${escapeText(report.target.baseUrl)} · ${extentText(runModels(report).length, report.probes)} · ` +
      `${report.calls} calls · ${(report.durationMs / 1000).toFixed(1)} s · chatprobe ${report.tool.version}` +
      (report.interrupted ? ' · **interrupted: partial report**' : '') +
      (report.maxDurationReached ? ' · **stopped at --max-duration: partial report**' : '') +
      (capsReachedText(report) ? ` · **${capsReachedText(report)}**` : ''),
  );
  out.push('');
  if (view.endpoint.length > 0) {
    out.push('## Endpoint', '');
    out.push('| probe | verdict | observed |');
    out.push('|---|---|---|');
    for (const { probe, result } of view.endpoint) {
      out.push(`| \`${probe.id}\` | ${cell(result)} | ${result ? escapeText(result.observed) : 'not run'} |`);
    }
    out.push('', '## Models', '');
  }
  // The first MATRIX_MODELS models as columns; the others are counted under the table (report.json has them).
  // A model gone from GET /models is a line under the table, not a column of "not listed" cells.
  const planned = runModels(report);
  const columns = planned.slice(0, MATRIX_MODELS);
  out.push(`| probe | kind | ${columns.map((m) => escapeText(m.id)).join(' | ')} |`);
  out.push(`|---|---|${columns.map(() => '---').join('|')}|`);
  for (const p of view.matrixProbes) {
    const cells = columns.map((m) => cell(view.cell(m.id, p.id)));
    out.push(`| \`${p.id}\` | ${p.kind} | ${cells.join(' | ')} |`);
  }
  out.push('');
  if (columns.length < planned.length) {
    out.push(`The matrix shows the first ${columns.length} of ${planned.length} models; report.json has every cell of the other ${planned.length - columns.length}.`, '');
  }
  const missing = report.models.filter(isMissing);
  for (const m of missing.slice(0, LISTED_LINES)) out.push(`- ${VERDICT_MARK.error} **${escapeText(m.id)}** **⬇** ${escapeText(m.notRun!.observed)}`);
  if (missing.length > LISTED_LINES) out.push(`- … and ${missing.length - LISTED_LINES} more model(s) missing: report.json has them`);
  if (missing.length > 0) out.push('');
  out.push(
    `Results: ${s.outcomes.passed} passed, ${s.outcomes.failed} failed, ${s.outcomes.skipped} skipped, ${s.outcomes.errored} errored` +
      (saysNotRun(report) ? `; ${notRunText(report, s)}.` : '.') +
      (report.baseline && report.baseline.updated && !comparedWithBaseline(report)
        ? ` The baseline ${escapeText(report.baseline.path)} was written from this run (there was none to compare with).`
        : report.baseline && !comparedWithBaseline(report)
        ? ` No cell was compared with the baseline ${escapeText(report.baseline.path)} (there was none yet, or the run stopped first).`
        : report.baseline
        ? ` Against the baseline ${escapeText(report.baseline.path)}: ${s.comparisons.regression} regression(s), ${s.comparisons.improvement} improvement(s), ${s.comparisons.new} new${s.comparisons.missing ? `, ${s.comparisons.missing} model(s) missing` : ''}.` +
          (report.baseline.updated ? ' The baseline was rewritten from this run.' : '')
        : ''),
  );
  out.push('');
  out.push('## Model facts', '');
  out.push('| model | listed | smoke call | median TTFT | median chunk gap | chunks/s | note |');
  out.push('|---|---|---|---|---|---|---|');
  // A line per model up to LISTED_LINES; the rest are counted by cause in one line.
  const unlisted = new Map<string, number>();
  for (const [i, m] of report.models.entries()) {
    if (i >= LISTED_LINES) {
      const why = m.cause ? `not probed (${m.cause})` : 'probed';
      unlisted.set(why, (unlisted.get(why) ?? 0) + 1);
      continue;
    }
    const smoke = m.smoke ? `${m.smoke.status ?? '—'} in ${Math.round(m.smoke.durationMs)} ms` : 'not sent';
    const ttft = m.metrics?.ttftMsMedian !== undefined ? `${m.metrics.ttftMsMedian} ms` : '—';
    const gap = m.metrics?.gapMsMedian !== undefined ? `${m.metrics.gapMsMedian} ms` : '—';
    const cps = m.metrics?.chunksPerSecondMedian !== undefined ? `${Math.round(m.metrics.chunksPerSecondMedian)}` : '—';
    const notes = [
      m.cause ? `${m.cause}: ${m.advice ?? ''}` : '',
      m.smoke?.runaway ? 'does not stop on its own: audited with output limits (see chat.finish_reason)' : '',
      m.stalled ? `stopped answering: ${m.stalled.length} requests in a row ran past --timeout (${m.stalled.join(', ')}); nothing more was sent` : '',
    ];
    const note = notes.filter(Boolean).join('; ');
    out.push(`| ${escapeText(m.id)} | ${m.listed ? 'yes' : 'no'} | ${smoke} | ${ttft} | ${gap} | ${cps} | ${escapeText(note)} |`);
  }
  out.push('');
  if (unlisted.size > 0) {
    const counts = [...unlisted].map(([why, n]) => `${n} ${why}`).join(', ');
    out.push(`The table lists the first ${LISTED_LINES} of ${report.models.length} models; report.json has the other ${report.models.length - LISTED_LINES} (${counts}).`, '');
  }
  // What GET /models declares, beside what was observed (results/declared.ts).
  const declared = report.results.flatMap((r) => r.findings.filter((f) => f.code === 'declared_not_observed' || f.code === 'observed_not_declared').map((f) => ({ r, f })));
  if (declared.length > 0) {
    out.push('## Declared against observed', '');
    for (const { r, f } of declared.slice(0, LISTED_LINES)) out.push(`- ${f.severity === 'warn' ? '⚠️' : 'ℹ️'} **${escapeText(r.model)}** · \`${r.probe}\`: ${escapeText(f.message)}`);
    if (declared.length > LISTED_LINES) out.push(`- … and ${declared.length - LISTED_LINES} more: report.json has them`);
    out.push('');
  }
  for (const line of quotaSection(report)) out.push(line);
  for (const line of identitySection(report)) out.push(line);
  out.push('## Findings', '');
  // A model that was not probed is explained once, in the model facts, not once per probe.
  const stopped = new Set(report.models.filter((m) => m.cause).map((m) => m.id));
  const notable = report.results.filter(
    (r) => !stopped.has(r.model) && (r.comparison === 'regression' || r.comparison === 'improvement' || !['pass', 'honoured', 'accepted'].includes(r.verdict)),
  );
  if (notable.length === 0) out.push('Every probe passed or was honoured.');
  for (const r of notable.slice(0, LISTED_LINES)) {
    const change = r.comparison === 'regression' || r.comparison === 'improvement' ? ` (${describeChange(r)})` : '';
    out.push(`- **${escapeText(r.model)}** · \`${r.probe}\` — ${VERDICT_MARK[r.verdict]} ${cellText(r.verdict, r.cause)}${change}: ${escapeText(r.observed)}`);
    if (r.message && !r.observed.includes(r.message)) out.push(`  - server said${r.status ? ` (HTTP ${r.status})` : ''}: ${escapeText(r.message)}`);
    if (r.evidence.length > 0) {
      out.push(`  - evidence: ${r.evidence.join(', ')} in trace.jsonl and exchanges.har`);
      // A code span: the raw line, copied, is the command, and so is the rendered one.
      if (REPRODUCIBLE.has(r.verdict)) out.push(`  - reproduce, in this folder: ${codeSpan(reproLine(r.model, r.probe))}`);
    }
  }
  if (notable.length > LISTED_LINES) out.push(`- … and ${notable.length - LISTED_LINES} more findings: report.json has them`);
  out.push('');
  out.push('## Probes', '');
  for (const p of report.probes) out.push(`- \`${p.id}\` (${p.kind}): ${escapeText(p.requirement)}`);
  out.push('');
  out.push(
    'Legend: ✅ honoured / pass · ☑️ accepted (no cheap way to see the effect) · 🟡 ignored · ⛔ rejected · ⚠️ warn · ❌ fail · ❔ inconclusive · 💥 error (cause).',
  );
  return `${out.join('\n')}\n`;
}
