/** Exit codes, as DESIGN.md and the README give them. */
export const EXIT = { ok: 0, failed: 1, cannotTest: 2, interrupted: 130 } as const;

/**
 * A finished run's exit code: a report file not written fails it, an interrupted run is 130, a run that
 * rewrote its baseline accepted its verdicts (only chatprobe's own errors still fail it), else the
 * report's verdicts decide.
 */
export function runExitCode(run: { unwritten: number; interrupted: boolean; updatedBaseline: boolean; errored: number; exitCode: 0 | 1 }): number {
  if (run.unwritten > 0) return EXIT.failed;
  if (run.interrupted) return EXIT.interrupted;
  if (run.updatedBaseline) return run.errored > 0 ? EXIT.failed : EXIT.ok;
  return run.exitCode;
}
