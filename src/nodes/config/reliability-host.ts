/**
 * The delivery guarantees of one config node (docs/reliability.md): one FlowControl shared by every node
 * using the config, the reference setting, the optional write-ahead outbox in
 * `<userDir>/smsgw-outbox/<config id>.jsonl`, and the connection state (an AUTH failure) fanned out to every
 * node using the config until a call succeeds.
 */
import * as path from 'node:path';
import type { Node, NodeAPI, NodeStatus } from 'node-red';
import type { GatewayClient } from '../../client';
import { GatewayError, isGatewayError } from '../../errors';
import { clientSender } from '../../reliability/client-sender';
import { FlowControl } from '../../reliability/flow-control';
import { keepByDefault, Outbox, type OutboxEntry, type OutboxSender } from '../../reliability/outbox';
import { isBudgetHold } from '../../reliability/budget';
import { BudgetHost, budgetOf } from './budget-host';
import { JournalStore } from '../../reliability/outbox-journal';
import { damageText, exists, moveFile, privateDir } from '../../store';
import { reportDamage } from '../common/state';
import { resolveReferenceOptions, type ResolvedReferenceOptions } from '../../reliability/reference';
import { flowOptions, referenceOf } from './client-options';
import { failed, sharedKey } from '../common/status';
import type { SmsgwConfigDef } from './types';
import type { CoordinationHost } from './coordination-host';
import { ownedSender, type FallbackOutboxStore } from '../../coordination/outbox-fallback';
import type { Lease } from '../../coordination/lease';
import { userDirOf } from '../common/user-dir';
import { clockOf, type Clock } from '../../reliability/clock';
import { QuietHours, quietOf } from './quiet-host';
import { PaceHost, paceOf, type PaceConfig } from './pace-host';
import { pacedSender } from '../../reliability/pacing-sender';
import { isPacedHold } from '../../reliability/pacing';

/** What every node using the config shows besides its own state. */
export interface ConfigHealth {
  /** The gateway refused the login (its status), until a call succeeds. */
  authFailed: string | undefined;
  /** Messages waiting in the flow-control queue. */
  depth: number;
  /** Messages kept in the outbox. */
  kept: number;
  /** Messages held in the outbox until their time (quiet hours). */
  held: number;
  /** Coordination through Redis is on and Redis cannot be reached (why): sends wait or are refused. */
  redisDown: string | undefined;
  /** The outbox is on but cannot store messages (why, short): sends are refused until it can. */
  outboxDown: string | undefined;
  /** A spending limit is near (yellow) or reached (red): what the nodes show when idle. */
  budget?: NodeStatus | undefined;
}

/** Why sends cannot go out now (coordination on, Redis away), and a promise of the first connection attempt. */
export interface SendGate {
  problem(): string | undefined;
  ready(): Promise<void>;
}

/** An outcome of an outbox entry that no msg waits for any more (accepted before a restart or a redeploy). */
export interface RestoredOutcome {
  entry: OutboxEntry;
  /** The send's result when it went out (or was found by its reference). */
  result?: unknown;
  /** The refusal when it was refused for good. */
  error?: unknown;
}

type RestoredListener = (outcome: RestoredOutcome) => void;

/** A kept entry as the editor lists it (never credentials: the outbox does not store them). */
export interface OutboxListing {
  id: string;
  reference: string;
  service: string;
  operation: string;
  createdAt: string;
  attempts: number;
  maybeSent: boolean;
  /** An attempt is under way (or may be, per the journal). */
  inFlight: boolean;
  lastError: string | undefined;
  /** Held until then (ISO time): quiet hours. */
  notBefore?: string;
  /** msg.topic of the msg that sent it (held messages can be cancelled by it). */
  topic?: string;
  caption: unknown;
  recipients: unknown;
}

/** Status refreshes of the nodes are coalesced: a queue that moves 200 times a second is shown ~5 times. */
const NOTIFY_MS = 200;

const OUTBOX_DIR = 'smsgw-outbox';
/** Outcomes for a node that is not (yet) running wait this long for it, then go to the log. */
const RESTORED_WAIT_MS = 30_000;

