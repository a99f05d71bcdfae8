/**
 * The spending guard of one config node (framework-free): limits per rolling hour, calendar day and calendar
 * month (local time; budget-windows.ts) on the units a send costs (segments x recipients; budget-cost.ts).
 *
 * Every send reserves its cost before anything goes out, in one atomic step that checks every window
 * (budget-ledger.ts: the file ledger, or the Lua script of the ledger shared through Redis): a send that would
 * pass a limit is refused with a `BUDGET` error (nothing sent), or held in the outbox until the window has room
 * again. The reservation is confirmed when the gateway accepted the send, released when it surely did not, and
 * stays counted when nobody can know (a lost answer): so concurrent sends near a limit can never overshoot it.
 * A critical send may use a reserve above the limits. A window's warning share fires once per window, as an
 * event for the flow (the smsgw-budget node).
 *
 * When the counts were lost (budget-ledger.ts) every limited window counts as spent up to its limit and every send
 * is refused (or held), critical ones too: a critical send could otherwise pass the limit and its reserve by as
 * much as the lost counts held, and nobody can know how much that was. A person confirms the counts
 * (confirmLost); until then the guard says why and how, in each refusal, its status and one log line.
 */
import { EventEmitter } from 'node:events';
import type { ServiceName } from '../catalogue/types';
import { GatewayError } from '../errors';
import {
  HISTORY_DAYS,
  type BudgetLedger,
  type CountsConfirmed,
  type CountsLost,
  type ReserveAnswer,
  type SpendHistory,
  type WindowCounts,
} from './budget-ledger';
import {
  BUDGET_WINDOWS,
  dayOf,
  HOUR_MS,
  lastDays,
  localTime,
  monthOf,
  systemClock,
  type BudgetClock,
  type BudgetWindow,
} from './budget-windows';

export type { BudgetWindow, BudgetClock } from './budget-windows';

export interface BudgetSettings {
  /** Units per window; absent = no limit for that window. 0 = nothing (but critical sends within the reserve). */
  limits: Partial<Record<BudgetWindow, number>>;
  /** Units a critical send may use above each limit (default 0). */
  reserve?: number;
  /** Share of a limit (percent) at which its warning fires, once per window (default 80; 0 = no warning). */
  warnPercent?: number;
  /** Over a limit: hold the send in the outbox until the window has room (true) or refuse it (default). */
  hold?: boolean;
}

/** The panel's Spend section: the history and the windows it is drawn against. */
export interface SpendView extends SpendHistory {
  windows: WindowState[];
  /** Units a critical send may use above the limits. */
  reserve: number;
  /** Of those, what is left now (the tightest window decides). */
  reserveLeft: number;
}

/** What the smsgw-budget node emits. */
export interface BudgetEvent {
  /** warning: the window reached its warning share; limit: its limit refused (or held) a send for the first time. */
  event: 'warning' | 'limit';
  window: BudgetWindow;
  /** Units counted in the window after the send that fired it. */
  count: number;
  limit: number;
  /** count / limit in percent (rounded down). */
  percent: number;
  /** When the window resets (the day's and month's end; for the rolling hour, when its oldest count leaves it). */
  resetsAt: number;
}

/** One window as the editor and the status show it. */
export interface WindowState {
  window: BudgetWindow;
  count: number;
  limit: number;
  /** Count at which the warning fires (undefined: no warning). */
  warnAt: number | undefined;
  resetsAt: number;
}

export interface BudgetEvents {
  event: [BudgetEvent];
  /** Counts changed (a reservation, a release, a new window). */
  change: [];
  /** The counts were found lost (once per loss). */
  lost: [CountsLost];
  /** A person confirmed the counts after a loss. */
  confirmed: [CountsConfirmed];
}

/** How a person confirms lost counts (in every refusal and log line about them). */
export const CONFIRM_HOW =
  'confirm the counts in the Budget tab of the gateway configuration ("Confirm counts"), or send msg.topic "budget/confirm" to a budget node of it';

export interface ReserveOptions {
  critical?: boolean | undefined;
  /** Hold instead of refuse (the caller has an outbox to hold it in). */
  hold?: boolean | undefined;
  service?: ServiceName | undefined;
  operation?: string | undefined;
}

/** How a send ended, for its reservation. */
export type SendOutcomeKind = 'sent' | 'notSent' | 'unknown';

const NAMES: Record<BudgetWindow, string> = {
  hour: 'hourly limit',
  day: 'daily limit',
  month: 'monthly limit',
};

