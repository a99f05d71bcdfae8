/**
 * Carrier-safe pacing per number (framework-free; docs/reliability.md, "Pacing per number"): carriers block a
 * sending number that texts one phone too often, so every number a message goes to has its own limits on top of
 * the account's flow control, e.g. at most 1 per minute, 5 per 15 minutes and 12 per hour. A message that would
 * pass one of them is not dropped: it gets the earliest slot at which every limit of every one of its numbers has
 * room (after the messages already waiting for that number: in order), and waits for it, or is refused (PACED)
 * when the configuration says so. Critical messages (alarms) have a small allowance of their own beyond the limits.
 *
 * The book keeps, per number key (digits in international form, the one comparison of numbers), the times of the
 * messages sent and reserved to it within the longest window, and each reservation by its id (an outbox entry's
 * id: a later attempt of the entry finds its slot again, also after a restart). Limits are sliding windows: "5 per
 * 15 minutes" means no 15 minutes hold more than 5, whenever they start. The book is bounded: a number's times
 * older than the longest window go, numbers not used within it go first when there are too many (MAX_KEYS).
 */
import { GatewayError } from '../errors';

/** At most `count` messages per `ms`, per number. */
export interface PaceRule {
  readonly count: number;
  readonly ms: number;
}

export interface PaceSettings {
  /** Every message (a slot within all of them). */
  readonly rules: readonly PaceRule[];
  /** The allowance of critical messages beyond `rules` (empty: critical messages wait like the others). */
  readonly critical: readonly PaceRule[];
}

export interface PaceRequest {
  /** The reservation's id (an outbox entry's id, or a random one for a send that waits in memory). */
  id: string;
  /** The message's number keys (distinct). */
  keys: readonly string[];
  critical: boolean;
  now: number;
  /** Reserve only a slot that is now (else nothing is reserved): "refuse with PACED" of the configuration. */
  onlyNow?: boolean;
}

/** Where the slot came from: the limits, the critical allowance, an earlier reservation under the same id. */
export type PaceVia = 'normal' | 'critical' | 'pending';

export interface PaceAnswer {
  /** The slot (ms): now or later. With `onlyNow` and a later slot nothing was reserved (`reserved` false). */
  at: number;
  via: PaceVia;
  reserved: boolean;
}

/** The book's state lost (a damaged or missing file, Redis without its data): why, and since when. */
export interface PaceLost {
  why: string;
  since: number;
}

/**
 * A reservation whose slot passed this long ago without its send (the gateway was away meanwhile) is stale: its
 * time goes and the message gets a new slot, so the messages kept through an outage do not all go at once.
 */
export const STALE_MS = 60_000;
/** Most numbers kept; beyond it the least recently used go (first those past every window). */
export const MAX_KEYS = 100_000;
/** Longest window a rule may have (the time a number's times are kept). */
export const MAX_WINDOW_MS = 24 * 3_600_000;

/** The longest window of the settings (how long a number's times matter). */
export const longestWindow = (s: PaceSettings): number =>
  Math.max(1, ...s.rules.map((r) => r.ms), ...s.critical.map((r) => r.ms));

interface Reserved {
  at: number;
  keys: string[];
  via: 'normal' | 'critical';
}

/** Inserts `t` into ascending `list` (after equal times). */
function insertSorted(list: number[], t: number): void {
  let i = list.length;
  while (i > 0 && list[i - 1]! > t) i--;
  list.splice(i, 0, t);
}

/** Removes one occurrence of `t`. */
function removeOne(list: number[] | undefined, t: number): void {
  if (!list) return;
  const i = list.lastIndexOf(t);
  if (i >= 0) list.splice(i, 1);
}

const isTimes = (v: unknown): v is number[] =>
  Array.isArray(v) && v.length <= 10_000 && v.every((t) => typeof t === 'number' && Number.isFinite(t));

/** The book as stored (a state file, one line per number). */
export interface PaceData {
  version: 1;
  normal: Record<string, number[]>;
  critical: Record<string, number[]>;
  pending: Record<string, Reserved>;
  lost?: PaceLost;
}

