/**
 * One reader per config node of a queue the gateway empties as it answers (new inbound messages, new HLR results),
 * and its listeners. Reading such a queue is destructive, so there can be only one reader per gateway
 * configuration; like the core mqtt-broker config node, which owns one connection and hands each message to every
 * subscriber, the config node owns the reader and hands each record to every listener (docs/architecture.md,
 * "Listeners of a gateway's queues"). It polls while at least one listener is registered, at the shortest interval
 * a listener asks for, and when a listener asks it to (pollNow).
 *
 * Exactly once per listener, across restarts and instances:
 *   - One instance: the records read are written to the reader's state, once per listener that was ever registered
 *     (`owed`, in `<userDir>/smsgw-state/<type>-reader.<config id>.json`) before any is handed on, and dropped for a
 *     listener once its take() resolved. A listener away (a redeploy, a restart) gets them when it is back; one
 *     deleted (close with removed) is forgotten, one that never comes back after AWAY_MS.
 *   - Coordinated through Redis: only the holder of the type's lease reads; the records go to each listener's
 *     pending hash in Redis in one script with the reader's state (coordination/poll-state.ts), and each is dropped
 *     from it once handed on, one by one, as coordinated.ts does for a trigger.
 * A listener may get a record twice only in the window of a crash between handing it on and noting that.
 */
import type { Node, NodeAPI } from 'node-red';
import type { GatewayClient } from '../../client';
import type { GatewayError } from '../../errors';
import type { Hold, Lease } from '../../coordination/lease';
import type { PendingEntry, RedisPollState, RedisQueueState } from '../../coordination/poll-state';
import { toGatewayError } from '../common/errors';
import { sharedKey } from '../common/status';
import type { CoordinationHost } from '../config/coordination-host';
import type { ReliabilityHost } from '../config/reliability-host';
import {
  absorbNote,
  readCollected,
  readingNote,
  type CollectedRead,
  type CollectedState,
  type RecoverySettings,
} from './collected';
import { CoordinationUnavailable, TAKEOVER_GRACE_MS } from './coordinated';
import { warnOnce } from './odd-records';
import { MIN_INTERVAL_S, READ_GRACE_MS, whenAborted } from './poll-node';
import { decodePending, encodePending } from './pending';
import { MAX_DELAY_MS, Poller } from './poller';
import type { QueueKind } from './queue-kinds';
import { recoveryReporter } from './recovery-log';
import { SeenIds } from './seen-ids';
import { StateFile, StoreWriteError, type StoreProblem } from '../../store';
import { reportDamage, reportStoreProblem } from '../common/state';
import { MAX_RECOVERY_JOBS } from './hlr-queue';

/** A listener not registered for this long (its node deleted while Node-RED was down) is forgotten. */
export const AWAY_MS = 7 * 86_400_000;
/** One instance, nothing dated collected yet: the note of a read in flight is written again after this long. */
const RENOTE_MS = 60_000;
/** Records kept for one listener that is away; beyond, the oldest are dropped (with a warning). */
export const MAX_OWED = 1_000;
/**
 * A first taker that was registered this recently (a redeploy, a restart under way) is waited for: the others get
 * nothing it has not taken. Away longer, the others get the records without its marks (it gets them when it is back).
 */
export const FIRST_GRACE_MS = 60_000;

/** What the reader tells its listeners, for their status. */
export type ReaderEvent =
  | { type: 'polling' }
  /** A poll ended: `count` records were handed to this listener (`recovered` of the read came from a recovery). */
  | { type: 'polled'; count: number; recovered: number }
  | { type: 'failed'; error: unknown; failures: number; retryInMs: number }
  /** Coordinated: another instance reads (`problem` undefined) or Redis cannot be reached. */
  | { type: 'standby'; problem: string | undefined }
  /** An odd value in what was read (once per operation and field): each listener logs it, as it gets the record. */
  | { type: 'warn'; text: string }
  /**
   * The reader's state cannot be saved (or can again: undefined): nothing is read or handed on meanwhile. `tell`:
   * this listener logs it (once, an error its Catch node hears; `last` the problem that ended); the others show it.
   */
  | { type: 'store'; problem: StoreProblem | undefined; tell?: boolean; last?: StoreProblem | undefined }
  /**
   * A call of any node of the config succeeded after an AUTH failure: a red "auth failed" is stale. The reader polls
   * at once when it polls on an interval (out of its back-off); a listener polling on input shows its last status.
   */
  | { type: 'authRecovered' };

/**
 * A listener of a queue's reader: the inbound SMS trigger, and the hub of a configuration's `smsgw-ask` nodes
 * (ask/reader-replies.ts: it needs each inbound message once, durably, and may consume or ignore it).
 */
/**
 * What a first taker says of a record for the listeners after it, e.g. `{ optOut: 'added' }` (the opt-out list took
 * a STOP) or `{ claimedBy: 'smsgw-ask' }` (a reply an ask node took): short words and numbers, kept with the record
 * until every listener had it.
 */
export type RecordMarks = Readonly<Record<string, string | number | boolean>>;

