/**
 * A request slot held by CallLog.sequence() (engine/calls.ts) for the calls made inside it: passed along with each, so they
 * do not wait for another (an AsyncLocalStorage would say it implicitly, but on Node 20 it slows every
 * promise of the process by a fifth).
 */
export interface HeldSlot {
  readonly held: true;
}

/** At most `size` holders at once, the others served in the order they asked. */
export class Slots {
  private active = 0;
  private readonly waiting: ((() => void) | undefined)[] = [];
  private head = 0;

  constructor(private readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`slots: a size of at least 1, not ${size}`);
  }

  /** Holders now. */
  get activeCount(): number {
    return this.active;
  }

  /** Waiting for a slot. */
  get pendingCount(): number {
    return this.waiting.length - this.head;
  }

  /** Runs `fn` holding a slot, and frees it when `fn` settles, whether it resolves or throws. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.tryTake()) await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  /** Takes a free slot, if there is one (the holder must release() it). */
  tryTake(): boolean {
    if (this.active >= this.size) return false;
    this.active++;
    return true;
  }

  /**
   * Calls `holder` once a slot is its, in the order asked: at once if one is free, else from the
   * release() that frees one. `holder` must not throw (it runs inside another holder's release), and must
   * release() the slot when done with it.
   */
  take(holder: () => void): void {
    if (this.tryTake()) holder();
    else this.waiting.push(holder);
  }

  /** Frees a slot taken by tryTake() or take(): it goes straight to the first waiter, if there is one. */
  release(): void {
    if (this.head === this.waiting.length) {
      this.active--;
      return;
    }
    const next = this.waiting[this.head]!;
    this.waiting[this.head++] = undefined;
    if (this.head === this.waiting.length) {
      this.waiting.length = 0;
      this.head = 0;
    }
    next();
  }
}