export class ReliabilityHost {
  readonly flow: FlowControl;
  /** The reference added to captions; undefined when the config switched it off. */
  readonly referenceOptions: ResolvedReferenceOptions | undefined;
  /** A setting that cannot work (e.g. a negative rate): every message fails with it. */
  readonly configError: GatewayError | undefined;
  readonly outboxFile: string | undefined;
  /** The Outbox box of the config is ticked (whether or not it could be placed). */
  private readonly outboxWanted: boolean;
  /** The open outbox; undefined when it is off or could not be opened (then each send tries again). */
  private outboxReady: Promise<Outbox | undefined>;
  /** A send's attempt to open an outbox that could not be opened before. */
  private reopening: Promise<Outbox | undefined> | undefined;
  /** Why the outbox cannot store messages now (it could not be opened, or its last write failed). */
  private outboxProblem: string | undefined;
  /** The spending guard (Budget tab); undefined while no limit is set. */
  readonly budget: BudgetHost | undefined;
  /** The quiet hours (Quiet hours settings); undefined while they are off. */
  readonly quiet: QuietHours | undefined;
  /** Where "now" and the outbox's timers come from (settings.smsgwClock in tests, else the real clock). */
  readonly clock: Clock;
  private authFailed: string | undefined;
  private kept = 0;
  private held = 0;
  /** The config node's own status shows the held count (only when it shows nothing else). */
  private heldShown = 0;
  private box: Outbox | undefined;
  /** The pacing per number (Pacing settings); undefined while it is off. */
  private readonly paceReady: Promise<PaceHost> | undefined;
  private readonly listeners = new Map<Node, () => void>();
  private readonly recoveredListeners = new Set<() => void>();
  private readonly restoredListeners = new Map<string, RestoredListener>();
  private readonly unclaimed = new Map<string, Array<{ outcome: RestoredOutcome; until: number }>>();
  private unclaimedTimer: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly offFlow: () => void;
  private closed = false;
  private gate: SendGate | undefined;
  /** With a shared outbox: this instance's lease on it, and the timer of the claims. */
  private alive: Lease | undefined;
  /** The outbox journal (also under a shared outbox: what Redis cannot take). */
  private journal: JournalStore | undefined;
  private claimTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
    def: SmsgwConfigDef,
    getClient: () => GatewayClient,
    private readonly users: () => Iterable<Node>,
    private readonly coordination?: CoordinationHost,
  ) {
    let flow: FlowControl;
    let error: GatewayError | undefined;
    let reference: ResolvedReferenceOptions | undefined;
    let budget;
    let quiet;
    let paceConfig: PaceConfig | undefined;
    try {
      flow = new FlowControl(flowOptions(def));
      const r = referenceOf(def);
      reference = r ? resolveReferenceOptions(r) : undefined;
      budget = budgetOf(def);
      const q = quietOf(def);
      quiet = q ? new QuietHours(q) : undefined;
      paceConfig = paceOf(def);
    } catch (e) {
      error = isGatewayError(e) ? e : new GatewayError('CONFIG', String(e));
      flow = new FlowControl({});
    }
    this.flow = flow;
    this.configError = error;
    this.referenceOptions = reference;
    this.quiet = quiet;
    this.clock = clockOf((RED.settings as unknown as Record<string, unknown>).smsgwClock);
    this.offFlow = flow.onChange(() => this.notify(false));

    if (def.tlsRejectUnauthorized === false && /^https:/i.test(String(def.baseUrl ?? '').trim())) {
      node.warn(RED._(sharedKey('warn.tlsOff')));
    }

    const userDir = userDirOf(RED);
    this.paceReady = paceConfig
      ? PaceHost.open(
          userDir,
          def.id,
          paceConfig,
          this.clock,
          {
            onDamage: (d) => reportDamage(RED, node, d),
            onProblem: (p) => {
              if (p) node.error(`pacing: ${p.file}: ${p.code}`);
            },
          },
          coordination,
        )
      : undefined;
    // Told when a send needs it; not an unhandled rejection meanwhile.
    this.paceReady?.catch(() => undefined);
    this.outboxFile =
      def.outbox === true && userDir !== undefined
        ? path.join(userDir, OUTBOX_DIR, `${def.id}.jsonl`)
        : undefined;
    this.outboxWanted = def.outbox === true;
    if (this.outboxWanted && !this.outboxFile) {
      // The outbox was chosen: without a place for its journal a send would go out with no durability at all, a
      // weaker mode nobody chose. Refuse sends (CONFIG) and say so on the nodes, as for an unwritable directory.
      this.outboxProblem = RED._(sharedKey('status.noUserDir'));
      node.error(RED._(sharedKey('errors.noUserDir')));
      // The send nodes register after this constructor: tell them once they have (as an open that fails does).
      this.notify(false);
      node.status(failed(RED._(sharedKey('status.outboxDown'), { message: this.outboxProblem })));
    }
    this.getClient = getClient;
    this.budget = budget
      ? new BudgetHost(RED, node, def, budget, coordination, () => this.notify(true), !!this.outboxFile)
      : undefined;
    this.outboxReady = this.outboxFile
      ? this.openOutbox(this.outboxFile, getClient)
      : Promise.resolve(undefined);
    // Counts confirmed after a loss: what the guard held in the outbox meanwhile is tried now, not a minute later.
    this.budget?.subscribeLoss((e) => {
      if (e.type === 'confirmed') void this.outboxReady.then((box) => box?.flush()).catch(() => undefined);
    });
  }

  private readonly getClient: () => GatewayClient;

  /**
   * The outbox of a send; undefined when it is off. One that is on but could not be opened is tried again now
   * (each send checks, not only the start): while it still cannot be opened the send is refused with CONFIG
   * naming the directory, never sent without it.
   */
  async outbox(): Promise<Outbox | undefined> {
    const box = await this.outboxReady;
    const file = this.outboxFile;
    if (box) return box;
    if (!file) {
      if (!this.outboxWanted) return undefined;
      throw new GatewayError(
        'CONFIG',
        `outbox unavailable: ${this.outboxProblem ?? 'no user directory'}; not sent`,
        {
          ambiguous: false,
        },
      );
    }
    if (this.closed) throw outboxRefusal('the configuration node is stopping', path.dirname(file), false);
    this.reopening ??= this.openOutbox(file, this.getClient).finally(() => (this.reopening = undefined));
    const opened = await this.reopening;
    if (opened) {
      this.outboxReady = Promise.resolve(opened);
      return opened;
    }
    throw outboxRefusal(this.outboxProblem ?? 'it could not be opened', path.dirname(file), false);
  }

  /** The pacing per number, once its book is open; undefined while pacing is off. */
  pace(): Promise<PaceHost> | undefined {
    return this.paceReady;
  }

  /** Entries held in the outbox until their time (quiet hours) that node `origin` submitted. */
  heldFor(origin: string): number {
    return this.held > 0 ? (this.box?.heldFor(origin) ?? 0) : 0;
  }

  /**
   * Removes the held entries (waiting for the end of the quiet hours) whose msg.topic was `topic`: they will not
   * be sent, their msgs fail with REJECTED, their counts go back to the spending guard. Resolves with how many.
   */
  async cancelHeld(topic: string): Promise<number> {
    const box = await this.outbox();
    if (!box) return 0;
    const now = this.clock.now();
    const ids = await box.removeWhere(
      (e) => e.topic === topic && e.notBefore !== undefined && e.notBefore > now && !e.inFlight,
    );
    this.budget?.released(ids);
    return ids.length;
  }

  /** A node that sends through the outbox (it takes its restored outcomes): it shows when the outbox is down. */
  sendsThroughOutbox(nodeId: string): boolean {
    return (this.outboxFile !== undefined || this.outboxWanted) && this.restoredListeners.has(nodeId);
  }

  health(): ConfigHealth {
    return {
      authFailed: this.authFailed,
      depth: this.flow.depth,
      kept: this.kept,
      held: this.held,
      redisDown: this.gate?.problem(),
      outboxDown: this.outboxProblem === undefined ? undefined : shortWhy(this.outboxProblem),
      budget: this.budget?.nodeStatus(),
    };
  }

  /**
   * Coordination through Redis is on: while Redis cannot be reached the shared rate limit cannot be kept, so
   * sends wait in the outbox (or are refused without it) until it is back; `changed()` when that may differ.
   */
  gateSends(gate: SendGate): void {
    this.gate = gate;
  }

  /** Why a send cannot go out now (after the first connection attempt to Redis), or undefined. */
  async sendBlocked(): Promise<string | undefined> {
    if (!this.gate) return undefined;
    if (this.gate.problem() !== undefined) await this.gate.ready();
    return this.gate.problem();
  }

  /** Redis came or went: the nodes show it, and what the outbox kept for it goes out at once when it is back. */
  gateChanged(): void {
    this.notify(true);
    if (this.gate?.problem() !== undefined) return;
    void this.outboxReady.then((box) => box?.flush()).catch(() => undefined);
  }

  /** A node using the config refreshes its status through `listener`; returns the unsubscribe function. */
  subscribe(user: Node, listener: () => void): () => void {
    this.listeners.set(user, listener);
    return () => {
      if (this.listeners.get(user) === listener) this.listeners.delete(user);
    };
  }

  /**
   * Tells `listener` how each call of any node of this config that reached the gateway ended: undefined when it
   * succeeded, else its error (the heartbeat node's gateway watch counts failures in a row). Fed by the flow
   * control every call passes through, so it sees the sends, the outbox's attempts, the readers' polls and the
   * queries alike, and nothing that was refused before a request (a bad input, a full queue, the spending guard).
   * Cheap on the hot path: one call per listener, no allocation. Returns the unsubscribe function.
   */
  onCall(listener: (err: unknown) => void): () => void {
    return this.flow.onSettled(listener);
  }

  /**
   * A node that does not compose its status from the config's state (a poller) learns here that a call of any
   * node succeeded after an AUTH failure: its red "auth failed" is stale. Returns the unsubscribe function.
   */
  onAuthRecovered(listener: () => void): () => void {
    this.recoveredListeners.add(listener);
    return () => {
      this.recoveredListeners.delete(listener);
    };
  }

  /**
   * How a call of any node went: an AUTH failure turns every node of the config red ("auth failed") until
   * a call of any of them succeeds (`undefined`), which clears it on all of them; other errors leave the state
   * as it is.
   */
  report(err?: unknown): void {
    let next = this.authFailed;
    if (err === undefined) next = undefined;
    else if (isGatewayError(err) && err.code === 'AUTH') next = err.status || 'AUTH';
    if (next === this.authFailed) return;
    this.authFailed = next;
    if (next !== undefined) {
      // Nodes that do not compose their status from the config's state (pollers) get the red ring directly.
      const text = this.RED._(sharedKey('status.authFailed'), { status: next });
      for (const user of this.users()) if (!this.listeners.has(user)) user.status(failed(text));
    } else {
      for (const l of [...this.recoveredListeners]) {
        try {
          l();
        } catch {
          // one node's status must not keep the others red
        }
      }
    }
    this.notify(true);
  }

  /**
   * A send node takes the outcomes of its outbox entries that no msg waits for any more (accepted before a
   * restart, or before a redeploy of the node); those that came while it was away are handed over now.
   * Returns the unsubscribe function.
   */
  subscribeRestored(origin: string, listener: RestoredListener): () => void {
    this.restoredListeners.set(origin, listener);
    const waiting = this.unclaimed.get(origin);
    this.unclaimed.delete(origin);
    for (const w of waiting ?? []) listener(w.outcome);
    return () => {
      if (this.restoredListeners.get(origin) === listener) this.restoredListeners.delete(origin);
    };
  }

  /** The kept entries for the editor. */
  async list(): Promise<{
    enabled: boolean;
    file: string | undefined;
    /** Why the outbox cannot store messages now. */
    problem?: string;
    entries: OutboxListing[];
  }> {
    const box = await this.outboxReady;
    const entries = (box?.list() ?? []).map((e) => ({
      id: e.id,
      reference: e.reference,
      service: e.service,
      operation: e.operation,
      createdAt: e.createdAt,
      attempts: e.attempts,
      maybeSent: e.maybeSent,
      inFlight: e.inFlight,
      lastError: e.lastError,
      ...(e.notBefore !== undefined ? { notBefore: new Date(e.notBefore).toISOString() } : {}),
      ...(e.topic !== undefined ? { topic: e.topic } : {}),
      caption: e.params.Caption ?? e.params.caption,
      recipients: e.params.Recipient ?? e.params.recipient ?? e.params.Recipients ?? e.params.bRecipient,
    }));
    return {
      enabled: box !== undefined || this.outboxFile !== undefined,
      file: this.outboxFile ? path.basename(this.outboxFile) : undefined,
      ...(this.outboxProblem !== undefined ? { problem: this.outboxProblem } : {}),
      entries,
    };
  }

  /** Removes every entry not under way (they will not be sent); their waiting messages fail (REJECTED). */
  async clear(): Promise<number> {
    const box = await this.outboxReady;
    if (!box) return 0;
    const before = box.list().map((e) => e.id);
    const cleared = await box.clear();
    // What will not be sent does not count against the budget.
    const left = new Set(box.list().map((e) => e.id));
    this.budget?.released(before.filter((id) => !left.has(id)));
    return cleared;
  }

  async close(removed: boolean): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.unclaimedTimer) clearTimeout(this.unclaimedTimer);
    this.unclaimedTimer = undefined;
    this.offFlow();
    this.flow.close();
    // A send may be opening the outbox again: it closes what it opened once it sees the host closed.
    await this.reopening;
    const box = await this.outboxReady;
    // The counts are written last (an attempt under way settles its reservation as the outbox closes).
    const budget = async (): Promise<void> => {
      await this.paceReady?.then((p) => p.close()).catch(() => undefined);
      await this.budget?.close(removed);
    };
    if (!box) {
      await this.alive?.stop();
      return budget();
    }
    if (this.claimTimer) clearTimeout(this.claimTimer);
    this.claimTimer = undefined;
    // Attempts under way are aborted and stay in the journal (looked up first when the flow starts again).
    await box.close();
    // A shared outbox: the lease goes, so another instance takes this one's entries over at once.
    await this.alive?.stop();
    for (const [, list] of this.unclaimed) for (const w of list) this.logRestored(w.outcome);
    this.unclaimed.clear();
    // A deleted config node takes its outbox file along, unless messages are still kept in it.
    if (removed && box.size === 0) await this.journal?.discard().catch(() => undefined);
    else if (removed)
      this.node.warn(this.RED._(sharedKey('warn.outboxLeft'), { count: box.size, file: box.location }));
    await budget();
  }

  private async openOutbox(file: string, getClient: () => GatewayClient): Promise<Outbox | undefined> {
    const dir = path.dirname(file);
    let alive: Lease | undefined;
    try {
      await privateDir(dir);
      await migrateOutboxFile(file);
      const settings = this.RED.settings as unknown as Record<string, unknown>;
      const retry = Number(settings.smsgwOutboxRetryInterval) || undefined;
      // Coordinating instances share one outbox in Redis (docs/scaling.md), the file taking what Redis cannot.
      const journal = new JournalStore({
        file,
        userDir: userDirOf(this.RED),
        // Met while running (the journal removed or replaced under it): one line when it happens.
        onWarning: (text) => this.node.warn(text),
      });
      this.journal = journal;
      const shared = this.coordination?.sharedOutbox(journal);
      if (shared) {
        alive = shared.alive;
        this.alive = alive;
        await waitHeld(shared.alive, 5000);
      }
      // Pacing first: an attempt whose number has no room is held until its slot before anything is counted.
      const pace = await this.paceReady;
      const guarded = this.guarded(clientSender(getClient()));
      const box = await Outbox.open({
        store: shared?.store ?? journal,
        // The opt-out list first (recipients that went on it while the entry waited are left out), then pacing.
        send: this.gatedSender(this.checked(pace ? pacedSender(pace, guarded) : guarded), shared?.store),
        hold: isPacedHold,
        // A send held by the spending guard waits in the outbox until its window has room (its retryAt).
        keep: (err: unknown) => keepByDefault(err) || isBudgetHold(err),
        // As many attempts at once as the flow control lets run: the rest wait in the outbox, on disk.
        maxActive: Number.isFinite(this.flow.maxConcurrent) ? this.flow.maxConcurrent : 8,
        ...(retry ? { retryIntervalMs: retry, maxRetryIntervalMs: Math.max(retry, 60_000) } : {}),
        unavailable: (why, cause) => outboxRefusal(why, dir, isGatewayError(cause) ? cause.ambiguous : true),
        clock: this.clock,
      });
      this.box = box;
      // A journal damaged or missing: one error naming it, what was kept and lost (its warnings follow).
      const told = journal.damage ? damageText(journal.damage) : undefined;
      if (journal.damage) reportDamage(this.RED, this.node, journal.damage);
      for (const w of box.warnings) if (w !== told) this.node.warn(w);
      // A write that fails later (disk full, the directory removed or replaced): every node says so until one
      // succeeds again; each send tries the store again meanwhile.
      box.on('store', (why) => this.outboxState(why));
      box.on('sent', (entry, result) => this.restored({ entry, result }));
      box.on('failed', (entry, error) => this.restored({ entry, error }));
      box.on('change', (kept) => {
        this.kept = kept;
        this.notify(true);
      });
      this.kept = box.kept;
      box.on('held', (held) => {
        this.held = held;
        this.notify(false);
        this.showHeld();
      });
      this.held = box.held;
      this.showHeld();
      // Held before a restart: the send nodes (subscribed by now) show their counts.
      if (this.held > 0) this.notify(false);
      if (shared) {
        this.claimLoop(box, shared.store);
        // The lease back (it had lapsed: a long pause, Redis away): what waited for it goes now.
        shared.alive.on('acquired', () => void box.flush().catch(() => undefined));
      }
      if (this.closed) {
        await box.close();
        return undefined;
      }
      this.outboxState(undefined);
      return box;
    } catch (e) {
      // The lease of an outbox that did not open goes (the next send's attempt takes a new one).
      if (alive) {
        await alive.stop().catch(() => undefined);
        if (this.alive === alive) this.alive = undefined;
      }
      this.outboxState(e instanceof Error ? e.message : String(e));
      return undefined;
    }
  }

  /**
   * The outbox can store messages again (undefined) or cannot (why): the config node and every send node show
   * it, and the log says it once per change.
   */
  private outboxState(why: string | undefined): void {
    if (why === this.outboxProblem) return;
    const before = this.outboxProblem;
    this.outboxProblem = why;
    if (why !== undefined) {
      this.node.error(this.RED._(sharedKey('errors.outboxDown'), { message: why, dir: this.outboxDir() }));
      this.node.status(failed(this.RED._(sharedKey('status.outboxDown'), { message: shortWhy(why) })));
    } else if (before !== undefined) {
      this.node.log(this.RED._(sharedKey('log.outboxUp'), { dir: this.outboxDir() }));
      this.node.status({});
    }
    this.notify(true);
  }

  /** The config node shows how many messages its quiet hours hold (unless it shows the outbox down). */
  private showHeld(): void {
    if (this.closed || this.outboxProblem !== undefined || this.held === this.heldShown) return;
    this.heldShown = this.held;
    this.node.status(
      this.held > 0
        ? { fill: 'grey', shape: 'ring', text: this.RED._(sharedKey('status.held'), { count: this.held }) }
        : {},
    );
  }

  private outboxDir(): string {
    return this.outboxFile ? path.dirname(this.outboxFile) : '';
  }

  /**
   * The outbox's sender, held back (kept, not sent) while the send gate is closed; with a shared outbox, each
   * attempt first checks in Redis that this instance still owns the entry and holds its lease, and hands an
   * entry kept in the file while Redis was away over to Redis (lookup before retry covers the rest: an entry
   * taken over is looked up by its new owner before it is sent).
   */
  private gatedSender(send: OutboxSender, owner: FallbackOutboxStore | undefined): OutboxSender {
    const owned = owner ? ownedSender(owner, send, redisDownError) : send;
    return (entry, options) => {
      const why = this.gate?.problem();
      if (why === undefined) return owned(entry, options);
      return Promise.reject(redisDownError(why));
    };
  }

  /** The sender behind the spending guard, when one is set. */
  private guarded(send: OutboxSender): OutboxSender {
    return this.budget ? this.budget.guardedSender(send) : send;
  }

  /**
   * A check each attempt of an outbox entry runs before the spending guard: the opt-out list (set by the config
   * node when it is on), which leaves out recipients that went on it while the message waited, or refuses the
   * entry (OPTED_OUT) when none is left. Not for an attempt that looks an earlier one up first: that one may have
   * gone out already, and the lookup settles it.
   */
  attemptCheck: ((entry: Readonly<OutboxEntry>) => Promise<Readonly<OutboxEntry>>) | undefined;

  private checked(send: OutboxSender): OutboxSender {
    return (entry, options) => {
      const check = this.attemptCheck;
      // Without a check (the opt-out list off) the attempt goes straight on, without a promise of its own.
      if (!check || options.lookupFirst) return send(entry, options);
      return check(entry).then((e) => send(e, options));
    };
  }

  /** Takes over the entries of instances whose lease lapsed, every third of the lease time. */
  private claimLoop(box: Outbox, store: FallbackOutboxStore): void {
    const every = Math.max(500, Math.round((this.alive?.leaseMs ?? 15_000) / 3));
    const tick = (): void => {
      this.claimTimer = undefined;
      if (this.closed) return;
      void store.shared
        .claim()
        .then((entries) => {
          if (this.closed || entries.length === 0) return;
          this.node.log(this.RED._(sharedKey('log.outboxTakenOver'), { count: entries.length }));
          box.adopt(entries);
        })
        .catch(() => undefined)
        .then(() => {
          if (!this.closed) this.claimTimer = setTimeout(tick, every);
        });
    };
    tick();
  }

  /** An outcome nobody waits for: to the node that submitted it, or (it is gone) to the log. */
  private restored(outcome: RestoredOutcome): void {
    this.report(outcome.error);
    const origin = outcome.entry.origin;
    const listener = origin ? this.restoredListeners.get(origin) : undefined;
    if (listener) return listener(outcome);
    if (!origin || this.closed) return this.logRestored(outcome);
    // The node may be starting (a deploy): it gets the outcome when it subscribes, or the log does.
    const list = this.unclaimed.get(origin) ?? [];
    list.push({ outcome, until: Date.now() + RESTORED_WAIT_MS });
    this.unclaimed.set(origin, list);
    this.unclaimedTimer ??= setTimeout(() => this.expireUnclaimed(), RESTORED_WAIT_MS);
  }

  private expireUnclaimed(): void {
    this.unclaimedTimer = undefined;
    const now = Date.now();
    for (const [origin, list] of this.unclaimed) {
      const keep = list.filter((w) => w.until > now);
      for (const w of list) if (w.until <= now) this.logRestored(w.outcome);
      if (keep.length > 0) this.unclaimed.set(origin, keep);
      else this.unclaimed.delete(origin);
    }
    if (this.unclaimed.size > 0) this.unclaimedTimer = setTimeout(() => this.expireUnclaimed(), 1000);
  }

  private logRestored({ entry, error }: RestoredOutcome): void {
    if (error === undefined) {
      this.node.log(
        this.RED._(sharedKey('log.outboxSent'), { operation: entry.operation, reference: entry.reference }),
      );
      return;
    }
    this.node.error(
      this.RED._(sharedKey('errors.outboxRefused'), {
        operation: entry.operation,
        reference: entry.reference,
        message: error instanceof Error ? error.message : String(error),
      }),
    );
  }

  private notify(now: boolean): void {
    if (this.closed) return;
    if (now) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      this.fire();
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.fire();
    }, NOTIFY_MS);
  }

  private fire(): void {
    for (const l of this.listeners.values()) {
      try {
        l();
      } catch {
        // a status display must not break the config node
      }
    }
  }
}