export interface QueueListener<R> {
  /** Stable across restarts and instances (the node id): records read while it is away are kept under it. */
  readonly id: string;
  /**
   * A first taker (the opt-out list, the ask hub): it gets each record before the other listeners, which get the
   * record only once every first taker took it (or has been away longer than FIRST_GRACE_MS), with what the first
   * takers marked on it. A first taker that cannot take a record holds it back from the others: it fails loudly.
   */
  readonly first?: boolean;
  /** Poll every this many ms while it is registered; undefined: only when it calls pollNow(). */
  readonly intervalMs?: number | undefined;
  /** HLR results: records per read it wants (0 = all); the reader reads the most any listener wants. */
  readonly limit?: number | undefined;
  /**
   * Records read for this listener, in the gateway's order. Resolve once they are handed on or kept durably; until
   * then the reader keeps them and offers them again (after a restart too). Reject to get them all again (one that
   * took some before it had to stop tells them apart by the kind's key). After a crash a record may come twice.
   * `marks[i]`: what the first takers marked on `records[i]`. A first taker may resolve with its own marks, one per
   * record (undefined: nothing to say); they are kept (durably, or in Redis) until every listener had the record.
   */
  take(
    records: readonly R[],
    signal: AbortSignal,
    marks: readonly (RecordMarks | undefined)[],
  ): Promise<void | readonly (RecordMarks | undefined)[]>;
  /** What the reader does, for the listener's status. */
  event?(event: ReaderEvent): void;
}

export interface ListenerHandle {
  /** Coordinated through Redis: the reader keeps the listener's state in Redis (the listener keeps none). */
  readonly coordinated: boolean;
  /** Polls now (or waits for the poll under way); rejects with the error when that poll failed. */
  pollNow(): Promise<void>;
  /** Unregisters; `removed` (the node was deleted) also forgets what was kept for it. */
  close(removed: boolean): Promise<void>;
}

/** What the reader needs of its config node. */
export interface ReaderHost {
  RED: NodeAPI;
  /** The config node: its log gets the recoveries and odd values. */
  node: Node;
  service: 'gateway' | 'legacy';
  client(): GatewayClient;
  /** CONFIG "gateway '<name>' has no user/password" while the config lacks either; then nothing is read. */
  accountError(): GatewayError | undefined;
  userDir: string | undefined;
  recovery: RecoverySettings;
  reliability: ReliabilityHost | undefined;
  coordination: CoordinationHost | undefined;
  /**
   * A listener took `records` (`first`: a first taker), with the first takers' marks (its own included): the
   * panel's list of the last inbound messages. Must not throw.
   */
  onTaken?(
    type: string,
    records: readonly unknown[],
    marks: readonly (RecordMarks | undefined)[],
    first: boolean,
  ): void;
}

/** The reader's state: the read (seen keys, newest date, recovery note), the listeners, records owed to them. */
interface ReaderState {
  read: CollectedState;
  /** Listener id -> when it was last registered (ms). */
  listeners: Record<string, number>;
  /** Listener id -> encoded records not yet handed to it (one instance only; Redis keeps them per listener). */
  owed?: Record<string, unknown[]>;
  /** The listeners that take first (present or away). */
  firsts?: string[];
  /** Record key -> what the first takers marked on it, while a listener still owes it (one instance only). */
  marks?: Record<string, RecordMarks>;
}

interface ListenerState {
  seen: string[];
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** JSON-safe records (Dates kept as { $date }) and back. */
const encode = (records: readonly unknown[]): unknown[] => encodePending(records as never);
const decode = <R>(values: readonly unknown[]): R[] => decodePending([...values]) as unknown as R[];

/** A reader as the panel shows it (no records, no numbers). */
export interface ReaderInfo {
  type: string;
  listeners: number;
  /** When the last poll ended (ms since the epoch). */
  lastPollAt?: number;
  /** Why the last poll failed (a GatewayError's message: credentials are masked in it). */
  lastPollError?: string;
  /** Under Redis: this instance holds the queue's lease. */
  leaseHeld?: boolean;
}

export class QueueReader<R> {
  private readonly listeners = new Map<string, QueueListener<R>>();
  private readonly poller: Poller;
  private readonly store: StateFile<ReaderState>;
  private storeProblem: StoreProblem | undefined;
  private state: ReaderState = { read: { seen: [] }, listeners: {}, owed: {} };
  private readonly ready: Promise<void>;
  private lastError: unknown;
  /** When the last poll ended and how (the panel's Queues and health section shows it). */
  private lastPoll: { at: number; error?: string } | undefined;
  private closed = false;
  private readonly onWarning: ReturnType<typeof warnOnce>;
  private readonly noteRecovery: ReturnType<typeof recoveryReporter>;
  private readonly redis: RedisReading<R> | undefined;
  private warnedMany = false;
  private readonly overflowWarned = new Set<string>();
  /** Listeners deleted while this reader ran: forgotten in the shared state too at the next read. */
  private readonly removed = new Set<string>();
  private readonly offRecovered: (() => void) | undefined;
  /** One instance: the note of a collecting read in flight, written with the state until its records are saved. */
  private note: CollectedState['reading'];
  /** The last collecting read came back (answered or failed): a clean close drops the note. */
  private readEnded = true;
  /** When this reader started: first takers of a flow that is starting are waited for (FIRST_GRACE_MS). */
  private readonly startedAt = Date.now();

