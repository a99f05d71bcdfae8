/** Entries used up by the next `remaining` requests that match them (injected faults, forced statuses). */
export class CountedQueue<T extends { remaining: number }> {
  private readonly queue: T[] = [];

  push(entry: T): T {
    this.queue.push(entry);
    return entry;
  }

  list(): T[] {
    return this.queue.map((e) => ({ ...e }));
  }

  clear(): void {
    this.queue.length = 0;
  }

  /** Consumes one use of the first entry that matches; a copy of it, or undefined when none does. */
  take(matches: (entry: T) => boolean): T | undefined {
    if (this.queue.length === 0) return undefined;
    const i = this.queue.findIndex(matches);
    if (i < 0) return undefined;
    const entry = this.queue[i] as T;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.queue.splice(i, 1);
    return { ...entry };
  }
}
