/** A binary min-heap of (due time, job id): the next job transition is found in O(1), added in O(log n). */
export interface DueEntry {
  readonly at: number;
  readonly jobId: number;
}

export class DueQueue {
  private readonly heap: DueEntry[] = [];

  get size(): number {
    return this.heap.length;
  }

  // Both directions move a hole instead of swapping pairs: one write per level.
  push(entry: DueEntry): void {
    const h = this.heap;
    let i = h.length;
    h.push(entry);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = h[parent]!;
      if (!before(entry, p)) break;
      h[i] = p;
      i = parent;
    }
    h[i] = entry;
  }

  peek(): DueEntry | undefined {
    return this.heap[0];
  }

  pop(): DueEntry | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    const n = h.length;
    if (n > 0 && last) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const m = r < n && before(h[r]!, h[l]!) ? r : l;
        const child = h[m]!;
        if (!before(child, last)) break;
        h[i] = child;
        i = m;
      }
      h[i] = last;
    }
    return top;
  }

  clear(): void {
    this.heap.length = 0;
  }
}

/** Earlier first; equal times in job order, so catching up processes jobs in the order they were created. */
const before = (a: DueEntry, b: DueEntry): boolean => a.at < b.at || (a.at === b.at && a.jobId < b.jobId);
