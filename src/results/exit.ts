/** Exit codes, as the README's table gives them. */
export const EXIT = { ok: 0, failed: 1, cannotTest: 2, interrupted: 130 } as const;

/**
 * A finished run's exit code: a report file not written is "could not test" (2), as an output path found
 * unwritable before the run is: CI's artefacts (its JUnit, the report.json a gate script reads) are missing,
 * which is the pipeline's to fix, not a regression of the endpoint (1). Else the one its report says it
 * earned (summary.exitCode: report/summary.ts exitCodeOf), which a CI script reads from report.json.
 */
export function runExitCode(run: { unwritten: number; exitCode: number }): number {
  return run.unwritten > 0 ? EXIT.cannotTest : run.exitCode;
}