/** A send the spending guard refused (or, `held`, keeps in the outbox until `retryAt`). Code `BUDGET`. */
export class BudgetError extends GatewayError {
  constructor(
    message: string,
    readonly window: BudgetWindow,
    readonly limit: number,
    readonly count: number,
    readonly cost: number,
    readonly held: boolean,
    details: {
      service?: ServiceName | undefined;
      operation?: string | undefined;
      retryAt?: number | undefined;
    },
  ) {
    super('BUDGET', message, { ...details, ambiguous: false });
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      budget: { window: this.window, limit: this.limit, count: this.count, cost: this.cost, held: this.held },
    };
  }
}

export const isBudgetHold = (err: unknown): boolean => err instanceof BudgetError && err.held;

/** Limits from the settings: whole numbers >= 0; anything else is no limit. */
function cleanLimits(limits: BudgetSettings['limits']): Partial<Record<BudgetWindow, number>> {
  const out: Partial<Record<BudgetWindow, number>> = {};
  for (const w of BUDGET_WINDOWS) {
    const v = limits[w];
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) out[w] = Math.floor(v);
  }
  return out;
}

export class Budget extends EventEmitter<BudgetEvents> {
  readonly limits: Readonly<Partial<Record<BudgetWindow, number>>>;
  readonly reserveUnits: number;
  readonly warnPercent: number;
  readonly hold: boolean;
  private last: { counts: WindowCounts; at: number } | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** The loss told last (so it is told once). */
  private toldLost: CountsLost | undefined;

  constructor(
    settings: BudgetSettings,
    readonly ledger: BudgetLedger,
    private readonly clock: BudgetClock = systemClock,
  ) {
    super();
    this.limits = cleanLimits(settings.limits);
    this.reserveUnits = Math.max(0, Math.floor(Number(settings.reserve) || 0));
    const warn = settings.warnPercent === undefined ? 80 : Number(settings.warnPercent);
    this.warnPercent = Number.isFinite(warn) && warn > 0 ? Math.min(100, warn) : 0;
    this.hold = settings.hold === true;
  }

  /** True when at least one limit is set (otherwise nothing is counted). */
  get active(): boolean {
    return Object.keys(this.limits).length > 0;
  }

  /** The count at which a window's warning fires. */
  warnAt(w: BudgetWindow): number | undefined {
    const limit = this.limits[w];
    if (limit === undefined || this.warnPercent === 0) return undefined;
    // Whole numbers first: 7 x 100 / 100 is 7, where 7 x 1.00 may not be.
    return Math.max(1, Math.ceil((limit * this.warnPercent) / 100 - 1e-9));
  }

  /**
   * Refuses at once a send that can never fit (its cost alone is above a limit, the reserve included for a
   * critical one): holding it would keep it forever.
   */
  check(cost: number, options: ReserveOptions = {}): void {
    for (const w of BUDGET_WINDOWS) {
      const limit = this.limits[w];
      if (limit === undefined) continue;
      const room = limit + (options.critical ? this.reserveUnits : 0);
      if (cost <= room) continue;
      const reserve =
        options.critical && this.reserveUnits > 0 ? ` and its reserve of ${this.reserveUnits}` : '';
      throw new BudgetError(
        `message larger than the ${NAMES[w]} of ${limit}${reserve} (it counts ${cost}: segments x recipients): not sent, it can never fit`,
        w,
        limit,
        0,
        cost,
        false,
        { service: options.service, operation: options.operation },
      );
    }
  }

