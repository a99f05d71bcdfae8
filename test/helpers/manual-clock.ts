/**
 * A clock the test moves by hand (src/reliability/clock.ts): timers fire when the test advances past them, in
 * order, with the promise chains they start run in between. No real time passes for what it drives.
 */
import type { Clock } from '../../src/reliability/clock';

export class ManualClock implements Clock {
  t: number;
  private seq = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();

  constructor(start = Date.UTC(2024, 5, 1, 12)) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(h: unknown): void {
    this.timers.delete(h as number);
  }

  /** Timers waiting. */
  get pending(): number {
    return this.timers.size;
  }

  /** When the next timer is due (Infinity: none). */
  get next(): number {
    let at = Infinity;
    for (const t of this.timers.values()) at = Math.min(at, t.at);
    return at;
  }

  /** Moves time on by `ms`, firing due timers in order (letting promise chains run after each). */
  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.t + ms);
  }

  async advanceTo(end: number): Promise<void> {
    for (;;) {
      await turns();
      let first: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.timers) if (e[1].at <= end && (!first || e[1].at < first[1].at)) first = e;
      if (!first) break;
      this.timers.delete(first[0]);
      this.t = Math.max(this.t, first[1].at);
      first[1].fn();
    }
    this.t = Math.max(this.t, end);
    await turns();
  }
}

/** Lets pending promise chains run (a few turns of the event loop). */
export async function turns(n = 20): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

/** Waits (real time, bounded: disk writes and HTTP are real) until `check` holds. */
export async function until(check: () => boolean, what = 'condition', ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what}: not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
