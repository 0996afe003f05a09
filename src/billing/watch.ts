import type { Meter } from '../engine/meter.js';
import type { Exchange } from '../engine/exchange.js';

/**
 * How the balance is watched around the billing calls: when to read it, and when a reading is believed.
 * Time here is the set's clock: milliseconds since the quiet check's first read was answered, by the
 * recorded answer times of the reads and the calls (their exchanges' startedAt + durationMs, kept in the
 * run's record: a replay is given the same readings at the same times, asks the same waits, and watches the
 * same without waiting). A meter whose readings carry no times (a test's virtual one) is timed by the waits
 * asked of it (Meter.wait). Which deduction is then given to which call is billing/settle.ts's, from the
 * times these reads were taken.
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
  /** The longest the meter took to show a charge, ms (0: at the first read after the call); undefined: nothing learnt yet. */
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
  /**
   * The set's clock, ms since the first read was answered. Real time runs during the reads and the calls
   * too (a read may take a few hundred ms, a call seconds): a lateness timed by the waits alone would be
   * short of the meter's, and the spans short of what settle.ts asks.
   */
  now = 0;
  /** performance.now() of the first read's answer, once a reading carried its time. */
  private origin: number | undefined;

  constructor(readonly meter: Meter) {}

  private async pause(ms: number): Promise<void> {
    if (ms > 0) await this.meter.wait(ms);
    this.now += ms;
  }

  /** Moves the clock to a recorded answer time (never back: a wait asked has passed whatever the times say). */
  private reached(at: number | undefined): void {
    if (at === undefined) return;
    if (this.origin === undefined) this.origin = at - this.now;
    else this.now = Math.max(this.now, at - this.origin);
  }

  /** When a call's answer came, on the set's clock: its recorded end, if the meter's reads are timed. */
  answered(x: Exchange): number {
    if (this.origin !== undefined && x.startedAt > 0) this.reached(x.startedAt + x.durationMs);
    return this.now;
  }

  async read(): Promise<number | Problem> {
    const r = await this.meter.read();
    this.reached(r.at);
    return 'used' in r ? r.used : { problem: `the balance could not be read (${this.meter.route}: ${r.failed})` };
  }

  /**
   * The quiet check, with nothing sent: the balance must hold still, and be watched long enough for charges
   * still pending from the audit's calls (all sent before it began) to land.
   * - After a set that settled (`settled`: its control read agreed), nothing of the run is pending: the
   *   check is for other traffic on the key only, twice the lateness known and no longer than
   *   FIRST_QUIET_MS, and anything that moves is other traffic, never a charge of the audit's.
   * - Otherwise FIRST_QUIET_MS at least (what the run's first set waits, knowing nothing), twice the
   *   lateness known if longer: a set that follows one that did not settle may have charges of it still
   *   pending, however quick the meter seemed. A charge that lands `movedAtMs` after the check began was at
   *   least that late, so the watch runs to twice that.
   * Bounded by CALIBRATION_MS: still moving then, the key is shared with other traffic (or the audit's
   * charges come later than that).
   */
  async quiet(o: { knownLateMs: number | undefined; settled: boolean }): Promise<{ used: number; ms: number; movedAtMs?: number } | Problem> {
    const start = this.now;
    const first = await this.read();
    if (typeof first !== 'number') return first;
    let last = first;
    let movedAt: number | undefined;
    const known = o.knownLateMs;
    let need = o.settled && known !== undefined ? Math.min(FIRST_QUIET_MS, spanFor(known)) : Math.max(FIRST_QUIET_MS, spanFor(known ?? 0));
    const other = (elapsed: number, why: string) => ({
      problem: `the balance moved by ${fmt(last - first)} ${this.meter.unit} in ${s(elapsed)} while chatprobe sent nothing${why}; no deduction could be given to a call`,
    });
    for (;;) {
      const elapsed = this.now - start;
      const still = elapsed - (movedAt ?? 0);
      if (elapsed >= need && still >= MIN_WINDOW_MS) return movedAt === undefined ? { used: last, ms: elapsed } : { used: last, ms: elapsed, movedAtMs: movedAt };
      if (elapsed >= CALIBRATION_MS) return other(elapsed, ': other traffic shares this key (or account), or earlier calls are still being billed');
      await this.pause(Math.min(QUIET_PAUSE, Math.max(100, elapsed >= need ? MIN_WINDOW_MS - still : need - elapsed)));
      const now = await this.read();
      if (typeof now !== 'number') return now;
      if (now === last) continue;
      last = now;
      // Every charge of the run's calls had landed when the last set's control read agreed.
      if (o.settled) return other(this.now - start, ", and every charge of chatprobe's calls had landed (the last model's control read agreed): other traffic shares this key (or account)");
      movedAt = this.now - start;
      need = Math.max(need, spanFor(movedAt));
    }
  }

  /**
   * The watch after a call, from the balance `before` it, from the call's answer (the clock's `now` when
   * called): read at once, then at growing pauses.
   * - An unmoved balance is believed (a zero) after MIN_WINDOW_MS on a meter that shows charges at once,
   *   and after CALIBRATION_MS on a meter known to be late (a batch writer shows a charge anywhere up to its
   *   interval after the call, and the lags seen so far may all be short) or after the set's first call
   *   (`first`): its zero ends the set as a free model's, and one model's channel may bill later than the
   *   last model's did.
   * - A moved one is believed once the watch has run twice the longest lateness known (this call's lag
   *   included) and the balance has held still MIN_WINDOW_MS. The calibrating call (`calibrate`: the first
   *   of a set that charges of earlier calls may still reach) is watched all of CALIBRATION_MS, even when
   *   the balance moved at the first read: that move may be a stray charge of the audit's landing just
   *   then, on a meter late enough to have shown nothing in the quiet check, and its own charge still to
   *   come (taken for a quick meter's, the calls after it would be watched as on a quick meter, and their
   *   charges given to the wrong calls). billing/settle.ts then judges whether a stray one may be in it.
   * `lagMs`: when the balance last moved, the lateness this call shows; `atOnce`: it moved at the first
   * read and not after (a read's own time is no lateness of the meter's).
   */
  async watch(label: string, before: number, o: { knownLateMs: number | undefined; late: boolean; calibrate: boolean; first: boolean }): Promise<{ used: number; lagMs?: number; atOnce?: boolean; untilAt: number } | Problem> {
    const from = this.now;
    let last = before;
    let movedAt: number | undefined;
    let movedRead = 0;
    let moves = 0;
    for (let k = 0; ; k++) {
      const elapsed = this.now - from;
      // How much longer to watch before the reading is believed.
      let left: number;
      if (movedAt === undefined) {
        const span = o.first || o.calibrate || o.late || o.knownLateMs === undefined ? CALIBRATION_MS : spanFor(o.knownLateMs);
        left = span - elapsed;
        if (left <= 0) return { used: before, untilAt: this.now };
      } else {
        const span = o.calibrate ? CALIBRATION_MS : spanFor(Math.max(o.knownLateMs ?? 0, movedAt));
        left = Math.max(span - elapsed, MIN_WINDOW_MS - (elapsed - movedAt));
        if (left <= 0) return movedRead === 0 ? { used: last, lagMs: movedAt, atOnce: true, untilAt: this.now } : { used: last, lagMs: movedAt, untilAt: this.now };
      }
      // The first read at once, then on the grid, never past the end of the watch.
      await this.pause(k === 0 ? 0 : Math.min(CALL_PAUSES[k] ?? LATER_PAUSE, left));
      const now = await this.read();
      if (typeof now !== 'number') return now;
      if (now === last) continue;
      // new-api charges an estimate first and corrects it after: a second move is the same call's.
      if (++moves > MOVES_MAX) return { problem: `the balance kept moving after the ${label} call (${moves} changes in ${s(this.now - from)})` };
      movedAt = this.now - from;
      movedRead = k;
      last = now;
    }
  }

  /**
   * The control after the last call: one more read a span later. A charge that lands after its call
   * seemed settled would have been given to the wrong call. A balance that has held still CALIBRATION_MS
   * already (`stillSince`: the last call's zero, watched that long on a late meter) is read at once: a
   * zero is believed after that long, and another span of waiting would tell nothing more.
   */
  async control(after: number, spanMs: number, stillSince: number): Promise<{ at: number } | Problem> {
    await this.pause(this.now - stillSince >= CALIBRATION_MS ? 0 : spanMs);
    const last = await this.read();
    if (typeof last !== 'number') return last;
    if (last !== after) {
      return { problem: `the balance moved by ${fmt(last - after)} ${this.meter.unit} after the last call had settled: charges arrive later than chatprobe watched, so deductions cannot be given to calls` };
    }
    return { at: this.now };
  }
}
