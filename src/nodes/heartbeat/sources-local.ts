/**
 * The sources of one heartbeat node on one instance: in memory, kept in a state file through the store
 * (`<userDir>/smsgw-state/smsgw-heartbeat.<node id>.json`, kind `heartbeat`). An alarm or a "back" is noted in
 * the file BEFORE it is emitted (durable: a file that cannot be written is tried again until it can, and the
 * output waits meanwhile; the node shows why): a kill -9 right after an output never brings it back after the
 * restart, and a change not yet on disk never had an output. Plain msgs (a source seen again) are written at most
 * every SAVE_EVERY_MS: a crash loses at most that much of "last seen", which only makes a source look a little
 * older after the restart, where the rule of the extra period (sources.ts) covers it.
 */
import type { ValueStore } from '../../store';
import {
  dueOf,
  entryOf,
  gatewayAlarmOf,
  GATEWAY_KINDS,
  lateOf,
  periodOf,
  realClock,
  TIMER_MAX_MS,
  type Clock,
  type GatewayAlarm,
  type GatewayKind,
  type HeartbeatEvent,
  type SeenOutcome,
  type SourceCounts,
  type SourceEntry,
  type Sources,
  type SourcesDeps,
} from './sources';

/** A source seen again is written within this time (or with the next alarm, whichever comes first). */
export const SAVE_EVERY_MS = 5000;
/** Checks run at least this far apart (10,000 sources due one after the other are taken in batches). */
export const CHECK_GAP_MS = 1000;

export interface HeartbeatFile {
  sources?: Record<string, unknown>;
  gateway?: Record<string, unknown>;
}

export class LocalSources implements Sources {
  readonly where: string;
  private readonly entries = new Map<string, SourceEntry>();
  private readonly gateway = new Map<GatewayKind, GatewayAlarm>();
  private readonly clock: Clock;
  private readonly periodMs: number;
  /** Outputs in the order their changes were made: each waits for its write and for the ones before it. */
  private tail: Promise<void> = Promise.resolve();
  private timer: unknown;
  private timerAt = Infinity;
  private saveTimer: unknown;
  private lastCheck = -Infinity;
  /** When this run began watching: a source due before it fell due while nobody watched. */
  private startedAt = 0;
  private overdue = 0;
  private closed = false;

  constructor(
    private readonly file: ValueStore<HeartbeatFile>,
    private readonly deps: SourcesDeps,
  ) {
    this.where = file.where;
    this.clock = deps.clock ?? realClock;
    this.periodMs = periodOf(deps.plan);
  }

  async start(): Promise<void> {
    const kept = await this.file.open();
    if (this.closed) return;
    let dropped = 0;
    const sources = kept?.sources;
    if (sources && typeof sources === 'object')
      for (const [source, raw] of Object.entries(sources)) {
        const e = entryOf(raw);
        if (e) this.entries.set(source, e);
        else dropped++;
      }
    const gateway = kept?.gateway;
    if (gateway && typeof gateway === 'object')
      for (const kind of GATEWAY_KINDS) {
        const a = gatewayAlarmOf((gateway as Record<string, unknown>)[kind]);
        if (a) this.gateway.set(kind, a);
      }
    if (dropped > 0) this.deps.dropped(dropped);
    const now = this.clock.now();
    this.startedAt = now;
    let changed = dropped > 0;
    const { listed, max } = this.deps.plan;
    if (listed) {
      for (const source of [...this.entries.keys()])
        if (!listed.has(source)) {
          this.entries.delete(source);
          changed = true;
        }
      for (const source of listed)
        if (!this.entries.has(source) && this.entries.size < max) {
          this.entries.set(source, { since: now });
          changed = true;
        }
    }
    this.countOverdue();
    if (changed) this.saveNow();
    this.deps.changed();
    this.check();
  }

  seen(source: string): Promise<SeenOutcome> {
    const now = this.clock.now();
    const e = this.entries.get(source);
    if (!e) {
      const { listed, max } = this.deps.plan;
      if (listed && !listed.has(source)) return Promise.resolve('unlisted');
      if (this.entries.size >= max) return Promise.resolve('full');
      this.entries.set(source, { since: now, seen: now });
      this.schedule(now + this.periodMs);
      this.saveSoon();
      this.deps.changed();
      return Promise.resolve('added');
    }
    const over = e.over;
    e.seen = now;
    delete e.ext;
    if (over === undefined) {
      this.saveSoon();
      return Promise.resolve('watched');
    }
    delete e.over;
    this.overdue--;
    this.schedule(now + this.periodMs);
    this.deps.changed();
    return this.emitNoted([{ type: 'back', source, lastSeen: now, overdueSince: over }]).then(
      () => 'back' as const,
    );
  }

