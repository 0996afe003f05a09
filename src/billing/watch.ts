import type { Meter } from '../engine/meter.js';

/**
 * How the balance is watched around the billing calls: when to read it, and when a reading is believed.
 * Time here is the set's clock, the waits asked of the meter (Meter.wait: the run's CallClock, so a replay
 * asks the same waits, is given the same readings, and watches the same without waiting). Which deduction
 * is then given to which call is billing/settle.ts's, from the times these reads were taken.
 */

/** The shortest span a balance must hold still to be believed settled, and the shortest watch after a call. */
export const MIN_WINDOW_MS = 300;
/**
 * The longest a charge is waited for: the first call of a set is watched this long before its zero is
 * believed (a free model), and no watch runs longer before the balance must have settled. new-api writes
 * its batches every 5 s by default, LiteLLM every 10 s.
 */
export const CALIBRATION_MS = 12_700;
/**
 * The quiet check of the run's first set, before anything is known of the meter: long enough for a meter
 * that shows charges within a second of the call (with the margin of settle.ts FIT) to have shown every
 * charge of the audit's own calls. Later sets wait what the earlier ones learnt.
 */
export const FIRST_QUIET_MS = 1500;
/** Each span is this many times the longest lateness seen: settle.ts asks FIT times, this leaves room for a later call's longer lag. */
export const WINDOW_FACTOR = 2;
/**
 * Pauses between reads after a call: fine at first (an honest meter moves at once, a lag is measured to
 * the read that shows it), every half second to 3.3 s, then every second (reads are free, but each is a
 * call in the trace).
 */
const CALL_PAUSES: readonly number[] = [0, 100, 100, 100, 200, 200, 300, 300, 500, 500, 500, 500];
const LATER_PAUSE = 1000;
/** The longest pause of the quiet check: a charge landing in it is timed to half a second. */
const QUIET_PAUSE = 500;
/** Changes of the balance after one call before it is given up as never settling. */
const MOVES_MAX = 4;

/** What the run has learnt of its meter, kept from one model's set to the next (they run one at a time). */
export interface MeterMemory {
  /** The longest the meter took to show a charge, ms; undefined: nothing learnt yet. */
  lateMs?: number;
  /**
   * The last set ended with its control read: every charge of the run's calls so far had landed (the
   * audit's other calls all came before the first set), so nothing is pending when the next set begins.
   */
  settled?: boolean;
}

/**
 * A meter as billing/find.ts makes it, with the run's memory of it. The engine hands each cell a copy of
 * the run's meter (engine/cell.ts spreads it to count its reads as the cell's evidence): the copies share
 * the one memory object, so what one model's set learnt the next one's quiet check knows.
 */
export type RememberingMeter = Meter & { memory: MeterMemory };

/** The memory of the run's meter; a meter made elsewhere (a test's) gets a memory of its own. */
export function memoryOf(m: Meter): MeterMemory {
  return (m as Partial<RememberingMeter>).memory ?? {};
}

