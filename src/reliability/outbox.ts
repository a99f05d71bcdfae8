/**
 * A write-ahead outbox for sends (framework-free). A message is accepted only once its entry is durable in the
 * store (the file journal by default: fsync'd, group commit); only then is it attempted, and it is removed
 * only when the gateway's answer, or a lookup of its reference, settles it. A gateway that cannot be reached
 * (refused, DNS) keeps the message at once; later attempts look the reference up first whenever an earlier one
 * may have arrived, so a crash anywhere never sends a message twice (docs/reliability.md, "Crash windows").
 * Credentials are never stored.
 */
import { EventEmitter, setMaxListeners } from 'node:events';
import { randomUUID } from 'node:crypto';
import { findOperation } from '../catalogue';
import type { ServiceName } from '../catalogue/types';
import { GatewayError } from '../errors';
import { contentCapProblem } from '../text';
import { systemClock, type Clock } from './clock';
import { captionParamOf } from './job-lookup';
import { JournalStore } from './outbox-journal';
import { DueHeap, SeqQueue } from './outbox-queues';
import {
  EntryTakenOver,
  storedParams,
  type OutboxEntry,
  type OutboxStore,
  type OutboxStoreStats,
  TOPIC_MAX,
} from './outbox-store';
import { createReference, isReference } from './reference';
import { classifyFailure } from './safe-send';

export type { OutboxEntry, OutboxStore, OutboxStoreStats } from './outbox-store';
export { EntryTakenOver } from './outbox-store';

/** What a sender gets besides the entry. */
export interface OutboxSendOptions {
  reference: string;
  /** An earlier attempt may have been delivered: look the reference up before sending. */
  lookupFirst: boolean;
  /** Date.now() of the submit: the lookup searches from a day before it. */
  since: number;
  /** Aborted when the outbox closes. */
  signal: AbortSignal;
}

/** Makes one attempt of an entry with its reference; rejects with the failure (a GatewayError). */
export type OutboxSender = (entry: Readonly<OutboxEntry>, options: OutboxSendOptions) => Promise<unknown>;

export interface OutboxOptions {
  /** Where entries are kept: a store, or a journal file (its directory must exist). One of the two. */
  store?: OutboxStore;
  file?: string;
  send: OutboxSender;
  /**
   * First wait before a kept message is tried again (default 5000 ms), doubled for each failed try of it up to
   * `maxRetryIntervalMs`. A gateway that cannot be reached pauses every attempt for as long (doubling too);
   * the first success ends the waits of the messages kept for that reason.
   */
  retryIntervalMs?: number;
  /** Longest wait between tries (default 60000 ms). */
  maxRetryIntervalMs?: number;
  /** Most entries held; one more is refused with QUEUE_FULL before it is accepted (default 10000). */
  maxEntries?: number;
  /** Attempts under way at once (default 8); the other entries wait in the outbox, in order. */
  maxActive?: number;
  /** Which failures keep a message (default: the gateway could not be reached, or the answer was lost). */
  keep?: (err: unknown) => boolean;
  /**
   * The refusal of a message the store could not take, given why (default: CONFIG "outbox unavailable: <why>
   * (<location>)"). The next submit tries the store again: it is refused only while the store still fails.
   */
  unavailable?: (why: string, cause: unknown) => GatewayError;
  /**
   * Failures that hold the entry until their `retryAt` (a number's pacing slot): it is held, not kept (it waits
   * for its time, not for the gateway), and its time is stored with it. Default: none.
   */
  hold?: (err: unknown) => boolean;
  /** Time and timers of the waits (default: the real clock). */
  clock?: Clock;
}

