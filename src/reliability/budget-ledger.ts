/**
 * Where the spending guard's counts live, and the one rule that changes them (framework-free). A reservation
 * checks every window and counts at once, in one step: in this process (a single thread) for the file ledger
 * (budget-file.ts), in one Lua script for the ledger shared by instances through Redis
 * (coordination/shared-budget.ts, the same rule in Lua). `BudgetBook` is that rule on plain data, also the
 * file's content.
 *
 * A reservation is counted when it is made and stays pending under its key until the send is settled: confirmed
 * (the gateway has it: the count stays), released (surely not sent: the count is taken back), or left pending
 * (the outcome is unknown: it stays counted, and a later attempt of the same outbox entry finds it instead of
 * counting again).
 *
 * Counts lost (a count file that should be there and is not, a damaged one, a Redis that lost its data): the book
 * says so (`lost`) and refuses every reservation until a person confirms; the guard meanwhile shows each limited
 * window as spent up to its limit. Never a fresh start from zero. And a clock set back never opens a new window:
 * a day or month counted later than "now" is still the current one, and the rolling hour keeps counts from "the
 * future" until an hour after them.
 *
 * The book also keeps what was spent per clock hour over the last 24 hours and per day over the last 30 days (the
 * panel's Spend chart): bounded, counted and taken back with the same reservations, nothing else.
 */
import { HOUR_MS, hourStartOf, leavesHourAt, secondOf, type BudgetWindow } from './budget-windows';

/** A count per window (only the windows with a limit are looked at). */
export type WindowCounts = Record<BudgetWindow, number>;

/** The counts were lost: why, where, and since when (until a person confirms). */
export interface CountsLost {
  why: string;
  /** The count file, or the Redis key space. */
  where: string;
  since: number;
}

/** A person confirmed the counts after they were lost. */
export interface CountsConfirmed {
  by: string;
  at: number;
}

export interface ReserveRequest {
  key: string;
  cost: number;
  now: number;
  day: string;
  month: string;
  /** Limits in force for this send (the reserve of a critical send already added); absent = none. */
  limits: Partial<WindowCounts>;
  /** Counts at which the warning of a window fires (once per window); absent = no warning. */
  warnAt: Partial<WindowCounts>;
}

export interface ReserveAnswer {
  /**
   * reserved: counted now; pending: already counted under this key (an earlier attempt); refused: not counted;
   * lost: not counted, the counts were lost and no person has confirmed them (`lost` says why).
   */
  result: 'reserved' | 'pending' | 'refused' | 'lost';
  /** Counts after the step. */
  counts: WindowCounts;
  /** Refused: the windows whose limit the send would pass. */
  over: BudgetWindow[];
  /** Windows whose warning share this reservation reached first (each once per window). */
  warned: BudgetWindow[];
  /** Windows whose limit refused a send for the first time in the window. */
  limited: BudgetWindow[];
  /** Refused by the rolling hour: when enough of its count has left it for this send to fit. */
  hourFreeAt?: number | undefined;
  /** result 'lost': why. */
  lost?: CountsLost;
}

/** Hours of spend history kept (clock hours, the current one included). */
export const HISTORY_HOURS = 24;
/** Days of spend history kept (local calendar days, today included). */
export const HISTORY_DAYS = 30;

/** Units counted per clock hour (last 24, oldest first) and per local day (last 30, oldest first). */
export interface SpendHistory {
  hours: { start: number; units: number }[];
  days: { day: string; units: number }[];
}

/** The hour starts of the history ending with the hour holding `now`, oldest first. */
export function historyHours(now: number): number[] {
  const last = hourStartOf(now);
  return Array.from({ length: HISTORY_HOURS }, (_, i) => last - (HISTORY_HOURS - 1 - i) * HOUR_MS);
}

/** The counts a ledger keeps: reservations are made, confirmed and released through it. */
export interface BudgetLedger {
  /** Where the counts live (a file, a Redis key), for messages. */
  readonly location: string;
  /** The counts live on another machine (Redis): not reaching it is a NETWORK problem, not a setting. */
  readonly remote?: boolean;
  /** Counts (if it fits) and answers; resolves once the count is durable, rejects when it cannot be stored. */
  reserve(req: ReserveRequest): Promise<ReserveAnswer>;
  /** The send is at the gateway: the reservation is no longer pending (its count stays). */
  confirm(key: string): Promise<void>;
  /** The send surely did not go out: its count is taken back. */
  release(key: string, now: number): Promise<void>;
  /** The counts now (for the editor and the status). */
  counts(now: number, day: string, month: string): Promise<WindowCounts>;
  /** The spend of the last 24 clock hours up to `now` and of the local `days` (ids, oldest first). */
  history(now: number, days: readonly string[]): Promise<SpendHistory>;
  /** The counts were lost and nobody has confirmed them yet (known at open; Redis: as the ledger learns it). */
  readonly lost: CountsLost | undefined;
  /** A person confirms the counts as they are now: the ledger counts on from them. Durable when it resolves. */
  confirmLost(by: string, now: number): Promise<CountsConfirmed>;
  close(): Promise<void>;
}

