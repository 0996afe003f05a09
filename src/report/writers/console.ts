import pc from 'picocolors';
import { oneLine, wrapText } from '../../text.js';
import type { ModelEntry, ProbeInfo, ProbeResult, Report } from '../../results/model.js';
import { cellText, extentText, VERDICT_TONE, type Tone } from '../style.js';
import { capsReachedText, comparedWithBaseline, describeChange, failuresFirst, modelTotals, notRunText, saysNotRun, summarise, type ModelTotals } from '../summary.js';
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
 * names fit as columns; else the models numbered failures first and a symbol a cell (with a legend), probes
 * down and models across while they fit, else turned (a model a line, the probes across in bands), and a
 * table of the models, one line each with its name whole, before the closing lines. Widths are measured
 * before colour is added; no line ends in spaces. With `columns` given (a terminal), the finding lines are
 * cut to it too; without, they are whole (a log keeps every word).
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
  // The table of models, one line each, printed last when the grid has no room for their names.
  let table: string[] = [];
  if (models.length === 0 || fullWidth <= width) {
    lines.push(paint.bold(row('probe', names.map((text) => ({ text })), widths)));
    for (const p of view.matrixProbes) {
      lines.push(row(p.id, models.map((m) => {
        const r = cellOf(m.id, p.id);
        return r ? { text: cellText(r.verdict, r.cause), tone: VERDICT_TONE[r.verdict] } : { text: '-' };
      }), widths));
    }
  } else {
    // No room for the names as columns: the models numbered failures first, one symbol a cell, and their
    // names whole in the table of models at the end.
    const totals = modelTotals(report);
    const ranked = failuresFirst(planned, totals);
    const drawn = ranked.slice(0, MATRIX_MODELS);
    const symbolOf = (m: ModelEntry, p: ProbeInfo): Mark => {
      const r = cellOf(m.id, p.id);
      return r ? { text: VERDICT_SYMBOL[r.verdict], tone: VERDICT_TONE[r.verdict] } : { text: '-' };
    };
    const numberWidth = String(drawn.length).length;
    if (probeWidth + 1 + drawn.length * (numberWidth + 1) <= width) {
      // Probes down, the models across by number, a symbol a cell.
      for (const l of wrapText('probes down, models across by their number in the table of models below (failures first):', width)) lines.push(l);
      const line = (first: string, cells: Mark[]) =>
        [pad(first, probeWidth), ' ', cells.map((c, i) => {
          const text = i === cells.length - 1 ? c.text : pad(c.text, numberWidth);
          return c.tone ? paint.tone(c.tone, text) : text;
        }).join(' ')].join('').trimEnd();
      lines.push(paint.bold(line('probe', drawn.map((_, i) => ({ text: String(i + 1) })))));
      for (const p of view.matrixProbes) lines.push(line(p.id, drawn.map((m) => symbolOf(m, p))));
    } else {
      transposedMatrix(lines, drawn, view.matrixProbes, symbolOf, paint, width);
    }
    lines.push('');
    const legend = Object.entries(VERDICT_SYMBOL).map(([v, sym]) => `${sym} ${v}`);
    for (const l of wrapText(`${legend.join(', ')}, - not run`, width)) lines.push(l);
    table = modelTable(ranked, totals, comparedWithBaseline(report), paint, width);
    if (hidden > 0) {
      lines.push('');
      for (const l of wrapText(`the matrix shows the first ${drawn.length} of ${planned.length} models, failures first; the table of models below names every one, and report.json has every cell`, width)) lines.push(l);
    }
  }
  if (hidden > 0 && table.length === 0) {
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
  // A name that no longer serves the model its baseline requires (identity.*): a regression of its own.
  const swapped = (report.identity ?? []).filter((c) => c.outcome === 'failed');
  for (const c of swapped.slice(0, LISTED_LINES)) lines.push(paint.tone('bad', cut(`identity: ${oneLine(c.model)}: ${c.verdict}, the baseline requires ${c.require === 'same' ? 'the same model' : 'no different model'}: ${oneLine(c.why)}`)));
  if (swapped.length > LISTED_LINES) lines.push(paint.tone('bad', cut(`identity: ${swapped.length - LISTED_LINES} more model(s) not the baseline's, listed in report.json`)));
  if (table.length > 0) {
    lines.push('');
    for (const l of table) lines.push(l);
  }
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
        (swapped.length > 0 ? `, ${swapped.length} model(s) not the baseline's (identity)` : '') +
        (report.baseline.updated ? '; rewritten from this run' : ''),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** A cell as one character, and its colour. */
interface Mark {
  text: string;
  tone?: Tone;
}

/**
 * The matrix turned: a model a line (its number in the table of models, and its name as far as it fits),
 * the probes across, a symbol a cell, grouped by area and numbered in headers read downwards (the probes
 * named below). Past the width, the probes are cut into bands, each drawn for every model, whole areas
 * kept together where they fit.
 */
function transposedMatrix(lines: string[], models: ModelEntry[], probes: ProbeInfo[], markOf: (m: ModelEntry, p: ProbeInfo) => Mark, paint: Painter, width: number): void {
  const numberWidth = String(models.length).length;
  const names = models.map((m) => oneLine(m.id));
  const label = numberWidth + 1 + widest(1, names, (n) => n.length);
  const groups: { area: string; probes: { p: ProbeInfo; n: number }[] }[] = [];
  probes.forEach((p, i) => {
    const last = groups.at(-1);
    if (last && last.area === p.area) last.probes.push({ p, n: i + 1 });
    else groups.push({ area: p.area, probes: [{ p, n: i + 1 }] });
  });
  const across = probes.length + groups.length - 1;
  // The names get what one band leaves, when that is room enough to tell them apart; else a third of the width.
  const least = numberWidth + 1 + 12;
  const labelWidth = width - across - 1 >= least ? Math.min(label, width - across - 1) : Math.min(label, Math.max(least, Math.floor(width / 3)));
  const room = width - labelWidth - 1;
  const bands: (typeof groups)[] = [[]];
  let used = 0;
  for (const g of groups) {
    let rest = g.probes;
    while (rest.length > 0) {
      const gap = bands.at(-1)!.length > 0 ? 1 : 0;
      if (used + gap + rest.length <= room) {
        bands.at(-1)!.push({ area: g.area, probes: rest });
        used += gap + rest.length;
        rest = [];
      } else if (used > 0 && rest.length <= room) {
        bands.push([]);
        used = 0;
      } else {
        // An area wider than what is left: as much of it as fits, the rest in the next band.
        const fits = room - used - gap;
        if (fits > 0) {
          bands.at(-1)!.push({ area: g.area, probes: rest.slice(0, fits) });
          rest = rest.slice(fits);
        }
        bands.push([]);
        used = 0;
      }
    }
  }
  const digits = String(probes.length).length;
  const cut = names.some((n) => numberWidth + 1 + n.length > labelWidth);
  for (const l of wrapText(`models down, numbered as in the table of models below (failures first${cut ? '; a name cut here is whole there' : ''}); probes across, numbered downwards and named below:`, width)) lines.push(l);
  const blank = ' '.repeat(labelWidth + 1);
  for (const band of bands.filter((b) => b.length > 0)) {
    lines.push('');
    lines.push(paint.bold(`${blank}${band.map((g) => pad(g.area.length <= g.probes.length ? g.area : '', g.probes.length)).join(' ')}`.trimEnd()));
    for (let d = 0; d < digits; d++) {
      lines.push(`${blank}${band.map((g) => g.probes.map((x) => String(x.n).padStart(digits)[d]).join('')).join(' ')}`.trimEnd());
    }
    models.forEach((m, i) => {
      const name = `${String(i + 1).padStart(numberWidth)} ${fit(names[i]!, labelWidth - numberWidth - 1)}`;
      const cells = band.map((g) => g.probes.map((x) => {
        const mark = markOf(m, x.p);
        return mark.tone ? paint.tone(mark.tone, mark.text) : mark.text;
      }).join(''));
      lines.push(`${pad(name, labelWidth)} ${cells.join(' ')}`);
    });
  }
  lines.push('');
  // The probes' names, as many a line as fit.
  let line = 'probes:';
  for (const x of groups.flatMap((g) => g.probes)) {
    const entry = fit(`${x.n} ${x.p.id}`, width);
    if (line.length + 3 + entry.length > width) {
      lines.push(line);
      line = entry;
    } else line = `${line}${line === 'probes:' ? ' ' : '   '}${entry}`;
  }
  lines.push(line);
}

/** What the table of models counts, its column's heading and what that heading stands for. */
const TABLE_COLUMNS: { key: keyof Omit<ModelTotals, 'tones' | 'cells' | 'improvements'>; head: string; word: string }[] = [
  { key: 'passed', head: 'pass', word: 'passed' },
  { key: 'failed', head: 'fail', word: 'failed' },
  { key: 'ignored', head: 'ign', word: 'ignored' },
  { key: 'rejected', head: 'rej', word: 'rejected' },
  { key: 'errored', head: 'err', word: 'errored' },
  { key: 'skipped', head: 'skip', word: 'skipped' },
  { key: 'regressions', head: 'reg', word: 'regressions' },
];

/**
 * The table of models, failures first: a line each, its cells counted (errored only when a cell was, and
 * regressions only against a baseline) and its name whole at the end, or on the line below when it does
 * not fit beside the counts (wrapped only when longer than the width). Past LISTED_LINES models, the rest
 * are counted in one line.
 */
function modelTable(models: ModelEntry[], totals: Map<string, ModelTotals>, compared: boolean, paint: Painter, width: number): string[] {
  const of = (m: ModelEntry) => totals.get(m.id)!;
  const cols = TABLE_COLUMNS.filter((c) => (c.key === 'errored' ? models.some((m) => of(m).errored > 0) : c.key === 'regressions' ? compared : true));
  const shown = models.slice(0, LISTED_LINES);
  const numberWidth = Math.max(1, String(shown.length).length);
  const colWidths = cols.map((c) => widest(c.head.length, shown, (m) => String(of(m)[c.key]).length));
  const notProbed = (m: ModelEntry) => `not probed: ${m.notRun!.cause ?? m.notRun!.verdict}`;
  const countsWidth = widest(colWidths.reduce((n, w) => n + w, 0) + cols.length - 1, shown, (m) => (m.notRun ? notProbed(m).length : 0));
  const lines = wrapText(`models, failures first, and their cells ${cols.map((c) => c.word).join(', ')}:`, width);
  lines.push(paint.bold(`${pad('#', numberWidth)}  ${cols.map((c, i) => c.head.padStart(colWidths[i]!)).join(' ')}  model`));
  const indent = numberWidth + 2 + countsWidth + 2;
  shown.forEach((m, i) => {
    const t = of(m);
    const counts = m.notRun
      ? paint.tone('bad', pad(notProbed(m), countsWidth))
      : cols.map((c, k) => {
          const text = String(t[c.key]).padStart(colWidths[k]!);
          return t[c.key] > 0 && (c.key === 'failed' || c.key === 'errored' || c.key === 'regressions') ? paint.tone('bad', text) : text;
        }).join(' ');
    const name = oneLine(m.id);
    const number = String(i + 1).padStart(numberWidth);
    if (indent + name.length <= width) lines.push(`${number}  ${counts}  ${name}`);
    else {
      lines.push(`${number}  ${counts}`);
      // Whole on a line of its own; a name longer than the width is cut into pieces of it.
      for (let at = 0; at < name.length; at += width - 4) lines.push(`    ${name.slice(at, at + width - 4)}`);
    }
  });
  if (models.length > shown.length) lines.push(`… and ${models.length - shown.length} more model(s): report.json has them`);
  return lines;
}

/** A cell worth reading, on one line: the verdict coloured, the rest as it is (cut to the terminal). */
function findingLine(r: ProbeResult, paint: Painter, cut: (text: string) => string): string {
  const change = r.comparison === 'regression' || r.comparison === 'improvement' ? ` [${describeChange(r)}]` : '';
  const verdict = cellText(r.verdict, r.cause);
  const text = cut(`${verdict}${change}  ${oneLine(r.model)} ${r.probe}: ${oneLine(r.observed)}`);
  return `${paint.tone(VERDICT_TONE[r.verdict], text.slice(0, verdict.length))}${text.slice(verdict.length)}`.trimEnd();
}

/**
 * How long a run has left, from the pace of its cells: since the first cell came, and once the run has gone
 * on for a while, over the last WINDOW_MS. Not from the run's start: discovering the models and their smoke
 * calls come before any cell, and a run of 20 models that ended at 78 s said "about 301 s left" at 26 s,
 * its first 20 s counted as if cells had been coming all along. Until ENOUGH_CELLS (or a twentieth of the
 * run) and ENOUGH_MS have passed since the first cell, it says it is estimating.
 */
export class TimeLeft {
  static readonly ENOUGH_CELLS = 10;
  static readonly ENOUGH_MS = 5_000;
  static readonly WINDOW_MS = 30_000;
  /** When the first cell came, and how many were done then. */
  private start: { at: number; done: number } | undefined;
  /** The cells done as they came, none older than the window needs. */
  private samples: { at: number; done: number }[] = [];
  private total = -1;

  /** "about 40 s left", "about 6 min left", "estimating the time left", or '' once every cell is done. */
  text(done: number, total: number, elapsedMs: number): string {
    const last = this.samples.at(-1);
    // Another run (a total of its own, or fewer cells done than before): start over.
    if (total !== this.total || (last && done < last.done)) {
      this.start = undefined;
      this.samples = [];
      this.total = total;
    }
    if (done >= total) return '';
    this.start ??= { at: elapsedMs, done };
    if (!last || last.done !== done) this.samples.push({ at: elapsedMs, done });
    if (done - this.start.done < Math.max(TimeLeft.ENOUGH_CELLS, Math.ceil(total / 20)) || elapsedMs - this.start.at < TimeLeft.ENOUGH_MS) return 'estimating the time left';
    // The pace since the first cell, or over the last WINDOW_MS once the run has gone on that long: a
    // run's pace changes as its models do. The oldest sample kept is the last one at least that old.
    while (this.samples.length > 2 && elapsedMs - this.samples[1]!.at >= TimeLeft.WINDOW_MS) this.samples.shift();
    const from = this.samples[0]!;
    const perMs = (done - from.done) / (elapsedMs - from.at);
    const seconds = Math.ceil((total - done) / perMs / 1000);
    return seconds < 120 ? `about ${seconds} s left` : `about ${Math.round(seconds / 60)} min left`;
  }
}

/** The CLI's live line draws one run at a time. */
const LIVE = new TimeLeft();

/** The live line of a terminal: where the run is, what is in flight, and about how long is left. */
export function progressLine(r: ProbeResult, done: number, total: number, stats: { elapsedMs: number; inFlight: number; queued?: number }, timeLeft: TimeLeft = LIVE): string {
  const left = timeLeft.text(done, total, stats.elapsedMs);
  return `${(stats.elapsedMs / 1000).toFixed(0)} s · ${stats.inFlight} in flight${stats.queued ? `, ${stats.queued} queued` : ''} · [${done}/${total}]${left ? ` · ${left}` : ''} · ${oneLine(r.model)} ${r.probe}: ${cellText(r.verdict, r.cause)}`;
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