export interface SubmitOptions {
  /** Who submits (a node id): an outcome nobody waits for any more comes back with it ('sent', 'failed'). */
  origin?: string | undefined;
  /** Called once the entry is durable, before its first attempt: the message is accepted from then on. */
  onAccepted?: ((accepted: { id: string; reference: string }) => void) | undefined;
  /** Called when the message has to wait for the gateway (kept), with the reason. */
  onKept?: ((why: string) => void) | undefined;
  /** Stops waiting for the outcome once accepted (the entry stays and is sent; its outcome becomes an event). */
  signal?: AbortSignal | undefined;
  /** The entry's id (default: a new UUID): a caller that counted the message under it (the spending guard). */
  id?: string | undefined;
  /** Stored with the entry: a critical message may use the spending guard's reserve, also after a restart. */
  priority?: 'critical' | undefined;
  /**
   * The reference to carry (default: a new one). A caller that wrote it down before submitting (an ask node's
   * step) finds the message again by it after a crash, here (list()) or at the gateway.
   */
  reference?: string | undefined;
  /** An earlier submit of the same message (same reference) may have reached the gateway: look it up first. */
  maybeSent?: boolean | undefined;
  /** Not attempted before this time (ms): held until then (quiet hours), durably, also across a restart. */
  notBefore?: number | undefined;
  /** Called when the message is held until a time (its recipients' quiet hours, a number's pacing slot). */
  onHeld?: ((until: number) => void) | undefined;
  /** Stored with the entry (msg.topic): held messages can be removed by it (removeWhere). */
  topic?: string | undefined;
}

/** A message settled by the gateway's answer or a lookup of its reference. */
export interface Delivered {
  id: string;
  reference: string;
  /** As the sender resolved (the typed method's value; `recovered: true` when found by the reference). */
  result: unknown;
  /** It had to wait for the gateway before it went out. */
  kept: boolean;
}

export interface OutboxEvents {
  /** An entry nobody waits for (loaded after a restart, adopted, or its caller stopped waiting) was sent. */
  sent: [entry: OutboxEntry, result: unknown];
  /** Such an entry was refused for good (it is not kept any longer). */
  failed: [entry: OutboxEntry, error: unknown];
  /** The number of kept entries (waiting for the gateway) changed. */
  change: [kept: number];
  /** The number of held entries (waiting for their time: quiet hours, a pacing slot) changed. */
  held: [held: number];
  /** The store failed a write (why), or wrote again after such a failure (undefined). */
  store: [problem: string | undefined];
}

export interface OutboxStats {
  accepted: number;
  /** Settled by the gateway's answer or a lookup. */
  sent: number;
  /** Refused for good after they were accepted. */
  refused: number;
  /** Times a message had to wait for the gateway. */
  kept: number;
  store: OutboxStoreStats;
}

/** The gateway could not be reached, or may have got the message, or our own queue was full: keep it. */
export const keepByDefault = (err: unknown): boolean =>
  classifyFailure(err) !== 'final' || (err instanceof GatewayError && err.code === 'QUEUE_FULL');

interface Waiter {
  resolve(d: Delivered): void;
  reject(e: unknown): void;
  onKept: ((why: string) => void) | undefined;
  onHeld: ((until: number) => void) | undefined;
}

interface Live {
  entry: OutboxEntry;
  /** Order of acceptance: entries are attempted oldest first. */
  readonly seq: number;
  active: boolean;
  /** Had to wait for the gateway (shown as kept until settled). */
  kept: boolean;
  /** Waits in the heap for its time (`retryAt`): quiet hours or a pacing slot (shown as held until it starts). */
  held: boolean;
  waiter: Waiter | undefined;
  /** Failed tries in a row (this process): its own backoff. */
  fails: number;
  /** When its next try may start. */
  retryAt: number;
  /** Its last try found the gateway unreachable: due again at the first success. */
  unreachable: boolean;
}

/** Surely not sent because the gateway (or our own queue) could not take it: everything else waits too. */
const unreachable = (err: unknown): boolean =>
  err instanceof GatewayError &&
  !err.ambiguous &&
  (err.code === 'QUEUE_FULL' || classifyFailure(err) === 'retry');

/** A settled message's removal from the store, waiting for its msg to reach the next node. */
interface Removal {
  id: string;
  /** Its job is at the gateway (the store may flush the record with a later one). */
  sent: boolean;
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Why a store write failed: the cause a store's own error wraps (the file system's), else its message. */
const storeWhy = (e: unknown): string =>
  e instanceof GatewayError && e.cause instanceof Error ? e.cause.message : messageOf(e);

