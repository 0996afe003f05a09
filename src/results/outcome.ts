import { CAUSES } from './causes.js';
import type { Cause, Comparison, Outcome, Verdict } from './model.js';

/** How good a verdict is, to tell an improvement from a regression. Inconclusive is not ranked. */
export const RANK: Record<Verdict, number> = {
  honoured: 3,
  accepted: 3,
  pass: 3,
  warn: 2,
  ignored: 1,
  rejected: 1,
  fail: 1,
  error: 0,
  inconclusive: -1,
};

/**
 * What a baseline holds for a result: for a cell, the verdicts it expects of it; for a row that was not
 * probed (one result standing for every cell of the model), the verdicts it expects of each of the model's
 * cells. `undefined`: the baseline has no entry for it (a new cell, a new model).
 */
export type Baselined = { cell: readonly Verdict[] | undefined } | { row: readonly (readonly Verdict[])[] | undefined };

/**
 * The outcome of a result for a CI gate, decided here and nowhere else (the engine, the passthrough audit
 * and report/gate.ts call it; reporters never recompute it), as a pure function of the verdict, its cause
 * and what the baseline expects (`baselined`, given when the run has a baseline).
 * - A cause that is not judged like a verdict decides alone, and the cell is not compared with the
 *   baseline (results/causes.ts `gate`): our own bug errors, Ctrl-C's "not run" is skipped. Neither says
 *   anything of the endpoint, so neither is expected, new nor a regression.
 * - Without a baseline, capability verdicts are facts, not failures; a broken MUST, or a cell that could not
 *   be tested for a reason outside chatprobe, fails; inconclusive is skipped.
 * - With one, a verdict in the expected set passes, a better one passes as an improvement, and anything else
 *   is a regression; inconclusive passes only where the expected set holds it. A row not probed passes only
 *   where every cell of the model expects its verdict, and is never an improvement. A result the baseline
 *   lacks is `new`, its outcome as without a baseline.
 */
export function outcomeOf(verdict: Verdict, cause: Cause | undefined, baselined?: Baselined): { outcome: Outcome; comparison?: Comparison } {
  const gate = verdict === 'error' && cause ? CAUSES[cause].gate : 'judged';
  if (gate !== 'judged') return { outcome: gate };
  if (!baselined) return { outcome: alone(verdict) };
  const compared = 'cell' in baselined ? againstCell(verdict, baselined.cell) : againstRow(verdict, baselined.row);
  return compared ?? { outcome: alone(verdict), comparison: 'new' };
}

/** A verdict's outcome without a baseline. */
function alone(verdict: Verdict): Outcome {
  if (verdict === 'inconclusive') return 'skipped';
  if (verdict === 'fail' || verdict === 'error') return 'failed';
  return 'passed';
}

function againstCell(verdict: Verdict, expected: readonly Verdict[] | undefined): { outcome: Outcome; comparison: Comparison } | undefined {
  if (!expected) return undefined;
  if (expected.includes(verdict)) return { outcome: 'passed', comparison: 'expected' };
  // A decisive cell that can no longer be decided is a regression (a gateway that starts dropping
  // temperature makes it inconclusive, not ignored); a flaky cell says so with a set holding inconclusive.
  if (verdict === 'inconclusive') return { outcome: 'failed', comparison: 'regression' };
  if (RANK[verdict] > Math.max(...expected.map((v) => RANK[v]))) return { outcome: 'passed', comparison: 'improvement' };
  return { outcome: 'failed', comparison: 'regression' };
}

/** A row not probed against the baseline's cells of its model, as a whole. */
function againstRow(verdict: Verdict, cells: readonly (readonly Verdict[])[] | undefined): { outcome: Outcome; comparison: Comparison } | undefined {
  if (!cells) return undefined;
  return cells.every((expected) => expected.includes(verdict)) ? { outcome: 'passed', comparison: 'expected' } : { outcome: 'failed', comparison: 'regression' };
}
