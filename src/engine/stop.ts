import type { ProbeVerdict } from './probe.js';
import { budgetVerdict, OverBudget, type CapReached } from './budget.js';

/**
 * The part of --max-duration kept for judging and writing the reports, so that the whole run, reports
 * included, ends within it: a second, 0.25 ms a model and 0.15 ms a cell judged so far, never more than half
 * of it. Measured on a busy 2-core machine under a 320 MB heap: 100,000 models (most not reached) took
 * 12–25 s to judge and write, 2,500 models with 64,000 cells about 8 s for report.json and the console
 * alone. A file that still does not fit is left out and said (report/write.ts).
 */
export function writeReserveMs(maxMs: number, models: number, cells: number): number {
  return Math.round(Math.min(maxMs / 2, 1000 + 0.25 * models + 0.15 * cells));
}

/** How often the run checks whether the time left is down to what writing the reports needs. */
const RESERVE_CHECK_MS = 200;

/**
 * How a run is stopped: by Ctrl-C, SIGTERM or SIGHUP (the caller's `interrupt`), or by --max-duration, which
 * ends the run like Ctrl-C does, calls in flight included; the cells it leaves say which. --max-duration
 * covers writing the reports too: probing stops once the time left is what writing them needs
 * (writeReserveMs, which grows with the plan's models and the cells judged so far). A replay's deadline
 * fires where the record says (`recorded`), not by this run's clock. A whole-run spending cap
 * (engine/budget.ts) stops the sending only: what it let through was paid for, and is read to its end.
 */
export class RunStop {
  private readonly began = performance.now();
  /** Fires at --max-duration (the run's own timer, or the replay's recorded deadline). */
  readonly deadline: AbortSignal | undefined;
  /** Fires at either stop: what the calls in flight are cut by. */
  readonly signal: AbortSignal | undefined;
  /** Fires at any stop, a whole-run spending cap's included: no more requests are sent (engine/calls.ts). */
  readonly sending: AbortSignal;
  private readonly capped = new AbortController();
  private capReached: CapReached | undefined;
  private readonly timer: AbortController | undefined;
  private readonly checker: ReturnType<typeof setInterval> | undefined;
  private size = { models: 0, cells: () => 0 };
  private reserveMs = 0;

  constructor(
    private readonly maxMs: number | undefined,
    private readonly interrupt: AbortSignal | undefined,
    recorded: AbortSignal | undefined,
  ) {
    this.timer = maxMs && !recorded ? new AbortController() : undefined;
    this.checker = this.timer ? setInterval(() => this.check(), RESERVE_CHECK_MS) : undefined;
    this.deadline = recorded ?? this.timer?.signal;
    this.signal = this.deadline && interrupt ? AbortSignal.any([interrupt, this.deadline]) : (this.deadline ?? interrupt);
    this.sending = this.signal ? AbortSignal.any([this.signal, this.capped.signal]) : this.capped.signal;
  }

  /** A whole-run spending cap refused a request: nothing more is sent, the calls in flight run on. */
  overBudget(r: CapReached): void {
    if (this.capReached) return;
    this.capReached = r;
    this.capped.abort(new OverBudget(r));
  }

  /** The whole-run cap that stopped the run, if one did. */
  get budgetStop(): CapReached | undefined {
    return this.capReached;
  }

  private check(): void {
    this.reserveMs = writeReserveMs(this.maxMs!, this.size.models, this.size.cells());
    if (performance.now() >= this.began + this.maxMs! - this.reserveMs) {
      clearInterval(this.checker);
      // A TimeoutError: the calls it cuts short say "--max-duration ran out" (http/client.ts stopFailure).
      this.timer!.abort(new DOMException('--max-duration', 'TimeoutError'));
    }
  }

  /** The plan's size, once it is known, and the cells judged so far: what the reserve for writing grows with. */
  watch(models: number, cells: () => number): void {
    this.size = { models, cells };
    if (this.timer && !this.deadline!.aborted) this.check();
  }

  get interrupted(): boolean {
    return this.interrupt?.aborted ?? false;
  }

  get ranOut(): boolean {
    return this.deadline?.aborted ?? false;
  }

  /** Why no more cells run, once the run is being stopped: a cell finished after this is "not run". */
  stopped(): ProbeVerdict | undefined {
    if (this.interrupted) return { verdict: 'error', cause: 'interrupted', notRun: true, observed: 'not run: the run was interrupted (Ctrl-C, SIGTERM or SIGHUP) before this cell finished' };
    if (this.ranOut) return { verdict: 'error', cause: 'deadline', notRun: true, observed: `not run: --max-duration (${this.maxMs! / 1000} s) ran out before this cell finished` };
    if (this.capReached) return budgetVerdict(this.capReached);
    return undefined;
  }

  /** With --max-duration: when (performance.now()) the run must be over, and the part of it kept for the reports. */
  budget(): { endBy: number; reserveMs: number } | undefined {
    return this.maxMs ? { endBy: this.began + this.maxMs, reserveMs: this.reserveMs } : undefined;
  }

  /** The run is over: its own timer stops checking. */
  clear(): void {
    clearInterval(this.checker);
  }
}