const stillKept = (why: string): GatewayError =>
  new GatewayError(
    'TIMEOUT',
    `${why}; the message stays in the outbox and is sent when the gateway is back`,
    {
      ambiguous: false,
    },
  );

export class Outbox extends EventEmitter<OutboxEvents> {
  readonly store: OutboxStore;
  /** Problems met (a damaged record, a failed write): the store's and the outbox's own. */
  readonly warnings: string[];
  private readonly sendFn: OutboxSender;
  private readonly retryMs: number;
  private readonly maxRetryMs: number;
  private readonly maxEntries: number;
  private readonly maxActive: number;
  private readonly keep: (err: unknown) => boolean;
  private readonly holds: (err: unknown) => boolean;
  private readonly clock: Clock;
  private readonly unavailable: (why: string, cause: unknown) => GatewayError;
  /** The last store write failed, why (until one succeeds). */
  private storeProblem: string | undefined;
  private readonly entries = new Map<string, Live>();
  /** Entries not tried yet (or taken over), oldest first. */
  private readonly fresh = new SeqQueue<Live>();
  /** Kept entries, by the time of their next try. */
  private readonly waiting = new DueHeap<Live>();
  private readonly lifetime = new AbortController();
  private readonly running = new Set<Promise<void>>();
  private readonly idleWaiters: Array<() => void> = [];
  private readonly counts = { accepted: 0, sent: 0, refused: 0, kept: 0 };
  private seq = 0;
  private active = 0;
  private keptNow = 0;
  private heldNow = 0;
  /** Held entries per origin (a node's status counts its own). */
  private readonly heldByOrigin = new Map<string, number>();
  /** The gateway is away: nothing new is attempted until the timer ends the pause. */
  private paused = false;
  private pauseTimer: unknown;
  /** Length of the next pause (doubles while the gateway stays away). */
  private wait: number;
  private dueTimer: unknown;
  private dueAt = Infinity;
  /** Some kept entry waits only for the gateway to be reachable again. */
  private waitingForGateway = false;
  /** Why the gateway was last found away (told to messages kept during the pause). */
  private lastWhy: string | undefined;
  private closed = false;

  private constructor(options: OutboxOptions) {
    super();
    if (!options || typeof options.send !== 'function')
      throw new GatewayError('CONFIG', 'the outbox needs a send function');
    if (options.store) this.store = options.store;
    else if (typeof options.file === 'string' && options.file !== '')
      this.store = new JournalStore({ file: options.file });
    else throw new GatewayError('CONFIG', 'the outbox needs a file or a store');
    this.warnings = this.store.warnings;
    this.sendFn = options.send;
    this.retryMs = Math.max(1, options.retryIntervalMs ?? 5000);
    this.maxRetryMs = Math.max(this.retryMs, options.maxRetryIntervalMs ?? 60_000);
    this.maxEntries = Math.max(1, options.maxEntries ?? 10_000);
    this.maxActive = Math.max(1, Math.floor(options.maxActive ?? 8));
    this.keep = options.keep ?? keepByDefault;
    this.holds = options.hold ?? (() => false);
    this.clock = options.clock ?? systemClock;
    this.unavailable =
      options.unavailable ??
      ((why, cause) =>
        new GatewayError(
          'CONFIG',
          `outbox unavailable: ${why} (${this.store.location}); the message was not accepted and nothing was sent`,
          { ambiguous: cause instanceof GatewayError ? cause.ambiguous : true, cause },
        ));
    this.wait = this.retryMs;
    // Every attempt under way listens to it (up to maxActive, more with the client's own lookups).
    setMaxListeners(0, this.lifetime.signal);
  }

  /** Opens the outbox: loads what the store holds and starts sending it (looked up first where needed). */
  static async open(options: OutboxOptions): Promise<Outbox> {
    const box = new Outbox(options);
    box.adopt(await box.store.load());
    return box;
  }

  /** Where the entries are kept (the journal file). */
  get location(): string {
    return this.store.location;
  }

  /** Entries held: accepted and not settled (under way or waiting). */
  get size(): number {
    return this.entries.size;
  }

