/**
 * The heartbeat node's gateway watch: a gateway that is down is an alarm too, to be sent by another channel.
 *
 *   - Calls: every call of the gateway configuration that reached the gateway is told here (the config node's
 *     `onCall` hook). `failures` of them in a row ending with one of `codes` (default NETWORK, TIMEOUT, HTTP,
 *     AUTH) raise the alarm "calls" once; the next call the gateway answered (a success, or an error not in
 *     `codes`, such as a refused recipient) clears it once. Errors raised before any request (bad input, a full
 *     queue, the spending guard) count neither way.
 *   - Balance (only with a threshold): read every `balanceEveryMs` (the first read soon after the start; under
 *     coordination one instance per interval), a balance below the threshold raises "balance", one at or above
 *     it clears it. The read is a call like any other: a failing read counts for "calls".
 *
 * Raised and cleared through the node's sources (noted before emitted, across restarts and instances), so each
 * raise and each clear is emitted once.
 */
import type { GatewayAlarm, GatewayKind, Sources } from './sources';
import { realClock, type Clock } from './sources';

/** Codes of errors that come before any request: they say nothing about the gateway. */
const NOT_A_CALL = new Set(['VALIDATION', 'CONFIG', 'QUEUE_FULL', 'BUDGET']);
/** The first balance read after the start (Node-RED's flows are up by then). */
export const FIRST_BALANCE_MS = 2000;

export interface GatewayWatchOptions {
  sources: Sources;
  /** Failed calls in a row that raise the alarm. */
  failures: number;
  /** The error codes that count as failed (upper case). */
  codes: ReadonlySet<string>;
  /** Raise "balance" below this; undefined: the balance is not read. */
  balanceBelow: number | undefined;
  balanceEveryMs: number;
  readBalance(signal: AbortSignal): Promise<number>;
  /** A raise, clear or balance read that could not be done (Redis away, a store that cannot write): why. */
  failed(err: unknown): void;
  clock?: Clock;
}

/** The `code` of an error, judged by its shape (it may come from another realm). */
const codeOf = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
};

const messageOf = (err: unknown): string =>
  err instanceof Error ? err.message : typeof err === 'string' ? err : String(err);

export class GatewayWatch {
  private inRow = 0;
  private readonly clock: Clock;
  private timer: unknown;
  private readonly aborter = new AbortController();
  private closed = false;

  constructor(private readonly o: GatewayWatchOptions) {
    this.clock = o.clock ?? realClock;
  }

  /** Failed calls in a row now. */
  get failuresInRow(): number {
    return this.inRow;
  }

  /**
   * How a call ended (undefined: it succeeded). On the hot path of every call: a success while nothing is
   * counted or raised returns at once.
   */
  readonly outcome = (err: unknown): void => {
    if (this.closed) return;
    if (err === undefined) {
      if (this.inRow === 0 && !this.o.sources.raised('calls')) return;
      this.answered();
      return;
    }
    const code = codeOf(err);
    if (code === undefined || NOT_A_CALL.has(code)) return;
    if (!this.o.codes.has(code)) {
      this.answered();
      return;
    }
    this.inRow++;
    if (this.inRow < this.o.failures || this.o.sources.raised('calls')) return;
    const alarm: GatewayAlarm = {
      since: this.clock.now(),
      failures: this.inRow,
      code,
      message: messageOf(err),
    };
    this.o.sources.raise('calls', alarm).catch((e: unknown) => this.o.failed(e));
  };

  /** Starts reading the balance (when a threshold is set). */
  start(): void {
    if (this.o.balanceBelow !== undefined) this.next(FIRST_BALANCE_MS);
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.aborter.abort();
  }

  /** The gateway answered: the count starts again, and "calls" clears if it was raised. */
  private answered(): void {
    this.inRow = 0;
    if (this.o.sources.raised('calls')) this.clearing('calls');
  }

  private clearing(kind: GatewayKind): void {
    this.o.sources.clear(kind).catch((e: unknown) => this.o.failed(e));
  }

  private next(ms: number): void {
    if (this.closed) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      void this.readBalance().finally(() => this.next(this.o.balanceEveryMs));
    }, ms);
  }

  /** One balance read (if it is this instance's turn) and what it means for "balance". */
  async readBalance(): Promise<void> {
    const below = this.o.balanceBelow;
    if (below === undefined || this.closed) return;
    try {
      if (this.o.sources.balanceTurn && !(await this.o.sources.balanceTurn(this.o.balanceEveryMs))) return;
      const balance = await this.o.readBalance(this.aborter.signal);
      if (this.closed) return;
      if (balance < below)
        await this.o.sources.raise('balance', { since: this.clock.now(), balance, threshold: below });
      else if (this.o.sources.raised('balance')) await this.o.sources.clear('balance');
    } catch (e) {
      // A read the gateway failed is a failed call (told through the hook); other trouble (no account, Redis away,
      // a store that cannot write) is said here.
      const code = codeOf(e);
      if (!this.closed && (code === undefined || NOT_A_CALL.has(code))) this.o.failed(e);
    }
  }
}