/** How long to watch, given the longest lateness known: twice it, bounded. */
export function spanFor(lateMs: number): number {
  return Math.min(CALIBRATION_MS, Math.max(MIN_WINDOW_MS, WINDOW_FACTOR * lateMs));
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** A number for people: no float noise (0.30000000000000004), no exponent for small dollar amounts. */
export function fmt(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return String(Number(n.toPrecision(6)));
}

export type Problem = { problem: string };

/** The balance, read and waited on by the set's clock. */
export class MeterWatch {
  /** The set's clock: milliseconds of waiting asked since the watch began. */
  now = 0;

  constructor(readonly meter: Meter) {}

  private async pause(ms: number): Promise<void> {
    if (ms > 0) await this.meter.wait(ms);
    this.now += ms;
  }

  async read(): Promise<number | Problem> {
    const r = await this.meter.read();
    return 'used' in r ? r.used : { problem: `the balance could not be read (${this.meter.route}: ${r.failed})` };
  }

  /**
   * The quiet check, with nothing sent: the balance must hold still, and be watched long enough for charges
   * still pending from the audit's calls (all sent before it began) to land: FIRST_QUIET_MS when nothing is
   * known of the meter, else twice the lateness known; and a charge that lands during the watch `movedAtMs`
   * after it began was at least that late, so the watch runs to twice that. Bounded by CALIBRATION_MS:
   * still moving then, the key is shared with other traffic (or the audit's charges come later than that).
   */
  async quiet(knownLateMs: number | undefined): Promise<{ used: number; ms: number; movedAtMs?: number } | Problem> {
    const start = this.now;
    const first = await this.read();
    if (typeof first !== 'number') return first;
    let last = first;
    let movedAt: number | undefined;
    let need = knownLateMs === undefined ? FIRST_QUIET_MS : spanFor(knownLateMs);
    for (;;) {
      const elapsed = this.now - start;
      const still = elapsed - (movedAt ?? 0);
      if (elapsed >= need && still >= MIN_WINDOW_MS) return movedAt === undefined ? { used: last, ms: elapsed } : { used: last, ms: elapsed, movedAtMs: movedAt };
      if (elapsed >= CALIBRATION_MS) {
        return {
          problem: `the balance moved by ${fmt(last - first)} ${this.meter.unit} in ${s(elapsed)} while chatprobe sent nothing: other traffic shares this key (or account), or earlier calls are still being billed; no deduction could be given to a call`,
        };
      }
      await this.pause(Math.min(QUIET_PAUSE, Math.max(100, elapsed >= need ? MIN_WINDOW_MS - still : need - elapsed)));
      const now = await this.read();
      if (typeof now !== 'number') return now;
      if (now === last) continue;
      movedAt = this.now - start;
      need = Math.max(need, spanFor(movedAt));
      last = now;
    }
  }

  /**
   * The watch after a call, from the balance `before` it: read at once, then at growing pauses.
   * - An unmoved balance is believed (a zero) after MIN_WINDOW_MS on a meter that shows charges at once,
   *   and after CALIBRATION_MS on the set's first call or on a meter known to be late: a batch writer
   *   shows a charge anywhere up to its interval after the call, and the lags seen so far may all be short.
   * - A moved one is believed once the watch has run twice the longest lateness known (this call's lag
   *   included) and the balance has held still MIN_WINDOW_MS; the calibrating call (`calibrate`: the first
   *   of a set that charges of earlier calls may still reach) on a late meter is watched all of
   *   CALIBRATION_MS, so that its own charge is seen even after a stray one (billing/settle.ts then judges
   *   whether the stray one may be in it).
   * `lagMs`: when the balance last moved, the lateness this call shows.
   */
  async watch(label: string, before: number, o: { knownLateMs: number | undefined; late: boolean; calibrate: boolean }): Promise<{ used: number; lagMs?: number; untilAt: number } | Problem> {
    const sentAt = this.now;
    let last = before;
    let movedAt: number | undefined;
    let moves = 0;
    for (let k = 0; ; k++) {
      const elapsed = this.now - sentAt;
      // How much longer to watch before the reading is believed.
      let left: number;
      if (movedAt === undefined) {
        const span = o.calibrate || o.late || o.knownLateMs === undefined ? CALIBRATION_MS : spanFor(o.knownLateMs);
        left = span - elapsed;
        if (left <= 0) return { used: before, untilAt: this.now };
      } else {
        const late = o.late || movedAt > 0;
        const span = o.calibrate && late ? CALIBRATION_MS : spanFor(Math.max(o.knownLateMs ?? 0, movedAt));
        left = Math.max(span - elapsed, MIN_WINDOW_MS - (elapsed - movedAt));
        if (left <= 0) return { used: last, lagMs: movedAt, untilAt: this.now };
      }
      // The first read at once, then on the grid, never past the end of the watch.
      await this.pause(k === 0 ? 0 : Math.min(CALL_PAUSES[k] ?? LATER_PAUSE, left));
      const now = await this.read();
      if (typeof now !== 'number') return now;
      if (now === last) continue;
      // new-api charges an estimate first and corrects it after: a second move is the same call's.
      if (++moves > MOVES_MAX) return { problem: `the balance kept moving after the ${label} call (${moves} changes in ${s(this.now - sentAt)})` };
      movedAt = this.now - sentAt;
      last = now;
    }
  }

  /**
   * The control after the last call: one more read a span later. A charge that lands after its call
   * seemed settled would have been given to the wrong call.
   */
  async control(after: number, spanMs: number): Promise<{ at: number } | Problem> {
    await this.pause(spanMs);
    const last = await this.read();
    if (typeof last !== 'number') return last;
    if (last !== after) {
      return { problem: `the balance moved by ${fmt(last - after)} ${this.meter.unit} ${s(spanMs)} after the last call had settled: charges arrive later than chatprobe watched, so deductions cannot be given to calls` };
    }
    return { at: this.now };
  }
}
