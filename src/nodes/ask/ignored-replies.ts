/**
 * The log lines about replies an ask node ignores (no code while several questions are open, a reply to another
 * message, not an accepted answer), at most one per number per minute. A phone that sends 300 wrong replies gives
 * one line naming the first, then one a minute saying how many more came ("12 more ignored replies from +49…"),
 * for as long as they keep coming. At most 1,000 numbers are tracked at a time: replies from further numbers share
 * one such line ("other numbers"), so neither the log nor the memory grows with what phones send.
 */
import { counted } from '../../count';

/** The time and timers the lines follow (the engine's clock; a fake one in tests). */
export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** One line per number per this long. */
export const IGNORED_WINDOW_MS = 60_000;
/** Numbers tracked at once; replies from more numbers share one line a minute. */
export const IGNORED_NUMBERS_MAX = 1000;

const OTHERS = '\u0000others';

interface Window {
  /** The number as the lines show it. */
  from: string;
  /** When this window ends (a line may be written then). */
  until: number;
  /** Replies ignored since the last line. */
  held: number;
  /** Why the last one held back was ignored. */
  last: string;
}

export class IgnoredReplies {
  private readonly windows = new Map<string, Window>();
  private timer: unknown;
  private closed = false;

  constructor(
    private readonly log: (line: string) => void,
    private readonly clock: Timers,
    private readonly windowMs = IGNORED_WINDOW_MS,
    private readonly maxNumbers = IGNORED_NUMBERS_MAX,
  ) {}

  /**
   * A reply from `key` (the number compared, shown as `from`, already safe to log) was ignored, `why` (one line,
   * already safe): written now when the number has no line within the last minute, else counted.
   */
  note(key: string, from: string, why: string): void {
    if (this.closed) return;
    const now = this.clock.now();
    this.flush(now);
    const bucket = this.windows.has(key) || this.windows.size < this.maxNumbers ? key : OTHERS;
    const open = this.windows.get(bucket);
    if (open) {
      open.held++;
      open.last = why;
      return;
    }
    const shown = bucket === OTHERS ? 'other numbers' : from;
    this.windows.set(bucket, { from: shown, until: now + this.windowMs, held: 0, last: why });
    this.log(
      bucket === OTHERS
        ? `${why} (replies from more than ${this.maxNumbers} numbers share one line a minute)`
        : why,
    );
    this.schedule();
  }

  /**
   * Ends the windows that are over by `now`: one line for each that held replies back (and a new window after it,
   * so the next line is a minute later again); a window without any is forgotten.
   */
  flush(now: number = this.clock.now()): void {
    for (const [key, w] of this.windows) {
      if (w.until > now) continue;
      if (w.held === 0) {
        this.windows.delete(key);
        continue;
      }
      this.log(summary(w));
      w.held = 0;
      w.until = now + this.windowMs;
    }
  }

  /** Writes what is still held back (a node stops): no count is lost. */
  close(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    for (const w of this.windows.values()) if (w.held > 0) this.log(summary(w));
    this.windows.clear();
    this.closed = true;
  }

  /** Numbers (and the shared line of other numbers) tracked now. */
  get size(): number {
    return this.windows.size;
  }

  /** One timer, for the earliest end of a window. */
  private schedule(): void {
    if (this.timer !== undefined || this.closed || this.windows.size === 0) return;
    let first = Infinity;
    for (const w of this.windows.values()) first = Math.min(first, w.until);
    this.timer = this.clock.setTimeout(
      () => {
        this.timer = undefined;
        this.flush();
        this.schedule();
      },
      Math.max(0, first - this.clock.now()),
    );
  }
}

const summary = (w: Window): string =>
  `ask: ${counted(w.held, 'more ignored reply', 'more ignored replies')} from ${w.from} in the last minute ` +
  `(the last: ${w.last.replace(/^ask: /, '')})`;