  constructor(
    private readonly host: ReaderHost,
    private readonly kind: QueueKind<R>,
  ) {
    const { RED, node } = host;
    // A damaged file is copied aside and read as far as it can be trusted (src/store): records it still holds
    // are handed on; the config node says what was kept and lost. While it cannot be saved, nothing more is read
    // from the gateway and nothing is handed on (the records stay in memory); once it can, the reader goes on.
    this.store = new StateFile<ReaderState>(host.userDir, `${kind.type}-reader.${node.id}`, {
      kind: 'reader',
      onDamage: (damage) => reportDamage(RED, node, damage),
      onProblem: (problem) => {
        const last = this.storeProblem;
        this.storeProblem = problem;
        // Told once, by the first trigger listening (its Catch node hears it), or by the config node without one.
        const teller = [...this.listeners.values()].find((l) => l.event);
        if (!teller) reportStoreProblem(RED, node, problem, last);
        for (const l of this.listeners.values())
          this.emit({ type: 'store', problem, tell: l === teller, last }, l);
        if (!problem) this.poller.now();
      },
    });
    this.ready = this.store.open().then(
      (loaded) => {
        if (loaded && typeof loaded === 'object') this.state = normalize(loaded);
        // A read was in flight when the last run ended (a kill, a power cut): what it collected is recovered first.
        this.state.read = absorbNote(this.state.read, Date.now());
      },
      (err: unknown) => {
        // Closed before the file could be read: nothing to say (the store told why it could not).
        if (!this.closed)
          node.warn(RED._(sharedKey('errors.stateLoad'), { where: this.store.where, message: String(err) }));
      },
    );
    // Odd values are the listeners' to tell (they emit the records); with none registered, the config node's.
    const sink = {
      warn: (text: string): void => {
        if (this.listeners.size === 0) node.warn(text);
        else this.emit({ type: 'warn', text });
      },
    } as unknown as Node;
    this.onWarning = warnOnce(RED, sink);
    this.noteRecovery = recoveryReporter(RED, node);
    this.redis = host.coordination ? new RedisReading(this, host.coordination, kind) : undefined;
    this.poller = new Poller({
      intervalMs: MAX_DELAY_MS,
      minIntervalMs: MIN_INTERVAL_S * 1000,
      poll: (signal) => this.run(signal),
      onError: (err, failures, retryInMs) => {
        this.lastError = err;
        // A reader is often the only thing that calls regularly: its AUTH failure turns the other nodes red too.
        host.reliability?.report(toGatewayError(err));
        this.emit({ type: 'failed', error: err, failures, retryInMs });
      },
    });
    this.redis?.onAcquired(() => this.poller.now());
    this.offRecovered = host.reliability?.onAuthRecovered(() => {
      this.emit({ type: 'authRecovered' });
      this.poller.now();
    });
  }

  get type(): string {
    return this.kind.type;
  }

  /** Registers a listener; the reader polls while at least one is registered. */
  listen(listener: QueueListener<R>): ListenerHandle {
    if (this.listeners.has(listener.id)) throw new Error(`listener ${listener.id} is registered already`);
    this.listeners.set(listener.id, listener);
    this.removed.delete(listener.id);
    void this.ready.then(() => {
      if (this.listeners.get(listener.id) !== listener) return;
      this.state.listeners[listener.id] = Date.now();
      // Remembered while it is away too: what it has not taken is held back from the others for FIRST_GRACE_MS.
      const firsts = new Set(this.state.firsts);
      if (listener.first) firsts.add(listener.id);
      else firsts.delete(listener.id);
      this.state.firsts = [...firsts];
    });
    this.retime();
    return {
      coordinated: this.redis !== undefined,
      pollNow: () => this.pollNow(),
      close: async (removed) => {
        if (this.listeners.get(listener.id) === listener) this.listeners.delete(listener.id);
        this.retime();
        if (removed) await this.forget(listener.id);
      },
    };
  }

  /**
   * A listener that will not come back (deleted, or a first taker switched off in the configuration's settings):
   * nothing is kept for it any more, and the others are not held back for it (its Redis keys stay until they are
   * overwritten or expire). A listener registered under the id now is not touched.
   */
  async forget(id: string): Promise<void> {
    if (this.listeners.has(id)) return;
    this.removed.add(id);
    await this.ready;
    if (this.listeners.has(id)) return;
    // Never registered here (the usual case): nothing to forget, nothing written.
    const known =
      id in this.state.listeners ||
      this.state.owed?.[id] !== undefined ||
      this.state.firsts?.includes(id) === true;
    if (!known) return;
    delete this.state.listeners[id];
    if (this.state.owed?.[id]) delete this.state.owed[id];
    if (this.state.firsts) this.state.firsts = this.state.firsts.filter((f) => f !== id);
    // Not saved now: the store tells it and saves it with the next write.
    await this.save().catch(() => undefined);
  }

  /** Stops polling (a read in flight gets READ_GRACE_MS) and writes the state. */
  async close(): Promise<void> {
    this.closed = true;
    this.offRecovered?.();
    await this.poller.stop();
    await this.redis?.close();
    if (this.note && this.readEnded) {
      // Stopped cleanly: the next start needs no recovery read.
      this.note = undefined;
      await this.save();
    }
    await this.store.close().catch(() => undefined);
  }