interface Period {
  count: number;
  warned?: boolean;
  limited?: boolean;
}

interface Pending {
  cost: number;
  sec: number;
  day: string;
  month: string;
}

/** The book as stored (version 1). */
export interface BookData {
  version: 1;
  /** [second, count] of the rolling hour, oldest first. */
  hour: [number, number][];
  /** When the hour's warning and first refusal were last reported (each at most once an hour). */
  hourWarnedAt?: number;
  hourLimitedAt?: number;
  days: Record<string, Period>;
  months: Record<string, Period>;
  pending: Record<string, Pending>;
  /** Set while the counts are lost (kept until a person confirms: a restart keeps refusing). */
  lost?: CountsLost;
  /** The last confirmation. */
  confirmed?: CountsConfirmed;
  /** [hour start (ms), units] of the last 24 clock hours (absent in books written before it was kept). */
  spent?: [number, number][];
}

/** A pending reservation nobody settled (its process died, its outbox entry was lost) is forgotten after this. */
export const PENDING_KEEP_MS = 40 * 24 * HOUR_MS;
/** Months kept besides the current one (a release of a reservation made before midnight finds it). */
const KEEP_PERIODS = 2;
/** Hour buckets kept at most (the history's, and as many "from the future" after a clock set back). */
const MAX_SPENT_HOURS = 2 * HISTORY_HOURS;

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

export class BudgetBook {
  private hour: [number, number][] = [];
  private hourTotal = 0;
  private hourWarnedAt: number | undefined;
  private hourLimitedAt: number | undefined;
  private days = new Map<string, Period>();
  private months = new Map<string, Period>();
  private pending = new Map<string, Pending & { at: number }>();
  /** Units per clock hour (hour start in ms), the last HISTORY_HOURS. */
  private spent = new Map<number, number>();
  lost: CountsLost | undefined;
  confirmed: CountsConfirmed | undefined;

  /** A book read back from its stored form; throws when the data is not a book. */
  static from(data: unknown): BudgetBook {
    const book = new BudgetBook();
    if (!data || typeof data !== 'object') throw new Error('not a budget book');
    const d = data as Partial<BookData>;
    if (
      d.version !== 1 ||
      !Array.isArray(d.hour) ||
      typeof d.days !== 'object' ||
      typeof d.months !== 'object'
    )
      throw new Error('not a budget book (version 1)');
    for (const b of d.hour) {
      if (!Array.isArray(b) || !Number.isInteger(b[0]) || !isCount(b[1])) throw new Error('bad hour record');
      book.hour.push([b[0], b[1]]);
      book.hourTotal += b[1];
    }
    book.hour.sort((a, b) => a[0] - b[0]);
    if (isCount(d.hourWarnedAt)) book.hourWarnedAt = d.hourWarnedAt;
    if (isCount(d.hourLimitedAt)) book.hourLimitedAt = d.hourLimitedAt;
    for (const [map, src] of [
      [book.days, d.days],
      [book.months, d.months],
    ] as const) {
      for (const [id, p] of Object.entries(src ?? {})) {
        if (!p || !isCount(p.count)) throw new Error(`bad count of ${id}`);
        map.set(id, {
          count: p.count,
          ...(p.warned ? { warned: true } : {}),
          ...(p.limited ? { limited: true } : {}),
        });
      }
    }
    for (const [key, p] of Object.entries(d.pending ?? {})) {
      if (
        !p ||
        !isCount(p.cost) ||
        !Number.isInteger(p.sec) ||
        typeof p.day !== 'string' ||
        typeof p.month !== 'string'
      )
        throw new Error(`bad pending reservation ${key}`);
      book.pending.set(key, { cost: p.cost, sec: p.sec, day: p.day, month: p.month, at: p.sec * 1000 });
    }
    if (d.spent !== undefined) {
      if (!Array.isArray(d.spent)) throw new Error('bad spend record');
      for (const b of d.spent) {
        if (!Array.isArray(b) || !Number.isInteger(b[0]) || !isCount(b[1]))
          throw new Error('bad spend record');
        book.spent.set(b[0], b[1]);
      }
    }
    if (d.lost && typeof d.lost === 'object')
      book.lost = {
        why: String(d.lost.why ?? 'unknown'),
        where: String(d.lost.where ?? ''),
        since: Number(d.lost.since) || 0,
      };
    if (d.confirmed && typeof d.confirmed === 'object')
      book.confirmed = { by: String(d.confirmed.by ?? ''), at: Number(d.confirmed.at) || 0 };
    return book;
  }

