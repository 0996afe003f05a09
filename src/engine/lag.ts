/**
 * How late this process's own event loop ran, over time: a timer ticks every TICK_MS and records how much
 * later than asked it fired. A judgement of timing (a stream's chunks arriving in one burst) asks for the
 * worst lateness while its evidence arrived: a loop held up by our own work reads chunks in a burst that
 * the server never sent as one.
 */
export const TICK_MS = 10;
/**
 * The stretch (performance.now() times) over which events at `times` (ms after `startedAt`) arrived, two
 * ticks wider either side: a loop held up ends with a timer tick just before the reads it delayed. The
 * window to ask `worst` about, for a judgement of arrival timing.
 */
export function arrivalWindow(startedAt: number, times: readonly number[]): [number, number] | undefined {
  return times.length === 0 ? undefined : [startedAt + times[0]! - 2 * TICK_MS, startedAt + times.at(-1)! + 2 * TICK_MS];
}

/** Ticks kept: a minute of them, in a ring (plain arrays grown as a run lasts: a short run allocates next to nothing). */
const KEPT = 6000;

/** What a judgement of timing asks of the run's lag (a replay answers it from the record: record/replay.ts). */
export interface LagSource {
  start(): void;
  stop(): void;
  /** The worst lateness (ms) of a tick that covered part of [from, to] (performance.now() times). */
  worst(from: number, to: number): number;
}

export class LoopLag implements LagSource {
  private readonly at: number[] = [];
  private readonly late: number[] = [];
  private n = 0;
  private timer: NodeJS.Timeout | undefined;
  private last = 0;
  /** Shown each tick: when it fired and how late (the run's record keeps the late ones: record/recorder.ts). */
  onLate: ((at: number, late: number) => void) | undefined;

  start(now = performance.now()): void {
    this.last = now;
    this.timer = setInterval(() => this.tick(performance.now()), TICK_MS);
    this.timer.unref();
  }

  /** One tick of the timer, fired at `now`. */
  tick(now: number): void {
    // Filled in order up to KEPT, then round again: the arrays stay packed.
    const i = this.n++ % KEPT;
    this.at[i] = now;
    const late = Math.max(0, now - this.last - TICK_MS);
    this.late[i] = late;
    this.last = now;
    this.onLate?.(now, late);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The worst lateness (ms) of a tick that covered part of [from, to] (performance.now() times). */
  worst(from: number, to: number): number {
    let worst = 0;
    for (let k = Math.max(0, this.n - KEPT); k < this.n; k++) {
      const i = k % KEPT;
      // A tick at `at` that was `late` late covers the stretch since the tick before it.
      const began = this.at[i]! - TICK_MS - this.late[i]!;
      if (this.at[i]! >= from && began <= to) worst = Math.max(worst, this.late[i]!);
    }
    return worst;
  }
}