  private async pollNow(): Promise<void> {
    const before = this.poller.consecutiveFailures;
    await this.poller.trigger();
    if (this.poller.consecutiveFailures > before) throw this.lastError;
  }

  /** The shortest interval of the listeners (or none: only pollNow() polls). */
  private retime(): void {
    if (this.closed) return;
    const wanted = [...this.listeners.values()]
      .map((l) => l.intervalMs)
      .filter((ms): ms is number => typeof ms === 'number' && ms > 0);
    this.poller.retime(wanted.length > 0 ? Math.min(...wanted) : undefined);
  }

  /** @internal Tells every registered listener (a listener's own failure never stops the others). */
  emit(event: ReaderEvent, only?: QueueListener<R>): void {
    for (const l of only ? [only] : this.listeners.values()) {
      try {
        l.event?.(event);
      } catch {
        // A status is not worth a failed poll.
      }
    }
  }

  /** @internal */
  present(): QueueListener<R>[] {
    return [...this.listeners.values()];
  }

  /** @internal A first taker is registered (its marks are read for the others). */
  hasFirsts(): boolean {
    for (const l of this.listeners.values()) if (l.first) return true;
    return false;
  }

  /** @internal The reader's own state as saved (also the start when coordination is switched on). */
  async localState(): Promise<ReaderState> {
    await this.ready;
    return this.state;
  }

  /** @internal One read of the queue with its recovery, for this state. */
  async read(signal: AbortSignal, state: CollectedState): Promise<CollectedRead<R>> {
    const { host, kind } = this;
    const result = await readCollected(
      kind.queue({
        client: host.client(),
        service: host.service,
        signal,
        onWarning: this.onWarning,
        caption: host.recovery.caption,
        limits: this.present().map((l) => l.limit ?? 0),
        onTooMany: (found) => {
          if (this.warnedMany) return;
          this.warnedMany = true;
          host.node.warn(host.RED._(sharedKey('errors.recoveryJobs'), { found, max: MAX_RECOVERY_JOBS }));
        },
      }),
      state,
      { ...host.recovery, now: Date.now },
    );
    this.noteRecovery(result, kind.operations(host.service));
    return result;
  }

  /** @internal */
  get recovery(): ReaderHost['recovery'] {
    return this.host.recovery;
  }

  /** @internal A signal that aborts READ_GRACE_MS after `signal`: a read that collects is not cut off. */
  graceful(signal: AbortSignal): { signal: AbortSignal; dispose(): void } {
    const c = new AbortController();
    let t: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      t = setTimeout(() => c.abort(signal.reason), READ_GRACE_MS);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    return {
      signal: c.signal,
      dispose: () => {
        signal.removeEventListener('abort', onAbort);
        clearTimeout(t);
      },
    };
  }

  /**
   * @internal Listeners that were registered and are not forgotten (deleted, or away for AWAY_MS), present ones
   * included; called at each read, when every listener of the running flows has registered.
   */
  known(state: ReaderState): string[] {
    const now = Date.now();
    for (const l of this.listeners.values()) state.listeners[l.id] = now;
    for (const [id, at] of Object.entries(state.listeners)) {
      if (this.removed.has(id) || !(at >= now - AWAY_MS)) {
        delete state.listeners[id];
        if (state.owed) delete state.owed[id];
        if (state.firsts) state.firsts = state.firsts.filter((f) => f !== id);
      }
    }
    return Object.keys(state.listeners);
  }

  /** Saves the state; rejects (StoreWriteError) when it cannot: the caller goes no further. */
  private save(): Promise<void> {
    const { note, state } = this;
    return this.store.save(note ? { ...state, read: { ...state.read, reading: note } } : state);
  }

  /** How the reader is doing, for the panel: its queue, its last poll, whether this instance holds its lease. */
  info(): ReaderInfo {
    return {
      type: this.kind.type,
      listeners: this.listeners.size,
      ...(this.lastPoll ? { lastPollAt: this.lastPoll.at } : {}),
      ...(this.lastPoll?.error !== undefined ? { lastPollError: this.lastPoll.error } : {}),
      ...(this.redis ? { leaseHeld: this.redis.leaseHeld } : {}),
    };
  }

  private async run(signal: AbortSignal): Promise<void> {
    try {
      await this.runOnce(signal);
      this.lastPoll = { at: Date.now() };
    } catch (e) {
      this.lastPoll = { at: Date.now(), error: toGatewayError(e).message };
      // The store told it (once) and tries again; its listeners show it. Not a failure of the gateway: no back-off.
      if (!(e instanceof StoreWriteError)) throw e;
      this.emit({ type: 'store', problem: this.storeProblem ?? { ...e.problem, op: 'save' } });
    }
  }

