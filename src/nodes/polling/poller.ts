/** setTimeout's ceiling (2^31-1 ms); longer delays fire at once. */
export const MAX_DELAY_MS = 2_147_483_647;

export interface PollerOptions {
  intervalMs: number;
  /** The smallest interval accepted; smaller values are raised to it. */
  minIntervalMs: number;
  /** Runs one poll. Must stop emitting once the signal aborts. */
  poll: (signal: AbortSignal) => Promise<void>;
  /** Called after each failed poll with the delay until the next try (the poller keeps going). */
  onError: (err: unknown, failures: number, retryInMs: number) => void;
  /** Longest back-off after repeated failures (defaults to 10 minutes or the interval if longer). */
  maxBackoffMs?: number;
}

export function clampInterval(ms: number, minMs: number): number {
  if (!Number.isFinite(ms) || ms <= 0) return minMs;
  return Math.min(Math.max(ms, minMs), MAX_DELAY_MS);
}

/**
 * A setTimeout chain: the next poll is scheduled only when the previous one has finished, so polls never
 * overlap; failures back off exponentially; stop() aborts the poll in flight and waits for it to settle.
 */
export class Poller {
  private interval: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private controller: AbortController | undefined;
  private failures = 0;
  private stopped = false;
  /** Polling on the interval (start()); otherwise only trigger() polls. */
  private auto = false;
  private maxBackoffMs: number;

  constructor(private readonly opts: PollerOptions) {
    this.interval = clampInterval(opts.intervalMs, opts.minIntervalMs);
    this.maxBackoffMs = this.backoffCap();
  }

  get intervalMs(): number {
    return this.interval;
  }

  private backoffCap(): number {
    return Math.min(Math.max(this.opts.maxBackoffMs ?? 600_000, this.interval), MAX_DELAY_MS);
  }

  /** Polls once right away, then every interval. */
  start(): void {
    this.stopped = false;
    this.auto = true;
    this.schedule(0);
  }

  /**
   * A new interval (a shared reader whose listeners changed): polling starts at once if it was not on the
   * interval, and goes on at the new interval from now; undefined stops the interval (trigger() still polls).
   */
  retime(intervalMs: number | undefined): void {
    if (this.stopped) return;
    if (intervalMs === undefined) {
      this.auto = false;
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      return;
    }
    const next = clampInterval(intervalMs, this.opts.minIntervalMs);
    const changed = next !== this.interval;
    this.interval = next;
    this.maxBackoffMs = this.backoffCap();
    if (!this.auto) this.start();
    else if (changed && this.timer && this.failures === 0) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.schedule(this.interval);
    }
  }

  /**
   * Runs one poll now (the "poll on input" mode). If a poll is already running, waits for it instead of
   * starting a second one, so two inputs in a row never overlap.
   */
  trigger(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return this.running ?? this.run(false);
  }

  /** Brings the next interval poll forward to now (unless one is running: the schedule goes on from it). */
  now(): void {
    if (this.stopped || this.running) return;
    this.schedule(0);
  }

  get consecutiveFailures(): number {
    return this.failures;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.controller?.abort();
    await this.running?.catch(() => undefined);
  }

  private schedule(delay: number): void {
    if (this.stopped || !this.auto) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // A triggered poll may be running: let it finish and count the interval from there.
      if (this.running) void this.running.then(() => this.schedule(this.interval));
      else void this.run(true);
    }, delay);
  }

  private run(reschedule: boolean): Promise<void> {
    const controller = new AbortController();
    this.controller = controller;
    const p = this.opts
      .poll(controller.signal)
      .then(
        () => {
          this.failures = 0;
          if (reschedule) this.schedule(this.interval);
        },
        (err: unknown) => {
          if (controller.signal.aborted && this.stopped) return;
          this.failures += 1;
          const delay = Math.min(this.interval * 2 ** (this.failures - 1), this.maxBackoffMs);
          this.opts.onError(err, this.failures, reschedule ? delay : 0);
          if (reschedule) this.schedule(delay);
        },
      )
      .finally(() => {
        if (this.running === p) this.running = undefined;
      });
    this.running = p;
    return p;
  }
}
