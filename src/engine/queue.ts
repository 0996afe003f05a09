/**
 * Tasks by priority, highest first, and in order of arrival within a priority: the scheduler's ready
 * probes, ranked by the length of their chain of requests (engine/schedule.ts). Priorities are few (a probe
 * sends at most a dozen requests in a row), so each has its own first-in-first-out list.
 */
export class ReadyQueue<T> {
  private readonly lists = new Map<number, { items: T[]; head: number }>();
  /** The priorities in use, highest first. */
  private order: number[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(item: T, priority: number): void {
    let list = this.lists.get(priority);
    if (!list) {
      list = { items: [], head: 0 };
      this.lists.set(priority, list);
      this.order = [...this.lists.keys()].sort((a, b) => b - a);
    }
    list.items.push(item);
    this.count++;
  }

  shift(): T | undefined {
    for (const p of this.order) {
      const list = this.lists.get(p)!;
      if (list.head === list.items.length) continue;
      const item = list.items[list.head]!;
      list.items[list.head++] = undefined as T; // let it go
      if (list.head === list.items.length) {
        list.items.length = 0;
        list.head = 0;
      }
      this.count--;
      return item;
    }
    return undefined;
  }
}