  /** The counts were lost: every reservation is refused until confirm(). */
  markLost(lost: CountsLost): void {
    this.lost ??= lost;
  }

  /** A person confirmed the counts: counting goes on from them. */
  confirmLost(by: string, at: number): CountsConfirmed {
    this.lost = undefined;
    this.confirmed = { by, at };
    return this.confirmed;
  }

  toJSON(): BookData {
    const pending: Record<string, Pending> = {};
    for (const [k, p] of this.pending) pending[k] = { cost: p.cost, sec: p.sec, day: p.day, month: p.month };
    return {
      version: 1,
      hour: this.hour.map(([s, c]) => [s, c]),
      ...(this.hourWarnedAt === undefined ? {} : { hourWarnedAt: this.hourWarnedAt }),
      ...(this.hourLimitedAt === undefined ? {} : { hourLimitedAt: this.hourLimitedAt }),
      days: Object.fromEntries(this.days),
      months: Object.fromEntries(this.months),
      pending,
      spent: [...this.spent].sort((a, b) => a[0] - b[0]),
      ...(this.lost ? { lost: this.lost } : {}),
      ...(this.confirmed ? { confirmed: this.confirmed } : {}),
    };
  }

  /** Reservations not settled yet. */
  get pendingCount(): number {
    return this.pending.size;
  }

  hasPending(key: string): boolean {
    return this.pending.has(key);
  }

  /**
   * The day (or month) that counts now: the one of the clock, or a later one the book has counted in (the clock was
   * set back): a clock going back never opens a new window. Ids sort as dates.
   */
  private latest(map: Map<string, Period>, id: string): string {
    let out = id;
    for (const k of map.keys()) if (k > out) out = k;
    return out;
  }

  counts(now: number, day: string, month: string): WindowCounts {
    const d = this.latest(this.days, day);
    const m = this.latest(this.months, month);
    this.expire(now, d, m);
    return {
      hour: this.hourTotal,
      day: this.days.get(d)?.count ?? 0,
      month: this.months.get(m)?.count ?? 0,
    };
  }

  /** The spend per clock hour of the last 24 hours up to `now` and per day of `days`. */
  history(now: number, days: readonly string[]): SpendHistory {
    // Read by key only: what is out of the history is dropped with the next count.
    return {
      hours: historyHours(now).map((start) => ({ start, units: this.spent.get(start) ?? 0 })),
      days: days.map((day) => ({ day, units: this.days.get(day)?.count ?? 0 })),
    };
  }

  reserve(asked: ReserveRequest): ReserveAnswer {
    // Counted in the latest day and month the book knows (the clock may have been set back).
    const req = {
      ...asked,
      day: this.latest(this.days, asked.day),
      month: this.latest(this.months, asked.month),
    };
    const counts = this.counts(req.now, req.day, req.month);
    const answer = (result: ReserveAnswer['result']): ReserveAnswer => ({
      result,
      counts: this.counts(req.now, req.day, req.month),
      over: [],
      warned: [],
      limited: [],
    });
    if (this.pending.has(req.key)) return answer('pending');
    if (this.lost) return { ...answer('lost'), lost: this.lost };
    const over = (['hour', 'day', 'month'] as const).filter((w) => {
      const limit = req.limits[w];
      return limit !== undefined && counts[w] + req.cost > limit;
    });
    if (over.length > 0) {
      const out = answer('refused');
      out.over = over;
      for (const w of over) if (this.firstTime(w, 'limited', req)) out.limited.push(w);
      if (over.includes('hour')) out.hourFreeAt = this.hourFreeAt(req.cost, req.limits.hour ?? 0);
      return out;
    }
    const sec = secondOf(req.now);
    const last = this.hour.at(-1);
    if (last && last[0] === sec) last[1] += req.cost;
    else if (!last || last[0] < sec) this.hour.push([sec, req.cost]);
    else {
      // The clock went back: the seconds stay in order (the counts "from the future" leave the hour last).
      const i = this.hour.findIndex(([s]) => s >= sec);
      if (this.hour[i]![0] === sec) this.hour[i]![1] += req.cost;
      else this.hour.splice(i, 0, [sec, req.cost]);
    }
    this.hourTotal += req.cost;
    const h = hourStartOf(sec * 1000);
    this.spent.set(h, (this.spent.get(h) ?? 0) + req.cost);
    this.period(this.days, req.day).count += req.cost;
    this.period(this.months, req.month).count += req.cost;
    this.pending.set(req.key, { cost: req.cost, sec, day: req.day, month: req.month, at: req.now });
    const out = answer('reserved');
    for (const w of ['hour', 'day', 'month'] as const) {
      const at = req.warnAt[w];
      if (at !== undefined && out.counts[w] >= at && this.firstTime(w, 'warned', req)) out.warned.push(w);
    }
    return out;
  }

