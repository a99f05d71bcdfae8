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

  push(entry: DueEntry): void {
    const h = this.heap;
    h.push(entry);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  peek(): DueEntry | undefined {
    return this.heap[0];
  }

  pop(): DueEntry | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l]!, h[m]!)) m = l;
        if (r < h.length && before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }

  clear(): void {
    this.heap.length = 0;
  }
}

/** Earlier first; equal times in job order, so catching up processes jobs in the order they were created. */
const before = (a: DueEntry, b: DueEntry): boolean => a.at < b.at || (a.at === b.at && a.jobId < b.jobId);
