import pc from 'picocolors';
import { oneLine } from '../../boundary/text.js';
import type { ProbeResult, Report } from '../model.js';
import { cellText, VERDICT_TONE, type Tone } from '../style.js';
import { describeChange, summarise } from '../summary.js';
import { viewOf } from '../view.js';

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

/** The matrix as text: probes down, models across; widths measured before colour is added. */
export function renderConsole(report: Report, paint: Painter): string {
  const view = viewOf(report);
  const names = report.models.map((m) => oneLine(m.id));
  const probeWidth = Math.max(5, ...report.probes.map((p) => p.id.length));
  const widths = report.models.map((m, i) =>
    Math.max(names[i]!.length, ...view.matrixProbes.map((p) => {
      const r = view.cell(m.id, p.id);
      return r ? cellText(r.verdict, r.cause).length : 1;
    })),
  );
  const lines: string[] = [];
  if (view.endpoint.length > 0) {
    lines.push(paint.bold('endpoint'));
    for (const { probe, result } of view.endpoint) {
      const text = result ? paint.tone(VERDICT_TONE[result.verdict], cellText(result.verdict, result.cause)) : '-';
      lines.push(`${pad(probe.id, probeWidth)}  ${text}`);
    }
    lines.push('');
  }
  lines.push([pad('probe', probeWidth), ...names.map((name, i) => pad(name, widths[i]!))].map((s) => paint.bold(s)).join('  '));
  for (const p of view.matrixProbes) {
    const cells = report.models.map((m, i) => {
      const r = view.cell(m.id, p.id);
      if (!r) return pad('-', widths[i]!);
      return paint.tone(VERDICT_TONE[r.verdict], pad(cellText(r.verdict, r.cause), widths[i]!));
    });
    lines.push([pad(p.id, probeWidth), ...cells].join('  '));
  }
  // A model that was not probed is explained once below, not once per probe.
  const stopped = new Set(report.models.filter((m) => m.cause).map((m) => m.id));
  const notable = report.results.filter((r) => !stopped.has(r.model) && (r.outcome !== 'passed' || r.verdict === 'warn' || r.comparison === 'improvement'));
  if (notable.length > 0) lines.push('');
  for (const r of notable) lines.push(findingLine(r, paint));
  for (const m of report.models.filter((x) => x.cause)) {
    lines.push(paint.tone('bad', `not probed (${m.cause}): ${oneLine(m.id)}: ${m.advice ?? ''}`));
  }
  const s = summarise(report);
  lines.push('');
  lines.push(
    `${report.models.length} model(s) × ${report.probes.length} probe(s), ${report.calls} calls in ${(report.durationMs / 1000).toFixed(1)} s: ` +
      `${s.outcomes.passed} passed, ${s.outcomes.failed} failed, ${s.outcomes.skipped} skipped, ${s.outcomes.errored} errored` +
      (report.interrupted ? ' (interrupted: partial report)' : '') +
      (report.maxDurationReached ? ' (stopped at --max-duration: partial report)' : ''),
  );
  if (report.baseline) {
    lines.push(
      `baseline ${report.baseline.path}: ${s.comparisons.regression} regression(s), ${s.comparisons.improvement} improvement(s), ${s.comparisons.new} new${s.comparisons.missing ? `, ${s.comparisons.missing} model(s) missing` : ''}` +
        (report.baseline.updated ? '; rewritten from this run' : ''),
    );
  }
  return `${lines.join('\n')}\n`;
}

function findingLine(r: ProbeResult, paint: Painter): string {
  const change = r.comparison === 'regression' || r.comparison === 'improvement' ? ` [${describeChange(r)}]` : '';
  return `${paint.tone(VERDICT_TONE[r.verdict], cellText(r.verdict, r.cause))}${change}  ${oneLine(r.model)} ${paint.dim(r.probe)}: ${oneLine(r.observed)}`;
}

/** One result as a plain progress line (non-TTY runs, e.g. CI logs). */
export function progressLine(r: ProbeResult, done: number, total: number): string {
  return `[${done}/${total}] ${oneLine(r.model)} ${r.probe}: ${cellText(r.verdict, r.cause)}`;
}