  private async runOnce(signal: AbortSignal): Promise<void> {
    await Promise.race([this.ready, whenAborted(signal)]);
    if (signal.aborted) return;
    // What is not saved yet (a write that failed) is saved before anything else: nothing is read or handed on
    // from a state that is not on disk.
    if (this.store.problem) await this.save();
    // No account: say so (CONFIG, as a send does) instead of asking the gateway, which would refuse the login.
    const missing = this.host.accountError();
    if (missing) throw missing;
    if (this.redis) {
      try {
        // Records this instance's file kept (coordination switched on since) go first.
        if (await this.handOver(signal)) await this.save();
        await this.redis.run(signal);
        this.host.reliability?.report(undefined);
      } catch (e) {
        // Redis, not the gateway: no back-off, the lease or the next interval brings the reader back.
        if (!(e instanceof CoordinationUnavailable)) throw e;
        this.emit({ type: 'standby', problem: e.message.split('\n')[0] });
      }
      return;
    }
    this.emit({ type: 'polling' });
    const counts = new Map<string, number>();
    // Records read before (a restart, a listener that failed to take them) go first.
    let dirty = await this.handOver(signal, counts);
    if (this.host.recovery.enabled) {
      // Durable before the read is sent: killed between the gateway's answer and the save below, the next start
      // recovers what the answer held. Kept after a read that brought nothing (after a kill it costs a recovery
      // read that finds nothing new), so a quiet queue writes nothing per poll; with nothing dated collected yet
      // (the note reads from a window before now) it is written again once a minute at most.
      const note = readingNote(this.state.read, { ...this.host.recovery, now: Date.now });
      const kept = this.note;
      const current =
        kept !== undefined &&
        (kept.from === note.from || (this.state.read.newest === undefined && note.at - kept.at < RENOTE_MS));
      if (!current) {
        this.note = note;
        await this.save();
        dirty = false;
      }
    }
    const grace = this.graceful(signal);
    let result: CollectedRead<R>;
    this.readEnded = false;
    try {
      result = await this.read(grace.signal, this.state.read);
    } finally {
      grace.dispose();
    }
    this.readEnded = true;
    this.state.read = result.state;
    if (result.records.length > 0) this.owe(encode(result.records));
    if (result.records.length > 0 || result.failure !== undefined || result.recoveries > 0) {
      // Collected on the server: durable before anything is handed on (a stopping flow keeps them for later).
      this.note = undefined;
      await this.save();
      dirty = false;
    }
    if (!signal.aborted && (await this.handOver(signal, counts))) dirty = true;
    // Also when the flow is stopping: what a listener took must not be offered to it again.
    if (dirty) await this.save();
    if (result.failure !== undefined) throw result.failure;
    this.host.reliability?.report(undefined);
    for (const l of this.present())
      this.emit({ type: 'polled', count: counts.get(l.id) ?? 0, recovered: result.recovered }, l);
  }

  /** Records for every listener ever registered (present or away), each list bounded. */
  private owe(values: unknown[]): void {
    const owed = (this.state.owed ??= {});
    for (const id of this.known(this.state)) {
      const list = (owed[id] ??= []);
      list.push(...values);
      if (list.length > MAX_OWED) {
        list.splice(0, list.length - MAX_OWED);
        this.overflow(id);
      }
    }
  }

  /** @internal More than MAX_OWED records for a listener that is away: warned once per listener. */
  overflow(id: string): void {
    if (this.overflowWarned.has(id)) return;
    this.overflowWarned.add(id);
    this.host.node.warn(this.host.RED._(sharedKey('errors.owedOverflow'), { id, max: MAX_OWED }));
  }

  /**
   * Hands each present listener what is owed to it, first takers first; true when something was handed on (the
   * state changed). A listener that is not a first taker gets records in order up to the first one a first taker
   * waited for has not taken yet, with the first takers' marks.
   */
  private async handOver(signal: AbortSignal, counts?: Map<string, number>): Promise<boolean> {
    const owed = this.state.owed;
    if (!owed) return false;
    let changed = false;
    const present = this.present();
    const ordered = [...present.filter((l) => l.first), ...present.filter((l) => !l.first)];
    let held: Set<string> | undefined;
    for (const l of ordered) {
      const values = owed[l.id];
      if (!values || values.length === 0 || signal.aborted) continue;
      const records = decode<R>(values);
      let n = records.length;
      if (!l.first) {
        // After the first takers had their turn: what they still owe holds the others back.
        held ??= this.heldBack(owed);
        const stop = held.size === 0 ? -1 : records.findIndex((r) => held!.has(this.kind.key(r)));
        if (stop >= 0) n = stop;
      }
      if (n === 0) continue;
      const batch = n === records.length ? records : records.slice(0, n);
      const marks = batch.map((r) => this.state.marks?.[this.kind.key(r)]);
      let given: void | readonly (RecordMarks | undefined)[];
      try {
        given = await l.take(batch, signal, marks);
      } catch (e) {
        // Kept for the next poll; the listener says why (its own state could not be written, say).
        if (!signal.aborted) this.emit({ type: 'failed', error: e, failures: 1, retryInMs: 0 }, l);
        continue;
      }
      if (l.first && given) this.mark(batch, given);
      this.taken(l, batch, marks, given);
      // Taken (a listener that could not take them all rejects). New records are only added by this (sequential)
      // poll: the first n are the ones handed on.
      values.splice(0, n);
      if (values.length === 0) delete owed[l.id];
      counts?.set(l.id, (counts.get(l.id) ?? 0) + n);
      changed = true;
    }
    if (changed) this.pruneMarks(owed);
    return changed;
  }