  /** Entries that had to wait for the gateway and are not settled yet. */
  get kept(): number {
    return this.keptNow;
  }

  /** Entries held until their time (quiet hours, a pacing slot). */
  get held(): number {
    return this.heldNow;
  }

  /** Held entries submitted by `origin` (a node id). */
  heldFor(origin: string): number {
    return this.heldByOrigin.get(origin) ?? 0;
  }

  /** Why the store cannot write now (its last write failed), or undefined. */
  get problem(): string | undefined {
    return this.storeProblem;
  }

  get stats(): OutboxStats {
    return { ...this.counts, store: { ...this.store.stats } };
  }

  /** The entries held, oldest first (copies; params never hold credentials). */
  list(): OutboxEntry[] {
    return [...this.entries.values()]
      .sort((a, b) => a.seq - b.seq)
      .map((l) => ({ ...l.entry, params: { ...l.entry.params } }));
  }

  /**
   * Takes over entries that are already durable in the store (loaded at open; or, for a shared store, claimed
   * from an instance that went away). Each one may have been sent: an entry marked in flight is looked up by
   * its reference before it is sent. Their outcomes come as 'sent' / 'failed' events.
   */
  adopt(entries: readonly OutboxEntry[]): void {
    const now = this.clock.now();
    let held = 0;
    for (const e of entries) {
      if (this.entries.has(e.id)) continue;
      const entry: OutboxEntry = { ...e, maybeSent: e.maybeSent || e.inFlight };
      const live = this.live(entry);
      this.entries.set(entry.id, live);
      // Held until its time (quiet hours, a pacing slot): it waits for it, also after a restart.
      if (entry.notBefore !== undefined && entry.notBefore > now && !entry.inFlight) {
        live.retryAt = entry.notBefore;
        this.waiting.push(live);
        this.markHeld(live, entry.notBefore, false);
        held++;
        continue;
      }
      live.kept = true;
      this.keptNow++;
      this.fresh.insert(live);
    }
    if (entries.length > held) this.emit('change', this.keptNow);
    if (held > 0) this.emit('held', this.heldNow);
    this.pump();
  }

