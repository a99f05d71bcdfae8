/**
 * A binary min-heap of (due time, job id): the next job transition is found in O(1), added in O(log n).
 * Kept as two parallel number arrays, not one object per entry: every job puts two entries in, each living
 * for the processing or delivery time, long enough for the garbage collector to copy an object twice.
 */
export class DueQueue {
  private readonly ats: number[] = [];
  private readonly ids: number[] = [];

  get size(): number {
    return this.ats.length;
  }

  /** Due time of the earliest entry; Infinity when empty. */
  nextAt(): number {
    return this.ats.length > 0 ? this.ats[0]! : Infinity;
  }

  // Both directions move a hole instead of swapping pairs: one write per level.
  push(at: number, jobId: number): void {
    const { ats, ids } = this;
    let i = ats.length;
    ats.push(at);
    ids.push(jobId);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(at, jobId, ats[parent]!, ids[parent]!)) break;
      ats[i] = ats[parent]!;
      ids[i] = ids[parent]!;
      i = parent;
    }
    ats[i] = at;
    ids[i] = jobId;
  }

  /** Removes the earliest entry and returns its job id (the queue must not be empty). */
  pop(): number {
    const { ats, ids } = this;
    const top = ids[0]!;
    const lastAt = ats.pop()!;
    const lastId = ids.pop()!;
    const n = ats.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const m = r < n && before(ats[r]!, ids[r]!, ats[l]!, ids[l]!) ? r : l;
        if (!before(ats[m]!, ids[m]!, lastAt, lastId)) break;
        ats[i] = ats[m]!;
        ids[i] = ids[m]!;
        i = m;
      }
      ats[i] = lastAt;
      ids[i] = lastId;
    }
    return top;
  }

  clear(): void {
    this.ats.length = 0;
    this.ids.length = 0;
  }
}

/** Earlier first; equal times in job order, so catching up processes jobs in the order they were created. */
const before = (at: number, id: number, otherAt: number, otherId: number): boolean =>
  at < otherAt || (at === otherAt && id < otherId);