  /** Keys of the records a first taker that is waited for still owes (it failed, or is away for less than the grace). */
  private heldBack(owed: Record<string, unknown[]>): Set<string> {
    const held = new Set<string>();
    const now = Date.now();
    const starting = now - this.startedAt < FIRST_GRACE_MS;
    for (const id of this.state.firsts ?? []) {
      const values = owed[id];
      if (!values || values.length === 0) continue;
      const waited =
        this.listeners.has(id) || starting || now - (this.state.listeners[id] ?? 0) < FIRST_GRACE_MS;
      if (!waited) continue;
      for (const r of decode<R>(values)) held.add(this.kind.key(r));
    }
    return held;
  }

  /** @internal Tells the host what a listener took, with the marks the others see (its own included). */
  taken(
    l: QueueListener<R>,
    records: readonly R[],
    marks: readonly (RecordMarks | undefined)[],
    given: void | readonly (RecordMarks | undefined)[],
  ): void {
    const seen = records.map((_, i) => (l.first && given?.[i] ? { ...marks[i], ...given[i] } : marks[i]));
    try {
      this.host.onTaken?.(this.kind.type, records, seen, l.first === true);
    } catch {
      // Only the panel's list of what came in misses them; the records were handed on.
    }
  }

  /** Notes a first taker's marks on the records it took (merged with those of the first takers before it). */
  private mark(records: readonly R[], given: readonly (RecordMarks | undefined)[]): void {
    records.forEach((r, i) => {
      const m = given[i];
      if (!m || Object.keys(m).length === 0) return;
      const key = this.kind.key(r);
      const marks = (this.state.marks ??= {});
      marks[key] = { ...marks[key], ...m };
    });
  }

  /** Marks of records no listener owes any more are dropped. */
  private pruneMarks(owed: Record<string, unknown[]>): void {
    const marks = this.state.marks;
    if (!marks) return;
    const wanted = new Set<string>();
    for (const values of Object.values(owed)) for (const r of decode<R>(values)) wanted.add(this.kind.key(r));
    for (const key of Object.keys(marks)) if (!wanted.has(key)) delete marks[key];
    if (Object.keys(marks).length === 0) delete this.state.marks;
  }
}

/** The first takers before the others (each group in its order). */
function firstsFirst<T extends { listener: { first?: boolean } }>(list: readonly T[]): T[] {
  return [...list.filter((c) => c.listener.first), ...list.filter((c) => !c.listener.first)];
}

/** The entries before the first one whose record a first taker still holds back. */
function upTo<R>(entries: PendingEntry[], held: ReadonlySet<string>, kind: QueueKind<R>): PendingEntry[] {
  if (held.size === 0) return entries;
  const stop = entries.findIndex((e) => held.has(kind.key(decode<R>([e.value])[0]!)));
  return stop < 0 ? entries : entries.slice(0, stop);
}

function normalize(loaded: Partial<ReaderState>): ReaderState {
  const read = loaded.read && typeof loaded.read === 'object' ? loaded.read : { seen: [] };
  const listeners = loaded.listeners && typeof loaded.listeners === 'object' ? loaded.listeners : {};
  const owed = loaded.owed && typeof loaded.owed === 'object' ? loaded.owed : {};
  for (const [id, list] of Object.entries(owed)) if (!Array.isArray(list)) delete owed[id];
  const state: ReaderState = {
    read: { ...read, seen: Array.isArray(read.seen) ? read.seen : [] },
    listeners,
    owed,
  };
  if (Array.isArray(loaded.firsts)) state.firsts = loaded.firsts.filter((id) => typeof id === 'string');
  if (loaded.marks && typeof loaded.marks === 'object') state.marks = readMarks(loaded.marks);
  return state;
}

/** Marks as read back from a file or Redis: only short words, numbers and flags (anything else is left out). */
export function readMarks(raw: object): Record<string, RecordMarks> {
  const out: Record<string, RecordMarks> = {};
  for (const [key, m] of Object.entries(raw)) {
    const marks = marksOf(m);
    if (marks) out[key] = marks;
  }
  return out;
}

export function marksOf(m: unknown): RecordMarks | undefined {
  if (!m || typeof m !== 'object' || Array.isArray(m)) return undefined;
  const marks: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(m as Record<string, unknown>))
    if (
      typeof v === 'boolean' ||
      (typeof v === 'number' && Number.isFinite(v)) ||
      (typeof v === 'string' && v.length <= 200)
    )
      marks[k] = v;
  return Object.keys(marks).length > 0 ? marks : undefined;
}

/**
 * The reader's poll when its config coordinates instances through Redis (see the top of this file and
 * coordinated.ts, whose steps it follows for several listeners at once).
 */
class RedisReading<R> {
  private readonly lease: Lease | undefined;
  private readonly store: RedisQueueState<ReaderState, ListenerState> | undefined;
  /** A destructive read answered while Redis went away: staged before anything else once it is back. */
  private readonly unstaged: { hold: Hold; run: (hold: Hold) => Promise<unknown> }[] = [];
  /** Handed on, but the drop from a pending hash did not reach Redis: dropped first at the next poll. */
  private readonly unconfirmed: { pending: RedisPollState<ListenerState>; key: string }[] = [];
  private fresh = false;
  private settling: Promise<void> = Promise.resolve();
  private readonly acquired: (() => void)[] = [];
  private readonly onUp = (): void => void this.catchUp().catch(() => undefined);
  private readonly onTaken = (): void => {
    this.fresh = true;
  };
  private readonly showWaiting = (): void => {
    this.reader.emit({ type: 'standby', problem: this.host.problem() });
  };