  /**
   * Accepts a message: gives it its reference, makes it durable (onAccepted), then sends it, or keeps it while
   * the gateway cannot be reached. Resolves when the gateway's answer (or a lookup) settles it. Rejects before
   * acceptance for a message that is not a send with a caption, QUEUE_FULL, or a store that cannot write it;
   * after acceptance for a refusal (it would fail again), a removal, or `signal` (the entry stays).
   */
  async submit(
    service: ServiceName,
    operation: string,
    params: Record<string, unknown>,
    options: SubmitOptions = {},
  ): Promise<Delivered> {
    if (this.closed) throw new GatewayError('CONFIG', 'the outbox is closed', { ambiguous: false });
    const op = findOperation(service, operation);
    if (!op || op.sends !== true)
      throw new GatewayError('VALIDATION', `${service}/${operation} is not a send operation`, {
        ambiguous: false,
      });
    if (!captionParamOf(op)) {
      throw new GatewayError(
        'VALIDATION',
        `${op.name} has no Caption to carry a reference: the outbox cannot send it at most once`,
        { service: op.service, operation: op.name, ambiguous: false },
      );
    }
    // Nothing is stored that could never be sent: a text or data over the hard cap, in O(1).
    const tooLarge = contentCapProblem(params);
    if (tooLarge !== undefined) {
      throw new GatewayError('VALIDATION', tooLarge, {
        service: op.service,
        operation: op.name,
        ambiguous: false,
      });
    }
    if (options.reference !== undefined && !isReference(options.reference))
      throw new GatewayError('VALIDATION', 'reference must be 4 to 64 letters or digits', {
        service: op.service,
        operation: op.name,
        ambiguous: false,
      });
    if (this.entries.size >= this.maxEntries) {
      throw new GatewayError('QUEUE_FULL', `outbox is full (${this.maxEntries} messages)`, {
        service: op.service,
        operation: op.name,
        ambiguous: false,
      });
    }
    const now = this.clock.now();
    const holdUntil =
      options.notBefore !== undefined && Number.isFinite(options.notBefore) && options.notBefore > now
        ? options.notBefore
        : undefined;
    const entry: OutboxEntry = {
      id: options.id ?? randomUUID(),
      reference: options.reference ?? createReference(),
      service: op.service,
      operation: op.name,
      params: storedParams(op, params),
      createdAt: new Date(now).toISOString(),
      attempts: 0,
      maybeSent: options.maybeSent === true,
      // Not paused nor held: it may be attempted without another record, so a crash from here on means "look it
      // up". A held one is written as not in flight: its attempt writes the record that says it is.
      inFlight: !this.paused && holdUntil === undefined,
      origin: options.origin,
    };
    // Set only when given, in this order (the journal's record holds them as they are here).
    if (options.priority === 'critical') entry.priority = 'critical';
    if (holdUntil !== undefined) entry.notBefore = holdUntil;
    if (typeof options.topic === 'string') entry.topic = options.topic.slice(0, TOPIC_MAX);
    const live = this.live(entry);
    this.entries.set(entry.id, live);
    try {
      await this.stored(this.store.add(entry));
    } catch (e) {
      this.entries.delete(entry.id);
      throw this.unavailable(storeWhy(e), e);
    }
    // Removed while its record was written (a cancel, a clear): not sent, and its caller hears it.
    if (this.entries.get(entry.id) !== live)
      throw new GatewayError('REJECTED', 'removed from the outbox before it was sent', { ambiguous: false });
    this.counts.accepted++;
    options.onAccepted?.({ id: entry.id, reference: entry.reference });
    return new Promise<Delivered>((resolve, reject) => {
      const signal = options.signal;
      const onAbort = (): void => {
        if (live.waiter !== waiter) return;
        live.waiter = undefined;
        reject(stillKept('the caller stopped waiting'));
      };
      const waiter: Waiter = {
        resolve: (d) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(d);
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
        onKept: options.onKept,
        onHeld: options.onHeld,
      };
      live.waiter = waiter;
      if (holdUntil !== undefined) {
        live.retryAt = holdUntil;
        this.waiting.push(live);
        this.markHeld(live, holdUntil, true);
      } else {
        this.fresh.insert(live);
        if (this.paused) this.markKept(live, this.lastWhy ?? 'the gateway cannot be reached');
      }
      if (this.closed) this.finishWaiter(live, stillKept('the outbox closed'));
      else if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
      this.pump();
    });
  }

  /**
   * Tries what is kept now, without waiting for the retry timers; resolves when the outbox is idle again. What is
   * held until its time (quiet hours, a pacing slot) stays held.
   */
  flush(): Promise<void> {
    this.endPause();
    this.waiting.reschedule((l) => (l.held ? undefined : 0));
    this.pump();
    return this.idle();
  }

  /** Resolves once nothing is under way and nothing can start (empty, or paused for the gateway). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Removes the entries `match` picks that are not under way (they will not be sent; a waiting caller gets
   * REJECTED). Resolves with their ids.
   */
  async removeWhere(match: (entry: Readonly<OutboxEntry>) => boolean): Promise<string[]> {
    const ids = [...this.entries.values()].filter((l) => !l.active && match(l.entry)).map((l) => l.entry.id);
    const removed: string[] = [];
    for (const id of ids) if (await this.remove(id)) removed.push(id);
    return removed;
  }

  /** Removes every entry that is not under way (they will not be sent). Resolves with how many there were. */
  async clear(): Promise<number> {
    const ids = [...this.entries.values()].filter((l) => !l.active).map((l) => l.entry.id);
    for (const id of ids) await this.remove(id);
    return ids.length;
  }

  /** Removes one entry that is not under way; true when it was there (its waiting caller gets REJECTED). */
  async remove(id: string): Promise<boolean> {
    const live = this.entries.get(id);
    if (!live || live.active) return false;
    this.entries.delete(id);
    if (live.kept) this.unkeep();
    this.unhold(live);
    this.finishWaiter(
      live,
      new GatewayError('REJECTED', 'removed from the outbox before it was sent', { ambiguous: false }),
    );
    await this.stored(this.store.remove(id));
    // Its place in a queue is skipped when reached; pump so that idle() sees it gone.
    this.pump();
    return true;
  }