  /**
   * Counts a send of `cost` units under `key` before it goes out. Resolves when it is counted (or was already,
   * under the same key: a later attempt of one outbox entry); rejects with a BudgetError when a limit would be
   * passed (held: the caller keeps it until `retryAt`), or when the count cannot be stored (nothing is sent).
   */
  async reserve(key: string, cost: number, options: ReserveOptions = {}): Promise<ReserveAnswer> {
    this.check(cost, options);
    // The file ledger knows at once; the Redis ledger asks its script each time (another instance may have
    // confirmed the counts meanwhile).
    const known = this.ledger.remote ? undefined : this.ledger.lost;
    if (known) throw this.lostError(known, cost, options);
    const now = this.clock.now();
    const day = dayOf(now);
    const month = monthOf(now);
    const limits: Partial<WindowCounts> = {};
    const warnAt: Partial<WindowCounts> = {};
    for (const w of BUDGET_WINDOWS) {
      const limit = this.limits[w];
      if (limit === undefined) continue;
      limits[w] = limit + (options.critical ? this.reserveUnits : 0);
      const at = this.warnAt(w);
      if (at !== undefined) warnAt[w] = at;
    }
    let answer: ReserveAnswer;
    try {
      answer = await this.ledger.reserve({ key, cost, now, day: day.id, month: month.id, limits, warnAt });
    } catch (e) {
      // Not counted, so not sent: a file that cannot be written is a setting to fix (CONFIG), Redis away a
      // connection that comes back (NETWORK: an outbox keeps the message meanwhile).
      throw new GatewayError(
        this.ledger.remote ? 'NETWORK' : 'CONFIG',
        `not sent: the spending guard cannot store its count in ${this.ledger.location}: ${e instanceof Error ? e.message : String(e)}`,
        { service: options.service, operation: options.operation, ambiguous: false, cause: e },
      );
    }
    this.noted(answer.counts, now);
    if (answer.result === 'lost') throw this.lostError(answer.lost ?? this.ledger.lost, cost, options);
    const resets = (w: BudgetWindow): number =>
      w === 'day' ? day.end : w === 'month' ? month.end : (answer.hourFreeAt ?? now + HOUR_MS);
    for (const w of answer.warned) this.fire('warning', w, answer.counts[w], resets(w));
    for (const w of answer.limited) this.fire('limit', w, answer.counts[w], resets(w));
    if (answer.result !== 'refused') return answer;
    // The window that frees up last decides when the send can go.
    const binding = answer.over.reduce((a, b) => (resets(b) > resets(a) ? b : a));
    const retryAt = resets(binding);
    const limit = this.limits[binding] ?? 0;
    const hold = options.hold === true;
    const reserve =
      options.critical && this.reserveUnits > 0
        ? ` and the reserve of ${this.reserveUnits} for critical messages`
        : '';
    const when =
      binding === 'hour'
        ? `room again from ${localTime(retryAt, true)} local time (the last 60 minutes count)`
        : `it resets at ${localTime(retryAt)} local time`;
    const what = hold ? 'held in the outbox until then' : 'not sent';
    throw new BudgetError(
      `${NAMES[binding]} of ${limit}${reserve} reached (${answer.counts[binding]} counted, this message ${cost}: segments x recipients): ${what}; ${when}`,
      binding,
      limit,
      answer.counts[binding],
      cost,
      hold,
      { service: options.service, operation: options.operation, retryAt },
    );
  }

  /** The counts were lost and nobody has confirmed them: why and where, or undefined. */
  get lost(): CountsLost | undefined {
    return this.ledger.lost;
  }

  /** Tells the listeners once per loss (the host logs it; budget nodes emit it). */
  private noteLost(lost: CountsLost | undefined): void {
    if (!lost || this.toldLost?.since === lost.since) return;
    this.toldLost = lost;
    this.emit('lost', lost);
    this.emit('change');
  }

  /** A refusal (or a hold: tried again in a minute, and at once when a person confirms) while the counts are lost. */
  private lostError(lost: CountsLost | undefined, cost: number, options: ReserveOptions): BudgetError {
    this.noteLost(lost);
    const w = BUDGET_WINDOWS.find((x) => this.limits[x] !== undefined) ?? 'day';
    const limit = this.limits[w] ?? 0;
    const hold = options.hold === true;
    return new BudgetError(
      `the spending guard's counts were lost (${lost?.why ?? 'unknown'}; ${lost?.where ?? this.ledger.location}): every limit counts as reached until a person confirms the counts (${CONFIRM_HOW}): ${hold ? 'held in the outbox until then' : 'not sent'}`,
      w,
      limit,
      limit,
      cost,
      hold,
      { service: options.service, operation: options.operation, retryAt: this.clock.now() + 60_000 },
    );
  }

  /**
   * A person confirms the counts as the ledger has them now (after a loss, from zero or from what could be read):
   * sends are counted and checked again from there. Durable when it resolves; told as an event.
   */
  async confirmLost(by: string): Promise<CountsConfirmed> {
    const confirmed = await this.ledger.confirmLost(by, this.clock.now());
    this.toldLost = undefined;
    this.emit('confirmed', confirmed);
    await this.refresh().catch(() => undefined);
    this.emit('change');
    return confirmed;
  }

