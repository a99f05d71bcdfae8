/**
 * What a store does when a write fails (disk full, EIO, no right, the file's path taken by a directory): it keeps
 * the latest unsaved value in memory (the caller's state; the saver writes whatever is current when it writes),
 * tells once that it cannot save (and once that it can again), and tries again on its own: after 1 s, doubling
 * to 30 s. The component using it must not act on a change before it is saved: it either waits for `durable()`
 * (which resolves only once the change is on disk, however long that takes, so the component carries on from
 * exactly there) or uses `attempt()` (which fails with the write, so the component refuses what it was asked).
 * Writes never overlap, and every request made while one runs is covered by the next one (group commit).
 */
import { GatewayError } from '../errors';

/** Why a store cannot save, for the status ("cannot save <file>: <code>"), the log and the error. */
export interface SaveProblem {
  file: string;
  /** The error code (EISDIR, ENOSPC, EIO, ...) or 'ERROR'. */
  code: string;
  message: string;
  /** When it began failing (ms). */
  since: number;
}

/** A change that could not be saved: the component did not act on it (code CONFIG, not ambiguous). */
export class StoreWriteError extends GatewayError {
  constructor(
    readonly problem: SaveProblem,
    cause?: unknown,
  ) {
    super('CONFIG', `cannot save ${problem.file}: ${problem.code} (${problem.message})`, {
      ambiguous: false,
      cause,
    });
  }
}

/** Timers of the retries (injectable: the fault suite drives retries by hand). */
export interface RetryTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: RetryTimers = {
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    // A retry never keeps the process alive.
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export const RETRY_FIRST_MS = 1000;
export const RETRY_MAX_MS = 30_000;

export interface SaverOptions {
  /** The file (or place) written, for messages. */
  file: string;
  /** Writes the current value. */
  write(): Promise<void>;
  /** Told once when saving starts failing (with why) and once when it works again (undefined). */
  onProblem?(problem: SaveProblem | undefined): void;
  timers?: RetryTimers;
  now?(): number;
}

interface Waiter {
  /** The request it waits for: any write that began after it covers it. */
  request: number;
  resolve(): void;
  reject(err: unknown): void;
  /** attempt(): the first write covering it decides; durable(): only a success does. */
  attempt: boolean;
}

export const codeOf = (e: unknown): string => {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && code !== '' ? code : 'ERROR';
};

export class Saver {
  private requested = 0;
  private running: Promise<void> | undefined;
  /** The write loop runs (set and cleared synchronously, unlike `running`, which settles a turn later). */
  private active = false;
  private waiters: Waiter[] = [];
  private current: SaveProblem | undefined;
  private timer: unknown;
  private delay = RETRY_FIRST_MS;
  private closed = false;
  private closing = false;
  private readonly timers: RetryTimers;

  constructor(private readonly options: SaverOptions) {
    this.timers = options.timers ?? realTimers;
  }

  /** Why the last write failed, while it does; undefined when the latest write succeeded. */
  get problem(): SaveProblem | undefined {
    return this.current;
  }

  /** Resolves once the value as it is now is on disk, waiting through failed writes (retried). */
  durable(): Promise<void> {
    return this.request(false);
  }

  /** Resolves once the value as it is now is on disk; rejects (StoreWriteError) when the write fails. */
  attempt(): Promise<void> {
    return this.request(true);
  }

  /** Tries a failing write again now (tests; and a component that has reason to think the disk is back). */
  retryNow(): Promise<void> {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.current && !this.closing) this.kick();
    return this.running ?? Promise.resolve();
  }

  /** Waits for the write under way (not for a failing one to succeed). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  /**
   * Stops retrying after one last try (a flow stopping); what still waits for durability is told it was not
   * saved (StoreWriteError). The value in memory goes with the component.
   */
  async close(): Promise<void> {
    if (this.closed || this.closing) return this.flush();
    this.closing = true;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.current || this.waiters.length > 0) {
      this.requested++;
      this.kick();
    }
    await this.flush();
    this.closed = true;
    const left = this.waiters.splice(0);
    if (left.length === 0) return;
    const err = new StoreWriteError(
      this.current ?? {
        file: this.options.file,
        code: 'CLOSED',
        message: 'the store closed',
        since: this.now(),
      },
    );
    for (const w of left) w.reject(err);
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private request(attempt: boolean): Promise<void> {
    if (this.closed)
      return Promise.reject(
        new StoreWriteError({
          file: this.options.file,
          code: 'CLOSED',
          message: 'the store is closed',
          since: this.now(),
        }),
      );
    const request = ++this.requested;
    const done = new Promise<void>((resolve, reject) =>
      this.waiters.push({ request, resolve, reject, attempt }),
    );
    // While a retry is pending, a new request tries at once (it may be the disk coming back).
    if (this.timer !== undefined) {
      this.timers.clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.kick();
    return done;
  }

  private kick(): void {
    if (this.active) return;
    this.active = true;
    const run: Promise<void> = this.loop().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
  }

  /** Ends (and clears `active`) in the same step as its last check: a request made after it starts a new loop. */
  private async loop(): Promise<void> {
    let written = -1;
    // Until a write covers every request (and, after a failure, until one succeeds or a retry is scheduled).
    while (written < this.requested || this.current) {
      const covers = this.requested;
      let error: unknown;
      try {
        await this.options.write();
      } catch (e) {
        error = e;
      }
      // (settle() and onProblem only resolve, reject and tell: nothing here awaits before the loop's last check.)
      written = covers;
      if (error === undefined) {
        this.delay = RETRY_FIRST_MS;
        this.settle(covers, undefined);
        if (this.current) {
          this.current = undefined;
          this.tell(undefined);
        }
        continue;
      }
      const first = this.current === undefined;
      this.current = {
        file: this.options.file,
        code: codeOf(error),
        message: error instanceof Error ? error.message : String(error),
        since: this.current?.since ?? this.now(),
      };
      // Every attempt waiting is told now, also those asked for while this write ran (their write would meet the
      // same disk; the retry below writes the latest value for them all).
      this.settle(Infinity, new StoreWriteError(this.current, error));
      if (first) this.tell(this.current);
      if (!this.closing) {
        const ms = this.delay;
        this.delay = Math.min(this.delay * 2, RETRY_MAX_MS);
        this.timer = this.timers.setTimeout(() => {
          this.timer = undefined;
          this.kick();
        }, ms);
      }
      this.active = false;
      return;
    }
    this.active = false;
  }

  /** Tells a listener; one that throws must not stop the saver. */
  private tell(problem: SaveProblem | undefined): void {
    try {
      this.options.onProblem?.(problem);
    } catch {
      // the store goes on
    }
  }

  /** A write covering requests up to `covers` ended: with `error`, only attempts are told. */
  private settle(covers: number, error: unknown): void {
    const keep: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.request > covers) keep.push(w);
      else if (error === undefined) w.resolve();
      else if (w.attempt) w.reject(error);
      else keep.push(w);
    }
    this.waiters = keep;
  }
}
