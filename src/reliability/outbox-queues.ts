/**
 * The two queues of the outbox's scheduler: entries not tried yet, in order of acceptance, and kept entries
 * waiting for their next try, earliest first. Both tolerate stale items (an entry removed or already under way
 * is skipped by the caller when it comes out), so removing is O(1).
 */

export interface Queued {
  /** Order of acceptance. */
  readonly seq: number;
  /** Date.now() from which the next try may start (kept entries). */
  retryAt: number;
}

/** In order of `seq`: new items go last, one put back goes to its place (a sorted array with a moving head). */
export class SeqQueue<T extends Queued> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  insert(item: T): void {
    let lo = this.head;
    let hi = this.items.length;
    if (hi === lo || this.items[hi - 1]!.seq < item.seq) {
      this.items.push(item);
      return;
    }
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.items[mid]!.seq < item.seq) lo = mid + 1;
      else hi = mid;
    }
    this.items.splice(lo, 0, item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head++];
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  forEach(fn: (item: T) => void): void {
    for (let i = this.head; i < this.items.length; i++) fn(this.items[i]!);
  }
}

const before = (a: Queued, b: Queued): boolean =>
  a.retryAt < b.retryAt || (a.retryAt === b.retryAt && a.seq < b.seq);

/** A binary heap by (`retryAt`, `seq`): the entry due first, the oldest among equals. */
export class DueHeap<T extends Queued> {
  private items: T[] = [];

  get length(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    this.items.push(item);
    this.up(this.items.length - 1);
  }

  pop(): T | undefined {
    const top = this.items[0];
    const last = this.items.pop();
    if (this.items.length > 0 && last !== undefined) {
      this.items[0] = last;
      this.down(0);
    }
    return top;
  }

  /** Changes `retryAt` of every item `fn` picks (returns the new value, or undefined to leave it). */
  reschedule(fn: (item: T) => number | undefined): void {
    let changed = false;
    for (const item of this.items) {
      const at = fn(item);
      if (at !== undefined && at !== item.retryAt) {
        item.retryAt = at;
        changed = true;
      }
    }
    if (changed) for (let i = (this.items.length >> 1) - 1; i >= 0; i--) this.down(i);
  }

  private up(i: number): void {
    const items = this.items;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  private down(i: number): void {
    const items = this.items;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < items.length && before(items[l]!, items[m]!)) m = l;
      if (r < items.length && before(items[r]!, items[m]!)) m = r;
      if (m === i) return;
      [items[i], items[m]] = [items[m]!, items[i]!];
      i = m;
    }
  }
}