  /** Settles the reservation `key` by how its send ended (`keepUnknown`: leave it pending for a retry). */
  settle(key: string, outcome: SendOutcomeKind, keepUnknown = false): void {
    let step: Promise<void> | undefined;
    if (outcome === 'sent' || (outcome === 'unknown' && !keepUnknown)) step = this.ledger.confirm(key);
    else if (outcome === 'notSent') step = this.ledger.release(key, this.clock.now());
    // A step that fails leaves the reservation counted: the safe side. The status catches up on its own.
    void step
      ?.catch(() => undefined)
      .then(() => {
        if (outcome === 'notSent') this.refreshSoon();
      });
  }

  /** Each window with a limit: count (as last seen, or fresh with `fresh`), limit, warning count, reset. */
  async windows(fresh = false): Promise<WindowState[]> {
    const now = this.clock.now();
    if (fresh || !this.last) await this.refresh();
    const counts = this.countsAt(now);
    const day = dayOf(now);
    const month = monthOf(now);
    return BUDGET_WINDOWS.filter((w) => this.limits[w] !== undefined).map((w) => ({
      window: w,
      count: counts[w],
      limit: this.limits[w]!,
      warnAt: this.warnAt(w),
      resetsAt: w === 'day' ? day.end : w === 'month' ? month.end : now + HOUR_MS,
    }));
  }

  /** The windows as last seen, without asking the ledger (for a status). */
  windowsNow(): WindowState[] {
    const now = this.clock.now();
    const counts = this.countsAt(now);
    return BUDGET_WINDOWS.filter((w) => this.limits[w] !== undefined).map((w) => ({
      window: w,
      count: counts[w],
      limit: this.limits[w]!,
      warnAt: this.warnAt(w),
      resetsAt: w === 'day' ? dayOf(now).end : w === 'month' ? monthOf(now).end : now + HOUR_MS,
    }));
  }

  /**
   * What the panel's Spend chart shows: units per clock hour (last 24 h) and per local day (last 30 days), the
   * windows (fresh), and the reserve a critical send may still use (0 while the counts are lost).
   */
  async spend(): Promise<SpendView> {
    const now = this.clock.now();
    const windows = await this.windows(true);
    const history = await this.ledger.history(now, lastDays(now, HISTORY_DAYS));
    let reserveLeft = this.ledger.lost ? 0 : this.reserveUnits;
    for (const w of windows)
      reserveLeft = Math.min(reserveLeft, Math.max(0, w.limit + this.reserveUnits - w.count));
    return { ...history, windows, reserve: this.reserveUnits, reserveLeft };
  }

  /** Reads the counts from the ledger (another instance may have counted) and tells the listeners. */
  async refresh(): Promise<void> {
    const now = this.clock.now();
    const counts = await this.ledger.counts(now, dayOf(now).id, monthOf(now).id);
    this.noteLost(this.ledger.lost);
    this.noted(counts, now);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.refreshTimer = undefined;
    await this.ledger.close();
  }

  /**
   * The last counts, with a day or month that has ended since read as 0 (a clock set back keeps them: the window
   * they were counted in is still the current one); while the counts are lost, each limited window as spent up to
   * its limit.
   */
  private countsAt(now: number): WindowCounts {
    const last = this.last;
    const counts: WindowCounts = !last
      ? { hour: 0, day: 0, month: 0 }
      : {
          hour: now - last.at >= HOUR_MS ? 0 : last.counts.hour,
          day: dayOf(last.at).id >= dayOf(now).id ? last.counts.day : 0,
          month: monthOf(last.at).id >= monthOf(now).id ? last.counts.month : 0,
        };
    if (this.ledger.lost)
      for (const w of BUDGET_WINDOWS) {
        const limit = this.limits[w];
        if (limit !== undefined) counts[w] = Math.max(counts[w], limit);
      }
    return counts;
  }

  private noted(counts: WindowCounts, at: number): void {
    this.last = { counts, at };
    this.emit('change');
    // While anything is counted, look again now and then: the hour's count falls as time passes.
    if (!this.closed && !this.refreshTimer && (counts.hour > 0 || counts.day > 0 || counts.month > 0)) {
      this.refreshTimer = setTimeout(() => {
        this.refreshTimer = undefined;
        void this.refresh().catch(() => undefined);
      }, 60_000);
      this.refreshTimer.unref?.();
    }
  }

  private refreshSoon(): void {
    if (this.closed) return;
    void this.refresh().catch(() => undefined);
  }

  private fire(event: BudgetEvent['event'], window: BudgetWindow, count: number, resetsAt: number): void {
    const limit = this.limits[window] ?? 0;
    const percent = limit > 0 ? Math.floor((count * 100) / limit) : 100;
    this.emit('event', { event, window, count, limit, percent, resetsAt });
  }
}
