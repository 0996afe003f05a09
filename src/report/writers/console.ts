import pc from 'picocolors';
import { oneLine, wrapText } from '../../text.js';
import type { ProbeResult, Report } from '../../results/model.js';
import { cellText, extentText, VERDICT_TONE, type Tone } from '../style.js';
import { capsReachedText, comparedWithBaseline, describeChange, notRunText, saysNotRun, summarise } from '../summary.js';
import { EVERY_PROBE, isMissing, runModels, viewOf } from '../../results/view.js';
import { LISTED_LINES, MATRIX_MODELS } from '../bounds.js';

export interface Painter {
  tone(tone: Tone, text: string): string;
  bold(text: string): string;
  dim(text: string): string;
}

/** Colour only on a TTY, and never when NO_COLOR is set (https://no-color.org). */
export function painter(isTTY: boolean, env: NodeJS.ProcessEnv): Painter {
  const c = pc.createColors(isTTY && !('NO_COLOR' in env) && env.TERM !== 'dumb');
  const tones: Record<Tone, (s: string) => string> = { good: c.green, notice: c.yellow, bad: c.red, muted: c.gray };
  return { tone: (t, s) => tones[t](s), bold: c.bold, dim: c.dim };
}

const pad = (s: string, n: number) => s + ' '.repeat(Math.max(0, n - s.length));
/** A text cut to `n` characters, the cut said with an ellipsis. */
const fit = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, Math.max(0, n - 1))}…`);

/**
 * The largest of `values(x)` over `items`, at least `floor`: a loop, not Math.max(...spread), whose
 * arguments go on the stack (past ~120,000 of them, a RangeError: the server chooses how many models).
 */
function widest<T>(floor: number, items: Iterable<T>, value: (x: T) => number): number {
  let n = floor;
  for (const x of items) n = Math.max(n, value(x));
  return n;
}

/** One character per verdict, for matrices too wide for words (with a legend). */
export const VERDICT_SYMBOL: Record<ProbeResult['verdict'], string> = {
  honoured: 'H',
  accepted: 'A',
  ignored: 'I',
  rejected: 'R',
  pass: '.',
  warn: 'w',
  fail: 'F',
  inconclusive: '?',
  error: 'E',
};

/** Where the matrix is printed when no terminal says its width (a CI log, a file). */
export const DEFAULT_COLUMNS = 120;

/**
 * The matrix as text, within `columns` characters a line: probes down and models across while the models'
 * names fit as columns; else one symbol per cell under numbered models, with a legend; else one block per
 * model. Widths are measured before colour is added; no line ends in spaces. With `columns` given (a
 * terminal), the finding lines are cut to it too; without, they are whole (a log keeps every word).
 */
export function renderConsole(report: Report, paint: Painter, columns?: number): string {
  const width = Math.max(40, columns ?? DEFAULT_COLUMNS);
  const view = viewOf(report);
  // The matrix draws the first MATRIX_MODELS models; the rest are counted below it (report.json has them).
  // A model gone from GET /models is one line below (its advice), not a column of "not listed" cells.
  const planned = runModels(report);
  const models = planned.slice(0, MATRIX_MODELS);
  const hidden = planned.length - models.length;
  const names = models.map((m) => oneLine(m.id));
  const probeWidth = widest(5, report.probes, (p) => p.id.length);
  const lines: string[] = [];
  if (view.endpoint.length > 0) {
    lines.push(paint.bold('endpoint'));
    for (const { probe, result } of view.endpoint) {
      const text = result ? paint.tone(VERDICT_TONE[result.verdict], cellText(result.verdict, result.cause)) : '-';
      lines.push(`${pad(probe.id, probeWidth)}  ${text}`);
    }
    lines.push('');
  }
  const cellOf = (modelId: string, probeId: string) => view.cell(modelId, probeId);
  const widths = models.map((m, i) =>
    widest(names[i]!.length, view.matrixProbes, (p) => {
      const r = cellOf(m.id, p.id);
      return r ? cellText(r.verdict, r.cause).length : 1;
    }),
  );
  const fullWidth = probeWidth + widths.reduce((n, w) => n + 2 + w, 0);
  /** A row of cells: each padded to its column but the last, so no line ends in spaces. */
  const row = (first: string, cells: { text: string; tone?: Tone }[], colWidths: number[]) =>
    [pad(first, probeWidth), ...cells.map((c, i) => {
      const text = i === cells.length - 1 ? c.text : pad(c.text, colWidths[i]!);
      return c.tone ? paint.tone(c.tone, text) : text;
    })].join('  ').trimEnd();
  const numbered = models.map((_, i) => String(i + 1));
  const symbolWidth = String(models.length).length;
  if (models.length === 0 || fullWidth <= width) {
    lines.push(paint.bold(row('probe', names.map((text) => ({ text })), widths)));
    for (const p of view.matrixProbes) {
      lines.push(row(p.id, models.map((m) => {
        const r = cellOf(m.id, p.id);
        return r ? { text: cellText(r.verdict, r.cause), tone: VERDICT_TONE[r.verdict] } : { text: '-' };
      }), widths));
    }
  } else if (probeWidth + models.length * (symbolWidth + 1) <= width) {
    // Symbols under numbered models, one space apart.
    const cols = numbered.map(() => symbolWidth);
    const line = (first: string, cells: { text: string; tone?: Tone }[]) =>
      [pad(first, probeWidth), ' ', cells.map((c, i) => {
        const text = i === cells.length - 1 ? c.text : pad(c.text, cols[i]!);
        return c.tone ? paint.tone(c.tone, text) : text;
      }).join(' ')].join('').trimEnd();
    lines.push(paint.bold(line('probe', numbered.map((text) => ({ text })))));
    for (const p of view.matrixProbes) {
      lines.push(line(p.id, models.map((m) => {
        const r = cellOf(m.id, p.id);
        return r ? { text: VERDICT_SYMBOL[r.verdict], tone: VERDICT_TONE[r.verdict] } : { text: '-' };
      })));
    }
    lines.push('');
    for (const [i, name] of names.entries()) lines.push(fit(`${pad(numbered[i]!, symbolWidth)}  ${name}`, width));
    const legend = Object.entries(VERDICT_SYMBOL).map(([v, sym]) => `${sym} ${v}`);
    for (const l of wrapText(`${legend.join(', ')}, - not run`, width)) lines.push(l);
  } else {
    // One block per model: probe and verdict on each line, the verdicts in one column.
    const verdictWidth = widest(5, report.results, (r) => cellText(r.verdict, r.cause).length);
    const room = Math.max(10, Math.min(probeWidth, width - 4 - Math.min(verdictWidth, 20)));
    for (const [i, m] of models.entries()) {
      if (i > 0) lines.push('');
      lines.push(paint.bold(fit(names[i]!, width)));
      for (const p of view.matrixProbes) {
        const r = cellOf(m.id, p.id);
        const text = fit(r ? cellText(r.verdict, r.cause) : '-', width - 4 - room);
        lines.push(`  ${pad(fit(p.id, room), room)}  ${r ? paint.tone(VERDICT_TONE[r.verdict], text) : text}`);
      }
    }
  }
  if (hidden > 0) {
    lines.push('');
    for (const l of wrapText(`the matrix shows the first ${models.length} of ${planned.length} models; report.json has every cell of the other ${hidden}`, width)) lines.push(l);
  }
  // A model that was not probed is explained once below, not once per probe.
  const stopped = new Set(report.models.filter((m) => m.cause).map((m) => m.id));
  const notable = report.results.filter((r) => !stopped.has(r.model) && (r.outcome !== 'passed' || r.verdict === 'warn' || r.comparison === 'improvement'));
  if (notable.length > 0) lines.push('');
  const cut = (text: string) => (columns === undefined ? text : fit(text, width));
  // Past LISTED_LINES finding lines, the rest are counted in one line: a run's findings grow with its models.
  let listed = 0;
  let unlisted = 0;
  const finding = (text: string) => {
    if (listed++ < LISTED_LINES) lines.push(text);
    else unlisted++;
  };
  // Cells not run for one reason (Ctrl-C, --max-duration, a model that stopped answering) are one line a
  // model, not one each: a stopped run would list hundreds alike.
  const notRun = new Map<string, ProbeResult[]>();
  for (const r of notable) {
    if (!r.notRun || r.comparison === 'regression') finding(findingLine(r, paint, cut));
    else {
      const key = `${r.model}\u0000${r.cause ?? ''}\u0000${r.observed}`;
      const group = notRun.get(key);
      if (group) group.push(r);
      else notRun.set(key, [r]);
    }
  }
  for (const group of notRun.values()) {
    const r = group[0]!;
    finding(group.length === 1 ? findingLine(r, paint, cut) : findingLine({ ...r, probe: `(${group.length} cells)` }, paint, cut));
  }
  if (unlisted > 0) lines.push(cut(`… and ${unlisted} more finding line(s): matrix.md and report.json have them`));
  // Rows not probed: a line each up to LISTED_LINES, then one line per cause for the rest (a run stopped
  // early by --max-duration leaves most of 100,000 rows not probed, for one reason).
  const rest = new Map<string, number>();
  let rows = 0;
  for (const m of report.models) {
    if (!m.cause) continue;
    const what = isMissing(m) ? 'missing' : `not probed (${m.cause})`;
    if (rows++ < LISTED_LINES) lines.push(paint.tone('bad', cut(`${what}: ${oneLine(m.id)}: ${m.advice ?? ''}`)));
    else rest.set(m.cause, (rest.get(m.cause) ?? 0) + 1);
  }
  for (const [cause, n] of rest) lines.push(paint.tone('bad', cut(`not probed (${cause}): ${n} more model(s), listed in report.json`)));
  const s = summarise(report);
  lines.push('');
  /** A closing line, wrapped to the terminal when there is one. */
  const say = (text: string) => {
    for (const l of columns === undefined ? [text] : wrapText(text, width)) lines.push(l);
  };
  say(
    `${extentText(planned.length, report.probes)}, ${report.calls} calls in ${(report.durationMs / 1000).toFixed(1)} s: ` +
      `${s.outcomes.passed} passed, ${s.outcomes.failed} failed, ${s.outcomes.skipped} skipped, ${s.outcomes.errored} errored` +
      (report.interrupted ? ' (interrupted: partial report)' : '') +
      (report.maxDurationReached ? ' (stopped at --max-duration: partial report)' : '') +
      (capsReachedText(report) ? ` (${capsReachedText(report)})` : '') +
      (saysNotRun(report) ? `; ${notRunText(report, s)}` : ''),
  );
  if (report.baseline && report.baseline.updated && !comparedWithBaseline(report)) {
    say(`baseline ${report.baseline.path}: written from this run (there was none to compare with)`);
  } else if (report.baseline && !comparedWithBaseline(report)) {
    say(`baseline ${report.baseline.path}: no cell was compared with it (there was none yet, or the run stopped first)`);
  } else if (report.baseline) {
    say(
      `baseline ${report.baseline.path}: ${s.comparisons.regression} regression(s), ${s.comparisons.improvement} improvement(s), ${s.comparisons.new} new${s.comparisons.missing ? `, ${s.comparisons.missing} model(s) missing` : ''}` +
        (report.baseline.updated ? '; rewritten from this run' : ''),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** A cell worth reading, on one line: the verdict coloured, the rest as it is (cut to the terminal). */
function findingLine(r: ProbeResult, paint: Painter, cut: (text: string) => string): string {
  const change = r.comparison === 'regression' || r.comparison === 'improvement' ? ` [${describeChange(r)}]` : '';
  const verdict = cellText(r.verdict, r.cause);
  const text = cut(`${verdict}${change}  ${oneLine(r.model)} ${r.probe}: ${oneLine(r.observed)}`);
  return `${paint.tone(VERDICT_TONE[r.verdict], text.slice(0, verdict.length))}${text.slice(verdict.length)}`.trimEnd();
}

/** The live line of a terminal: where the run is, what is in flight, and about how long is left. */
export function progressLine(r: ProbeResult, done: number, total: number, stats: { elapsedMs: number; inFlight: number; queued?: number }): string {
  const left = done > 0 && done < total ? ` · about ${Math.ceil((stats.elapsedMs * (total - done)) / done / 1000)} s left` : '';
  return `${(stats.elapsedMs / 1000).toFixed(0)} s · ${stats.inFlight} in flight${stats.queued ? `, ${stats.queued} queued` : ''} · [${done}/${total}]${left} · ${oneLine(r.model)} ${r.probe}: ${cellText(r.verdict, r.cause)}`;
}

/**
 * Piped output's progress: one line per model as its last cell comes (and one for the endpoint's probes),
 * counted by outcome, instead of a line per cell.
 */
export class RowProgress {
  private readonly counts = new Map<string, { done: number; passed: number; failed: number; skipped: number; errored: number }>();

  constructor(
    /** Cells each row has: a model's probes, or the endpoint's. */
    private readonly cellsOf: (model: string) => number,
  ) {}

  /** The line to print once `r` completes its row, or undefined. */
  add(r: ProbeResult, done: number, total: number): string | undefined {
    const c = this.counts.get(r.model) ?? { done: 0, passed: 0, failed: 0, skipped: 0, errored: 0 };
    this.counts.set(r.model, c);
    // A row not probed comes as one result for all its cells, and is counted once, as the summary counts it.
    c.done += r.probe === EVERY_PROBE ? this.cellsOf(r.model) : 1;
    c[r.outcome] += 1;
    if (c.done < this.cellsOf(r.model)) return undefined;
    this.counts.delete(r.model);
    const why = r.probe === EVERY_PROBE ? `: not probed (${cellText(r.verdict, r.cause)})` : '';
    return `[${done}/${total}] ${oneLine(r.model)}: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped, ${c.errored} errored${why}`;
  }
}