  /**
   * Stops: no new attempt starts, attempts under way are aborted (they stay kept, marked as maybe sent),
   * waiting callers are told the message stays, and the store is flushed and closed.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.endPause();
    this.clearDueTimer();
    this.heldByOrigin.clear();
    this.lifetime.abort(new GatewayError('CONFIG', 'the outbox is closing', { ambiguous: false }));
    while (this.running.size > 0) await Promise.all([...this.running]);
    for (const live of this.entries.values()) this.finishWaiter(live, stillKept('the outbox closed'));
    for (const batch of [...this.removals]) this.runRemovals(batch);
    await this.store.close();
    this.checkIdle();
  }

  /** A store write: its failure (or the first success after one) is told as a 'store' event. */
  private stored(write: Promise<void>): Promise<void> {
    return write.then(
      () => {
        if (this.storeProblem === undefined) return;
        this.storeProblem = undefined;
        this.emit('store', undefined);
      },
      (e: unknown) => {
        const why = storeWhy(e);
        // Entries taken over by another instance (a shared store) are not a failure of the store. Told once when
        // it starts failing (the reason it gives may change while it fails: the latest is kept for the status).
        if (!(e instanceof EntryTakenOver)) {
          const first = this.storeProblem === undefined;
          this.storeProblem = why;
          if (first) this.emit('store', why);
        }
        throw e;
      },
    );
  }

  private live(entry: OutboxEntry): Live {
    return {
      entry,
      seq: ++this.seq,
      active: false,
      kept: false,
      held: false,
      waiter: undefined,
      fails: 0,
      retryAt: 0,
      unreachable: false,
    };
  }

  /** Starts what may start: kept entries that are due first (they are older), then new ones, in order. */
  private pump(): void {
    while (!this.closed && !this.paused && this.active < this.maxActive) {
      const top = this.waiting.peek();
      const live = top && top.retryAt <= this.clock.now() ? this.waiting.pop() : this.fresh.shift();
      if (!live) break;
      // Removed while it waited (remove, clear) or already under way.
      if (this.entries.get(live.entry.id) !== live || live.active) continue;
      this.unhold(live);
      this.start(live);
    }
    this.armDueTimer();
    this.checkIdle();
  }

  /** Wakes the pump when the earliest kept entry is due (not while paused: the pause's end pumps). */
  private armDueTimer(): void {
    const top = this.waiting.peek();
    if (this.closed || this.paused || !top || top.retryAt >= this.dueAt) return;
    this.clearDueTimer();
    this.dueAt = top.retryAt;
    this.dueTimer = this.clock.setTimeout(
      () => {
        this.dueTimer = undefined;
        this.dueAt = Infinity;
        this.pump();
      },
      Math.max(0, top.retryAt - this.clock.now()),
    );
  }

  private clearDueTimer(): void {
    if (this.dueTimer !== undefined) this.clock.clearTimeout(this.dueTimer);
    this.dueTimer = undefined;
    this.dueAt = Infinity;
  }