export class PaceBook {
  /** Times per number key, ascending; the Map's order is the order of last use (the oldest first). */
  private readonly normal = new Map<string, number[]>();
  private readonly critical = new Map<string, number[]>();
  private readonly pending = new Map<string, Reserved>();
  lost: PaceLost | undefined;
  /** Numbers dropped while their times still mattered (more than MAX_KEYS at once): told by the owner. */
  evictedActive = 0;
  private reservations = 0;

  constructor(
    readonly settings: PaceSettings,
    private readonly maxKeys = MAX_KEYS,
  ) {}

  get size(): number {
    return this.normal.size;
  }

  /** The times kept for a number (a copy), for tests and the editor. */
  times(key: string): number[] {
    return [...(this.normal.get(key) ?? [])];
  }

  /** The slot reserved under `id`, if any. */
  reservation(id: string): number | undefined {
    return this.pending.get(id)?.at;
  }

  /**
   * The slot of a message: an earlier reservation under its id (unless stale), else the earliest time at which
   * every rule of every key has room after the times already there (and after the last of them: in order), or
   * now within the critical allowance. Reserved unless `onlyNow` finds no room now.
   */
  reserve(req: PaceRequest): PaceAnswer {
    const { id, keys, now } = req;
    const held = this.pending.get(id);
    if (held) {
      if (now <= held.at + STALE_MS) return { at: held.at, via: 'pending', reserved: true };
      this.release(id);
    }
    const span = longestWindow(this.settings);
    if (++this.reservations % 256 === 0) this.prunePending(now, span);
    let at = now;
    for (const key of keys) {
      const log = this.prune(this.normal, key, now, span);
      if (log.length > 0) at = Math.max(at, log[log.length - 1]!);
      for (const r of this.settings.rules)
        if (log.length >= r.count) at = Math.max(at, log[log.length - r.count]! + r.ms);
      // The book was lost: a number it does not know may have had its whole allowance just before.
      if (this.lost && !this.normal.has(key) && now < this.lost.since + span)
        for (const r of this.settings.rules) at = Math.max(at, this.lost.since + r.ms);
    }
    let via: 'normal' | 'critical' = 'normal';
    if (at > now && req.critical && this.settings.critical.length > 0 && this.criticalRoom(keys, now, span)) {
      at = now;
      via = 'critical';
    }
    if (req.onlyNow && at > now) return { at, via, reserved: false };
    for (const key of keys) {
      const log = this.normal.get(key) ?? [];
      this.normal.delete(key);
      insertSorted(log, at);
      this.normal.set(key, log);
      if (via === 'critical') {
        const c = this.critical.get(key) ?? [];
        this.critical.delete(key);
        c.push(now);
        this.critical.set(key, c);
      }
    }
    this.pending.set(id, { at, keys: [...keys], via });
    this.evict(now, span);
    return { at, via, reserved: true };
  }

  /** The message went (or was refused for good): its reservation is done, its time stays counted. */
  settle(id: string): boolean {
    return this.pending.delete(id);
  }

  /** The message will not go (removed, cancelled, surely not sent before its slot): its time goes too. */
  release(id: string): boolean {
    const r = this.pending.get(id);
    if (!r) return false;
    this.pending.delete(id);
    for (const key of r.keys) {
      removeOne(this.normal.get(key), r.at);
      if (r.via === 'critical') removeOne(this.critical.get(key), r.at);
    }
    return true;
  }

  toJSON(): PaceData {
    const times = (m: Map<string, number[]>): Record<string, number[]> => {
      const out: Record<string, number[]> = {};
      for (const [k, v] of m) if (v.length > 0) out[k] = v;
      return out;
    };
    return {
      version: 1,
      normal: times(this.normal),
      critical: times(this.critical),
      pending: Object.fromEntries(this.pending),
      ...(this.lost ? { lost: this.lost } : {}),
    };
  }

