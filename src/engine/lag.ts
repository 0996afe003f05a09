/**
 * How late this process's own event loop ran, over time: a timer ticks every TICK_MS and records how much
 * later than asked it fired. A judgement of timing (a stream's chunks arriving in one burst) asks for the
 * worst lateness while its evidence arrived: a loop held up by our own work reads chunks in a burst that
 * the server never sent as one.
 */
export const TICK_MS = 10;
/** Ticks kept: a minute of them, in a ring (grown to that as a run lasts: a short run zeroes no 96 kB). */
const KEPT = 6000;
const FIRST_KEPT = 128;

export class LoopLag {
  private at = new Float64Array(FIRST_KEPT);
  private late = new Float64Array(FIRST_KEPT);
  private n = 0;
  private timer: NodeJS.Timeout | undefined;
  private last = 0;

  start(now = performance.now()): void {
    this.last = now;
    this.timer = setInterval(() => this.tick(performance.now()), TICK_MS);
    this.timer.unref();
  }

  /** One tick of the timer, fired at `now`. */
  tick(now: number): void {
    if (this.n === this.at.length && this.n < KEPT) {
      const size = Math.min(KEPT, this.n * 4);
      const at = new Float64Array(size);
      const late = new Float64Array(size);
      at.set(this.at);
      late.set(this.late);
      this.at = at;
      this.late = late;
    }
    const i = this.n++ % this.at.length;
    this.at[i] = now;
    this.late[i] = Math.max(0, now - this.last - TICK_MS);
    this.last = now;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The worst lateness (ms) of a tick that covered part of [from, to] (performance.now() times). */
  worst(from: number, to: number): number {
    let worst = 0;
    const kept = this.at.length;
    for (let k = Math.max(0, this.n - kept); k < this.n; k++) {
      const i = k % kept;
      // A tick at `at` that was `late` late covers the stretch since the tick before it.
      const began = this.at[i]! - TICK_MS - this.late[i]!;
      if (this.at[i]! >= from && began <= to) worst = Math.max(worst, this.late[i]!);
    }
    return worst;
  }
}