  confirm(key: string): boolean {
    return this.pending.delete(key);
  }

  release(key: string, now: number): boolean {
    const p = this.pending.get(key);
    if (!p) return false;
    this.pending.delete(key);
    const i = this.hour.findIndex(([s]) => s === p.sec);
    if (i >= 0 && now < leavesHourAt(p.sec)) {
      const bucket = this.hour[i]!;
      const take = Math.min(bucket[1], p.cost);
      bucket[1] -= take;
      this.hourTotal -= take;
      if (bucket[1] === 0) this.hour.splice(i, 1);
    }
    const h = hourStartOf(p.sec * 1000);
    const spent = this.spent.get(h);
    if (spent !== undefined) this.spent.set(h, Math.max(0, spent - p.cost));
    for (const [map, id] of [
      [this.days, p.day],
      [this.months, p.month],
    ] as const) {
      const period = map.get(id);
      if (period) period.count = Math.max(0, period.count - p.cost);
    }
    return true;
  }

  /** A window's warning or first refusal: true the first time in the window (an hour apart for the hour). */
  private firstTime(w: BudgetWindow, flag: 'warned' | 'limited', req: ReserveRequest): boolean {
    if (w === 'hour') {
      const last = flag === 'warned' ? this.hourWarnedAt : this.hourLimitedAt;
      if (last !== undefined && req.now - last < HOUR_MS) return false;
      if (flag === 'warned') this.hourWarnedAt = req.now;
      else this.hourLimitedAt = req.now;
      return true;
    }
    const period = this.period(w === 'day' ? this.days : this.months, w === 'day' ? req.day : req.month);
    if (period[flag]) return false;
    period[flag] = true;
    return true;
  }

  /** When enough of the hour's count has left it for `cost` more to fit under `limit`. */
  private hourFreeAt(cost: number, limit: number): number | undefined {
    let total = this.hourTotal;
    for (const [sec, count] of this.hour) {
      total -= count;
      if (total + cost <= limit) return leavesHourAt(sec);
    }
    return undefined;
  }

  private period(map: Map<string, Period>, id: string): Period {
    let p = map.get(id);
    if (!p) {
      p = { count: 0 };
      map.set(id, p);
    }
    return p;
  }

  /** Drops what no window counts any more: seconds out of the hour, old days and months, stale reservations. */
  private expire(now: number, day: string, month: string): void {
    let n = 0;
    while (n < this.hour.length && leavesHourAt(this.hour[n]![0]) <= now) {
      this.hourTotal -= this.hour[n]![1];
      n++;
    }
    if (n > 0) this.hour.splice(0, n);
    if (this.hour.length === 0) this.hourTotal = 0;
    const oldest = historyHours(now)[0]!;
    for (const h of this.spent.keys()) if (h < oldest) this.spent.delete(h);
    if (this.spent.size > MAX_SPENT_HOURS) {
      const keep = new Set([...this.spent.keys()].sort((a, b) => a - b).slice(-MAX_SPENT_HOURS));
      for (const h of this.spent.keys()) if (!keep.has(h)) this.spent.delete(h);
    }
    prune(this.days, day, HISTORY_DAYS - 1);
    prune(this.months, month, KEEP_PERIODS);
    for (const [key, p] of this.pending) if (now - p.at > PENDING_KEEP_MS) this.pending.delete(key);
  }
}

/** Keeps the current period and the `before` ones before it (ids sort as dates). */
function prune(map: Map<string, Period>, current: string, before: number): void {
  if (map.size <= before + 1) return;
  const ids = [...map.keys()].filter((id) => id <= current).sort();
  const keep = new Set(ids.slice(-(before + 1)));
  for (const id of map.keys()) if (!keep.has(id) && id <= current) map.delete(id);
}
