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
  /** Those waiting for a slot, first come first served: each is handed one by release(). */
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`slots: a size of at least 1, not ${size}`);
  }

  /** Holders now. */
  get activeCount(): number {
    return this.active;
  }

  /** Waiting for a slot. */
  get pendingCount(): number {
    return this.waiting.length;
  }

  /** Runs `fn` holding a slot, and frees it when `fn` settles, whether it resolves or throws. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active < this.size) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  /** Frees a slot: it goes straight to the first waiter, if there is one. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}
