import type { Outcome, Report, Verdict } from './model.js';

export interface Summary {
  outcomes: Record<Outcome, number>;
  verdicts: Partial<Record<Verdict, number>>;
  exitCode: 0 | 1;
}

/** Counts, and the exit code a finished run earns: 1 when any result failed or errored. */
export function summarise(report: Report): Summary {
  const outcomes: Record<Outcome, number> = { passed: 0, failed: 0, skipped: 0, errored: 0 };
  const verdicts: Partial<Record<Verdict, number>> = {};
  for (const r of report.results) {
    outcomes[r.outcome]++;
    verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1;
  }
  return { outcomes, verdicts, exitCode: outcomes.failed + outcomes.errored > 0 ? 1 : 0 };
}
