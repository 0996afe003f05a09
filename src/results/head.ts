import { VERSION } from '../version.js';
import { SCHEMA_VERSION, type Report } from './model.js';
import { perModelCap } from './budget.js';

/** What every run's report begins with: the tool, the target and the run's times. */
export type ReportHead = Pick<Report, 'schemaVersion' | 'tool' | 'target' | 'startedAt' | 'finishedAt' | 'durationMs' | 'interrupted'>;

/** Starts a run's clock. The function it returns writes the head of the run's report, once the run ends. */
export function startRun(): (target: { baseUrl: string; headers: Record<string, string> }, interrupted: boolean) => ReportHead {
  const startedAt = new Date();
  const t0 = performance.now();
  return (target, interrupted) => ({
    schemaVersion: SCHEMA_VERSION,
    tool: { name: 'chatprobe', version: VERSION },
    // Header names only: their values may be credentials.
    target: { baseUrl: target.baseUrl, headerNames: Object.keys(target.headers) },
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    durationMs: Math.round(performance.now() - t0),
    interrupted,
  });
}

/**
 * Whether the run stopped before its end: Ctrl-C, --max-duration, or a whole-run spending cap (a per-model
 * cap stops rows, and the run goes on to its end). Such a run never rewrites a baseline.
 */
export function stoppedEarly(report: Pick<Report, 'interrupted' | 'maxDurationReached' | 'budgetReached'>): boolean {
  return report.interrupted || report.maxDurationReached === true || (report.budgetReached ?? []).some((b) => !perModelCap(b.cap));
}