  constructor(
    private readonly reader: QueueReader<R>,
    private readonly host: CoordinationHost,
    private readonly kind: QueueKind<R>,
  ) {
    this.lease = host.lease(kind.type);
    this.store = host.queueState<ReaderState, ListenerState>(kind.type);
    host.link?.on('up', this.onUp);
    host.link?.on('down', this.showWaiting);
    this.lease?.on('acquired', this.onTaken);
    this.lease?.on('lost', this.showWaiting);
    setImmediate(() => {
      if (!this.lease?.held) this.showWaiting();
    });
  }

  /** This instance holds the queue's lease now (it is the one that reads). */
  get leaseHeld(): boolean {
    return this.lease?.held === true;
  }

  onAcquired(listener: () => void): void {
    this.acquired.push(listener);
    this.lease?.on('acquired', listener);
  }

  async close(): Promise<void> {
    for (const l of this.acquired) this.lease?.off('acquired', l);
    this.lease?.off('acquired', this.onTaken);
    this.lease?.off('lost', this.showWaiting);
    this.host.link?.off('up', this.onUp);
    this.host.link?.off('down', this.showWaiting);
    await this.host.releaseLease(this.kind.type);
  }

  private catchUp(): Promise<void> {
    this.settling = this.settling
      .catch(() => undefined)
      .then(async () => {
        while (this.unstaged.length > 0) {
          const u = this.unstaged[0]!;
          await u.run(u.hold);
          this.unstaged.shift();
        }
        while (this.unconfirmed.length > 0) {
          const u = this.unconfirmed[0]!;
          await u.pending.forget(u.key);
          this.unconfirmed.shift();
        }
      });
    return this.settling;
  }