  /** A book read back (what a damaged file still held); anything unreadable in it is left out. */
  static from(raw: unknown, settings: PaceSettings, maxKeys = MAX_KEYS): PaceBook {
    const book = new PaceBook(settings, maxKeys);
    if (typeof raw !== 'object' || raw === null) return book;
    const data = raw as Partial<Record<keyof PaceData, unknown>>;
    const maps: Array<[unknown, Map<string, number[]>]> = [
      [data.normal, book.normal],
      [data.critical, book.critical],
    ];
    for (const [value, into] of maps) {
      if (typeof value !== 'object' || value === null) continue;
      for (const [k, v] of Object.entries(value))
        if (isTimes(v))
          into.set(
            k,
            [...v].sort((a, b) => a - b),
          );
    }
    if (typeof data.pending === 'object' && data.pending !== null) {
      for (const [id, v] of Object.entries(data.pending)) {
        const r = v as Partial<Reserved> | null;
        if (
          r &&
          typeof r.at === 'number' &&
          Array.isArray(r.keys) &&
          r.keys.every((k) => typeof k === 'string') &&
          (r.via === 'normal' || r.via === 'critical')
        )
          book.pending.set(id, { at: r.at, keys: r.keys, via: r.via });
      }
    }
    const lost = data.lost as Partial<PaceLost> | undefined;
    if (lost && typeof lost.why === 'string' && typeof lost.since === 'number')
      book.lost = { why: lost.why, since: lost.since };
    return book;
  }

  /** Whether the critical allowance of every key has room now. */
  private criticalRoom(keys: readonly string[], now: number, span: number): boolean {
    return keys.every((key) => {
      const log = this.prune(this.critical, key, now, span);
      // Room under a rule: fewer than `count` of its times within the rule's window ending now.
      return this.settings.critical.every(
        (r) => log.length < r.count || log[log.length - r.count]! <= now - r.ms,
      );
    });
  }

  /** A key's times without those older than the longest window (the list itself; empty when none). */
  private prune(map: Map<string, number[]>, key: string, now: number, span: number): number[] {
    const log = map.get(key);
    if (!log) return [];
    let drop = 0;
    while (drop < log.length && log[drop]! <= now - span) drop++;
    if (drop > 0) log.splice(0, drop);
    return log;
  }

  /** Reservations whose slot is long past (a send whose process died before it settled): forgotten. */
  private prunePending(now: number, span: number): void {
    for (const [id, r] of this.pending) if (r.at < now - span - STALE_MS) this.pending.delete(id);
  }

  /** Keeps at most maxKeys numbers: the least recently used first, those still within a window last. */
  private evict(now: number, span: number): void {
    if (this.normal.size <= this.maxKeys) return;
    for (const [key, log] of this.normal) {
      if (this.normal.size <= this.maxKeys) break;
      if (log.length === 0 || log[log.length - 1]! <= now - span) {
        this.normal.delete(key);
        this.critical.delete(key);
      }
    }
    for (const key of this.normal.keys()) {
      if (this.normal.size <= this.maxKeys) break;
      this.normal.delete(key);
      this.critical.delete(key);
      this.evictedActive++;
    }
  }
}

/** Where a pacer keeps its book: memory, a state file, Redis. */
export interface Pacer {
  readonly settings: PaceSettings;
  /** Reserves a message's slot (its own clock's now); rejects when the book cannot be kept (nothing reserved). */
  reserve(req: Omit<PaceRequest, 'now'>): Promise<PaceAnswer>;
  /** The message went or was refused for good (its time stays counted). */
  settle(id: string): void;
  /** The message will not go: its slot is given back. */
  release(id: string): void;
  /** The book was lost and its loss still matters (within the longest window since), else undefined. */
  readonly lost: PaceLost | undefined;
  close(): Promise<void>;
}

/** Why a message cannot go now: held until its slot (`held`), or refused (the configuration's "refuse"). */
export class PacedError extends GatewayError {
  constructor(
    message: string,
    readonly held: boolean,
    details: { retryAt: number; operation?: string | undefined },
  ) {
    super('PACED', message, {
      ambiguous: false,
      retryAt: details.retryAt,
      operation: details.operation,
    });
  }
}

/** A message the pacing keeps in the outbox until its slot (not a failure). */
export const isPacedHold = (err: unknown): boolean => err instanceof PacedError && err.held;

/** "2 min 5 s" for a wait. */
export function waitText(ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 === 0 ? `${m} min` : `${m} min ${s % 60} s`;
  const h = Math.floor(m / 60);
  return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`;
}