  forget(source: string): Promise<boolean> {
    const e = this.entries.get(source);
    if (!e) return Promise.resolve(false);
    this.entries.delete(source);
    if (e.over !== undefined) this.overdue--;
    this.saveNow();
    this.deps.changed();
    return Promise.resolve(true);
  }

  raise(kind: GatewayKind, alarm: GatewayAlarm): Promise<boolean> {
    if (this.gateway.has(kind)) return Promise.resolve(false);
    this.gateway.set(kind, alarm);
    this.deps.changed();
    return this.emitNoted([{ type: 'gatewayDown', kind, alarm }]).then(() => true);
  }

  clear(kind: GatewayKind): Promise<boolean> {
    const alarm = this.gateway.get(kind);
    if (!alarm) return Promise.resolve(false);
    this.gateway.delete(kind);
    this.deps.changed();
    return this.emitNoted([{ type: 'gatewayBack', kind, alarm, at: this.clock.now() }]).then(() => true);
  }

  raised(kind: GatewayKind): boolean {
    return this.gateway.has(kind);
  }

  counts(): SourceCounts {
    return { watched: this.entries.size, overdue: this.overdue, gateway: [...this.gateway.keys()] };
  }

  async close(removed: boolean): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    if (this.saveTimer !== undefined) this.clock.clearTimeout(this.saveTimer);
    this.timer = this.saveTimer = undefined;
    if (removed) {
      await this.file.remove().catch(() => undefined);
      return;
    }
    // What a msg changed since the last write (a source seen again) is written once more.
    await this.file.save(this.shape()).catch(() => undefined);
    await this.file.close();
  }

  /** Looks at every source: the due ones get their alarm (or, once, their extra period). */
  private check(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    if (this.closed) return;
    const now = this.clock.now();
    this.lastCheck = now;
    const period = this.periodMs;
    let next = Infinity;
    let extended = false;
    const events: HeartbeatEvent[] = [];
    for (const [source, e] of this.entries) {
      if (e.over !== undefined) continue;
      const due = dueOf(e, period);
      if (due > now) {
        if (due < next) next = due;
        continue;
      }
      if (e.ext === undefined && due < this.startedAt) {
        // Fell due while this node was not running: one more period from now (sources.ts).
        e.ext = now + period;
        extended = true;
        if (e.ext < next) next = e.ext;
        continue;
      }
      const late = lateOf(e, period);
      e.over = late;
      delete e.ext;
      this.overdue++;
      events.push({ type: 'overdue', source, lastSeen: e.seen, overdueSince: late });
    }
    if (events.length > 0) {
      this.deps.changed();
      void this.emitNoted(events);
    } else if (extended) this.saveNow();
    this.schedule(next);
  }

  /** A check at `at` (not sooner than CHECK_GAP_MS after the last; a far one in steps a timer can hold). */
  private schedule(at: number): void {
    if (this.closed || !Number.isFinite(at)) return;
    const when = Math.max(at, this.lastCheck + CHECK_GAP_MS);
    if (this.timer !== undefined && this.timerAt <= when) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timerAt = when;
    const ms = Math.min(TIMER_MAX_MS, Math.max(0, when - this.clock.now()));
    this.timer = this.clock.setTimeout(() => this.check(), ms);
  }

  /**
   * Notes the changes made for `events` durably, then emits them, in the order the changes were made. A store that
   * closes first emits nothing: the file does not have the note, so the next start decides again.
   */
  private emitNoted(events: HeartbeatEvent[]): Promise<void> {
    if (this.saveTimer !== undefined) {
      this.clock.clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
    }
    const noted = this.file.durable(this.shape()).then(
      () => true,
      () => false,
    );
    const emitted = this.tail.then(async () => {
      if (!(await noted) || this.closed) return;
      for (const e of events) this.deps.emit(e);
    });
    this.tail = emitted;
    return emitted;
  }

  /** Written within SAVE_EVERY_MS. */
  private saveSoon(): void {
    if (this.saveTimer !== undefined || this.closed) return;
    this.saveTimer = this.clock.setTimeout(() => {
      this.saveTimer = undefined;
      this.saveNow();
    }, SAVE_EVERY_MS);
  }

  /** Written now (a failing write is told by the store and tried again on its own). */
  private saveNow(): void {
    if (this.closed) return;
    if (this.saveTimer !== undefined) {
      this.clock.clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
    }
    void this.file.save(this.shape()).catch(() => undefined);
  }

  private countOverdue(): void {
    let n = 0;
    for (const e of this.entries.values()) if (e.over !== undefined) n++;
    this.overdue = n;
  }

  /** The file's content now (the entries themselves: a write takes them as they are when it runs). */
  private shape(): HeartbeatFile {
    return {
      sources: Object.fromEntries(this.entries) as Record<string, unknown>,
      gateway: Object.fromEntries(this.gateway) as Record<string, unknown>,
    };
  }
}
