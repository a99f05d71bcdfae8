/**
 * At most one call per interval, the last one never lost: a change while the interval runs is told once when it
 * ends. The panel's live note goes through it, so a queue that moves 200 times a second costs one publish a
 * second per configuration, whatever the number of editors open.
 */
import type { Clock } from '../../../reliability/clock';

export class Throttle {
  private last = -Infinity;
  private timer: unknown;

  constructor(
    private readonly clock: Clock,
    private readonly intervalMs: number,
    private readonly fire: () => void,
  ) {}

  /** Something changed. */
  poke(): void {
    if (this.timer !== undefined) return;
    const wait = this.last + this.intervalMs - this.clock.now();
    if (wait <= 0) {
      this.run();
      return;
    }
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.run();
    }, wait);
  }

  stop(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private run(): void {
    this.last = this.clock.now();
    this.fire();
  }
}