  private start(live: Live): void {
    live.active = true;
    this.active++;
    const e = live.entry;
    let begun = Promise.resolve();
    if (!e.inFlight) {
      // Stored as "not in flight": say it is before the attempt, durably (group commit with the others).
      e.inFlight = true;
      begun = this.stored(this.store.update(e));
    }
    const run = begun.then(
      () => this.attempt(live),
      (err: unknown) => this.failed(live, err, false),
    );
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  private async attempt(live: Live): Promise<void> {
    const e = live.entry;
    e.attempts++;
    let result: unknown;
    try {
      result = await this.sendFn(e, {
        reference: e.reference,
        lookupFirst: e.maybeSent,
        since: Date.parse(e.createdAt) || this.clock.now(),
        signal: this.lifetime.signal,
      });
    } catch (err) {
      this.failed(live, err, true);
      return;
    }
    this.active--;
    live.active = false;
    this.settle(live, result, undefined);
    this.reachable();
    this.pump();
  }

  /** An attempt failed (`attempted`), or its begin record could not be written. */
  private failed(live: Live, err: unknown, attempted: boolean): void {
    this.active--;
    live.active = false;
    const e = live.entry;
    if (err instanceof EntryTakenOver) return this.handOver(live, err);
    const until = attempted && err instanceof GatewayError ? err.retryAt : undefined;
    if (attempted && until !== undefined && this.holds(err)) return this.holdUntil(live, until);
    if (attempted && !this.closed && !this.keep(err)) {
      this.settle(live, undefined, err);
      this.pump();
      return;
    }
    const why = messageOf(err);
    if (attempted) {
      e.inFlight = false;
      if (err instanceof GatewayError && err.ambiguous) e.maybeSent = true;
      e.lastError = why;
      // Not awaited: if this record is lost, the entry stays marked in flight and is looked up first.
      this.stored(this.store.update(e)).catch((w: unknown) => this.warnings.push(`outbox: ${messageOf(w)}`));
    } else {
      // The begin record is not durable: the next start writes it again.
      e.inFlight = false;
      this.warnings.push(`outbox: ${why}`);
    }
    if (this.entries.get(e.id) !== live) return this.checkIdle();
    // Its own backoff; an unreachable gateway also pauses everything (the first success ends both). A failure
    // that knows when a try can succeed (a spending limit's reset) waits until then instead.
    if (until === undefined) live.fails++;
    live.unreachable = unreachable(err) || !attempted;
    live.retryAt =
      until ?? this.clock.now() + Math.min(this.maxRetryMs, this.retryMs * 2 ** (live.fails - 1));
    this.waiting.push(live);
    if (live.unreachable) this.waitingForGateway = true;
    this.markKept(live, why);
    if (!this.closed && live.unreachable) this.pause(why);
    this.pump();
  }

  /**
   * An attempt found the entry's time not come yet (a number's pacing slot): held until `until`, not kept, and
   * its time stored with it (a restart does not attempt it before).
   */
  private holdUntil(live: Live, until: number): void {
    const e = live.entry;
    e.inFlight = false;
    e.notBefore = until;
    this.stored(this.store.update(e)).catch((w: unknown) => this.warnings.push(`outbox: ${messageOf(w)}`));
    if (this.entries.get(e.id) !== live) return this.checkIdle();
    live.retryAt = until;
    this.waiting.push(live);
    this.markHeld(live, until, true);
    this.pump();
  }

  /** Another process owns the entry now (a shared store): it sends it and reports it; this one forgets it. */
  private handOver(live: Live, err: EntryTakenOver): void {
    if (this.entries.get(live.entry.id) === live) this.entries.delete(live.entry.id);
    if (live.kept) this.unkeep();
    this.unhold(live);
    this.finishWaiter(
      live,
      new GatewayError('TIMEOUT', 'taken over by another instance, which sends it and reports its outcome', {
        ambiguous: false,
        cause: err,
      }),
    );
    this.pump();
  }

  private settle(live: Live, result: unknown, err: unknown): void {
    const e = live.entry;
    if (this.entries.get(e.id) === live) this.entries.delete(e.id);
    if (live.kept) this.unkeep();
    this.unhold(live);
    // The caller hears first, the removal follows: a crash between them repeats the outcome, never loses it.
    if (err === undefined) {
      this.counts.sent++;
      const w = live.waiter;
      live.waiter = undefined;
      if (w) w.resolve({ id: e.id, reference: e.reference, result, kept: live.kept });
      else this.emit('sent', { ...e }, result);
    } else {
      this.counts.refused++;
      const w = live.waiter;
      live.waiter = undefined;
      if (w) w.reject(err);
      else this.emit('failed', { ...e }, err);
    }
    // Node-RED hands a msg to the next node one event-loop turn later (setImmediate): the removal waits two
    // turns, so that a kill -9 in between repeats the result at the flow instead of losing it there. The
    // messages settled in one turn share the two turns' wait.
    this.removeLater(e.id, err === undefined);
  }

  /** Removals of settled messages waiting for their msg to reach the next node (run at once on close). */
  private readonly removals = new Set<Removal[]>();
  /** The removals of this turn (the first one of the turn scheduled the wait). */
  private removing: Removal[] | undefined;

  private removeLater(id: string, sent: boolean): void {
    let batch = this.removing;
    if (batch === undefined) {
      const mine: Removal[] = [];
      batch = mine;
      this.removing = mine;
      this.removals.add(mine);
      setImmediate(() => {
        // Settled from here on: their msgs are handed on after this turn, so they wait two turns of their own.
        if (this.removing === mine) this.removing = undefined;
        setImmediate(() => this.runRemovals(mine));
      });
    }
    batch.push({ id, sent });
  }

  private runRemovals(batch: Removal[]): void {
    if (!this.removals.delete(batch)) return;
    if (this.removing === batch) this.removing = undefined;
    for (const r of batch)
      this.stored(this.store.remove(r.id, { sent: r.sent })).catch((w: unknown) =>
        this.warnings.push(`outbox: ${messageOf(w)}`),
      );
  }

  private markKept(live: Live, why: string): void {
    if (live.kept) return;
    live.kept = true;
    this.keptNow++;
    this.counts.kept++;
    live.waiter?.onKept?.(why);
    this.emit('change', this.keptNow);
  }

  private unkeep(): void {
    this.keptNow--;
    this.emit('change', this.keptNow);
  }

  /** Held until `until`: counted (per origin too) and told to its caller. */
  private markHeld(live: Live, until: number, emit: boolean): void {
    if (!live.held) {
      live.held = true;
      this.heldNow++;
      const origin = live.entry.origin;
      if (origin !== undefined) this.heldByOrigin.set(origin, (this.heldByOrigin.get(origin) ?? 0) + 1);
      if (emit) this.emit('held', this.heldNow);
    }
    live.waiter?.onHeld?.(until);
  }

  /** No longer held (its time came, it was removed or settled). */
  private unhold(live: Live): void {
    if (!live.held) return;
    live.held = false;
    this.heldNow--;
    const origin = live.entry.origin;
    if (origin !== undefined) {
      const n = (this.heldByOrigin.get(origin) ?? 1) - 1;
      if (n > 0) this.heldByOrigin.set(origin, n);
      else this.heldByOrigin.delete(origin);
    }
    this.emit('held', this.heldNow);
  }

  private finishWaiter(live: Live, err: unknown): void {
    const w = live.waiter;
    live.waiter = undefined;
    w?.reject(err);
  }

  private pause(why: string): void {
    this.lastWhy = why;
    if (this.paused) return;
    this.paused = true;
    this.clearDueTimer();
    // Everything not under way waits for the gateway now (oldest first when it is back).
    this.fresh.forEach((l) => {
      if (this.entries.get(l.entry.id) === l) this.markKept(l, why);
    });
    this.pauseTimer = this.clock.setTimeout(() => {
      this.pauseTimer = undefined;
      this.paused = false;
      this.pump();
    }, this.wait);
    this.wait = Math.min(this.maxRetryMs, this.wait * 2);
  }

  private endPause(): void {
    if (this.pauseTimer !== undefined) this.clock.clearTimeout(this.pauseTimer);
    this.pauseTimer = undefined;
    this.paused = false;
    this.wait = this.retryMs;
  }

  /** A send went through: the gateway is back, so what waited only for that is due now. */
  private reachable(): void {
    if (this.paused || this.wait !== this.retryMs) this.endPause();
    if (!this.waitingForGateway) return;
    this.waitingForGateway = false;
    this.waiting.reschedule((l) => (l.unreachable ? 0 : undefined));
  }

  private isIdle(): boolean {
    if (this.active > 0) return false;
    if (this.closed || this.paused) return true;
    const top = this.waiting.peek();
    return this.fresh.length === 0 && !(top && top.retryAt <= this.clock.now());
  }

  private checkIdle(): void {
    if (this.idleWaiters.length === 0 || !this.isIdle()) return;
    for (const w of this.idleWaiters.splice(0)) w();
  }
}