  private async redis<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (e) {
      throw new CoordinationUnavailable(e instanceof Error ? e.message : String(e));
    }
  }

  /**
   * Hands entries to a listener one by one while the hold lasts: how many it took, and whether to go on (false: the
   * lease, Redis or the flow went away). A listener that fails keeps the rest for the next poll.
   */
  private async handOn(
    hold: Hold,
    listener: QueueListener<R>,
    pending: RedisPollState<ListenerState>,
    entries: PendingEntry[],
    signal: AbortSignal,
  ): Promise<{ n: number; go: boolean }> {
    let n = 0;
    const store = this.store!;
    const records = entries.map((e) => decode<R>([e.value])[0]!);
    const keys = records.map((r) => this.kind.key(r));
    // The first takers' marks, for the others (one read for the batch; none to read without first takers).
    const marks: (RecordMarks | undefined)[] =
      listener.first || !this.reader.hasFirsts()
        ? keys.map(() => undefined)
        : (await this.redis(() => store.getMarks(keys))).map(marksOf);
    for (const [i, e] of entries.entries()) {
      if (signal.aborted || !this.lease!.isCurrent(hold) || !this.host.link!.up) return { n, go: false };
      let given: void | readonly (RecordMarks | undefined)[];
      try {
        given = await listener.take([records[i]!], signal, [marks[i]]);
      } catch (err) {
        this.reader.emit({ type: 'failed', error: err, failures: 1, retryInMs: 0 }, listener);
        return { n, go: true };
      }
      this.reader.taken(listener, [records[i]!], [marks[i]], given);
      // A first taker's marks are in Redis before its record leaves its pending hash: after a crash in between it
      // gets the record again (and marks it again), never the others without them.
      const mine = listener.first ? marksOf(given?.[0]) : undefined;
      if (mine) {
        try {
          await store.putMarks([[keys[i]!, mine]]);
        } catch (err) {
          this.reader.emit({ type: 'failed', error: err, failures: 1, retryInMs: 0 }, listener);
          return { n, go: false };
        }
      }
      // Handed on: noted in Redis whatever happens now (a flow that began to stop meanwhile included), or the next
      // holder would hand it on again. The loop's first check stops before the next record.
      await nextTurn();
      n += 1;
      try {
        if (await pending.done(hold, e.key)) continue;
        // The lease moved on meanwhile: the record was handed on all the same, so it goes.
        await pending.forget(e.key);
      } catch {
        this.unconfirmed.push({ pending, key: e.key });
      }
      return { n, go: false };
    }
    return { n, go: true };
  }

  async run(signal: AbortSignal): Promise<void> {
    const hold = this.lease?.current();
    const store = this.store;
    if (!hold || !store || this.host.problem()) return this.showWaiting();
    this.reader.emit({ type: 'polling' });
    await this.redis(() => this.catchUp());
    const present = this.reader.present();
    const load = (): Promise<
      { listener: QueueListener<R>; pending: RedisPollState<ListenerState>; entries: PendingEntry[] }[]
    > =>
      this.redis(() =>
        Promise.all(
          present.map(async (listener) => {
            const pending = store.listener(listener.id);
            return { listener, pending, entries: (await pending.load()).pending };
          }),
        ),
      );
    let carried = await load();
    if (this.fresh && carried.some((c) => c.entries.length > 0)) {
      // A holder cut off from Redis notes what it handed on as soon as it is back: give it that time.
      await new Promise((resolve) => setTimeout(resolve, TAKEOVER_GRACE_MS));
      if (!this.lease!.isCurrent(hold)) return this.showWaiting();
      carried = await load();
    }
    this.fresh = false;
    const counts = new Map<string, number>();
    // First takers first; what one of them still has pending holds the others back at that record.
    const held = new Set<string>();
    for (const c of firstsFirst(carried)) {
      if (c.entries.length === 0) continue;
      const entries = c.listener.first ? c.entries : upTo(c.entries, held, this.kind);
      const h =
        entries.length === 0
          ? { n: 0, go: true }
          : await this.handOn(hold, c.listener, c.pending, entries, signal);
      counts.set(c.listener.id, h.n);
      if (!h.go) return this.showWaiting();
      if (c.listener.first)
        for (const e of c.entries.slice(h.n)) held.add(this.kind.key(decode<R>([e.value])[0]!));
    }
    const saved = await this.redis(() => store.load());
    const state = saved ? normalize(saved) : await this.startState();
    delete state.owed;
    // A note of a read in flight whose stage never wrote the state (its holder was killed or cut off): recovered
    // first, unless its records were staged all the same (the batch marker is set). Claiming the marker makes a
    // late stage by a holder cut off from Redis write nothing: the recovery alone hands those records on.
    const note = state.read.reading;
    const noteStaged =
      typeof note === 'object' &&
      note !== null &&
      typeof note.id === 'string' &&
      !(await this.redis(() => store.claim(note.id!)));
    state.read = absorbNote(state.read, Date.now(), noteStaged);
    const ids = this.reader.known(state);
    const presentIds = new Set(present.map((l) => l.id));
    // Read before the gateway is: once it has answered, only the stage may need Redis (kept if Redis is gone).
    const stages = await this.redis(() =>
      Promise.all(
        ids.map(async (id) => {
          const pending = store.listener(id);
          const [saved, waiting] = await Promise.all([
            pending.loadState(),
            presentIds.has(id) ? Promise.resolve(0) : pending.size(),
          ]);
          const seen = new SeenIds(Array.isArray(saved?.seen) ? saved.seen : []);
          // An away listener gets at most MAX_OWED records kept for it.
          return { id, pending, seen, full: waiting >= MAX_OWED };
        }),
      ),
    );
    let reading: CollectedState['reading'];
    if (this.reader.recovery.enabled) {
      // In Redis under this hold's token before the read is sent: a holder killed between the gateway's answer and
      // the stage leaves it, and the next holder recovers what the answer held. The stage below drops it.
      const [id] = stages[0]?.pending.nextKeys(1) ?? [];
      reading = readingNote(
        state.read,
        { ...this.reader.recovery, now: Date.now },
        id ? { by: hold.token, id } : undefined,
      );
      const noted = await this.redis(() =>
        store.stage(hold, { ...state, read: { ...state.read, reading } }, [], false, undefined),
      );
      if (noted !== 'staged') return this.showWaiting();
    }
    const grace = this.reader.graceful(signal);
    let result: CollectedRead<R>;
    try {
      result = await this.reader.read(grace.signal, state.read);
    } finally {
      grace.dispose();
    }
    state.read = result.state;
    const encoded = encode(result.records);
    const keys = stages[0]?.pending.nextKeys(result.records.length) ?? [];
    const perListener = stages.map(({ id, pending, seen, full }) => {
      const entries: PendingEntry[] = [];
      if (full) this.reader.overflow(id);
      else
        result.records.forEach((r, i) => {
          const key = this.kind.key(r);
          if (seen.has(key)) return;
          seen.add(key);
          entries.push({ key: keys[i]!, value: encoded[i] });
        });
      return { id, pending, state: { seen: seen.toJSON() }, entries };
    });
    const stage = (h: Hold): ReturnType<typeof store.stage> =>
      store.stage(h, state, perListener, true, keys[0] === undefined ? undefined : (reading?.id ?? keys[0]));
    let staged: Awaited<ReturnType<typeof store.stage>>;
    try {
      staged = await stage(hold);
    } catch (e) {
      if (result.records.length > 0) this.unstaged.push({ hold, run: stage });
      throw new CoordinationUnavailable(e instanceof Error ? e.message : String(e));
    }
    if (staged !== 'staged') return this.showWaiting();
    for (const l of firstsFirst(present.map((listener) => ({ listener })))) {
      const mine = perListener.find((p) => p.id === l.listener.id);
      if (!mine || mine.entries.length === 0) continue;
      const entries = l.listener.first ? mine.entries : upTo(mine.entries, held, this.kind);
      if (entries.length === 0) continue;
      const h = await this.handOn(hold, l.listener, mine.pending, entries, signal);
      counts.set(l.listener.id, (counts.get(l.listener.id) ?? 0) + h.n);
      if (!h.go) return this.showWaiting();
      if (l.listener.first)
        for (const e of mine.entries.slice(h.n)) held.add(this.kind.key(decode<R>([e.value])[0]!));
    }
    if (result.failure !== undefined) throw result.failure;
    for (const l of present)
      this.reader.emit({ type: 'polled', count: counts.get(l.id) ?? 0, recovered: result.recovered }, l);
  }

  /** No shared state yet: this instance's own (coordination switched on), without what it owes (handed on). */
  private async startState(): Promise<ReaderState> {
    const local = await this.reader.localState();
    return { read: { ...local.read }, listeners: { ...local.listeners } };
  }
}