/** Resolves when the lease is held, or after `ms` (sends go to the local file until it is). */
function waitHeld(lease: Lease, ms: number): Promise<void> {
  if (lease.held) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      lease.off('acquired', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    lease.on('acquired', done);
  });
}

/**
 * A send refused because the outbox (on) cannot store it: never sent without it. `ambiguous` when part of the
 * write may have reached the disk (the journal then sends it after a restart, looked up first).
 */
export function outboxRefusal(why: string, dir: string, ambiguous: boolean): GatewayError {
  return new GatewayError(
    'CONFIG',
    `outbox unavailable: ${shortWhy(why)}; not sent: sends are refused until the outbox directory ${dir} can be written (tried again with every send)${
      shortWhy(why) === why ? '' : `; ${why}`
    }`,
    { ambiguous },
  );
}

/** An error of the file system without its path ("ENOTDIR: not a directory"), for a status. */
export const shortWhy = (why: string): string => why.replace(/, \w+ '[^']*'( -> '[^']*')?$/, '');

/** A send held back because Redis cannot be reached: surely not sent (the outbox keeps it). */
export function redisDownError(why: string): GatewayError {
  return new GatewayError(
    'NETWORK',
    `Redis cannot be reached (${why}): the instances share their rate limit through it, so the message waits in the outbox until Redis is back`,
    { ambiguous: false },
  );
}

/**
 * Version 1 kept the outbox in `<config id>.json` (one JSON document); the journal reads that document as its
 * first line, so moving it to the journal's name is the whole migration (a rename: atomic). Nothing is sent
 * before the journal is open, so a crash around it cannot repeat a send.
 */
async function migrateOutboxFile(file: string): Promise<void> {
  const old = file.replace(/\.jsonl$/, '.json');
  if (old === file) return;
  if (!(await exists(file)) && (await exists(old))) await moveFile(old, file);
}
