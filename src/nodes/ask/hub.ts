/**
 * One ask hub per gateway configuration: the open questions of every ask node using it, so a code
 * is unique across them and a reply answers one question, whichever node asked. It is one listener of the config
 * node's reader of inbound messages, asks the reader to read while questions are open, and sends through the send
 * path of the send SMS node (reference in the Caption, outbox, flow control, checks). Built with its first ask
 * node, closed with its last one.
 *
 * With "Coordinate instances through Redis" the questions live in Redis and the instance holding the lease of the
 * inbound reader acts on them (it is the one the replies reach); the others hand questions and cancellations in.
 */
import type { Node, NodeAPI } from 'node-red';
import { findOperation } from '../../catalogue';
import type { Lease } from '../../coordination/lease';
import { GatewayError } from '../../errors';
import { coerceParams } from '../common/operations';
import type { SmsgwConfigNode } from '../config/config-node';
import { sendOutcome } from '../send/results';
import { sendMessage } from '../send/send-path';
import { INBOUND } from '../polling/queue-kinds';
import { damageParams, type StateDamage, type StoreProblem } from '../../store';
import { reportStoreProblem } from '../common/state';
import { AskEngine, type AskNodeHandle, type Authority } from './engine';
import { numberKey } from './numbers';
import type { AskSms, CancelRequest, Question } from './question';
import type { ReplySource, ReplySubscription } from './replies';
import { FileAskStore, type AskStore, type Hold } from './store';
import { RedisAskStore } from './store-redis';
import { userDirOf } from '../common/user-dir';

/** The lease the config node's inbound reader holds under coordination: the hub acts where the replies are read. */
export const INBOUND_LEASE = INBOUND.type;
/** How often a holder looks for questions another instance handed in. */
export const INBOX_EVERY_MS = 1000;
/** Outcomes of outbox entries nobody waited for are kept this long for a step that looks for them. */
const RESTORED_KEEP_MS = 10 * 60_000;

export interface AskNodeBinding extends AskNodeHandle {
  /** How often replies are read while its questions are open. */
  intervalMs: number;
  /** The node: its log lines (and a Catch node, for an error with a msg) name it. */
  node: Node;
}

const SEND_SMS = findOperation('send', 'SendSMS')!;

class LocalAuthority implements Authority {
  private readonly hold: Hold = { token: 'local', generation: 1 };
  current(): Hold {
    return this.hold;
  }
  isCurrent(): boolean {
    return true;
  }
  onAcquired(): void {}
  onLost(): void {}
}

class LeaseAuthority implements Authority {
  private readonly added: ['acquired' | 'lost', () => void][] = [];
  constructor(private readonly lease: Lease) {}
  current(): Hold | undefined {
    return this.lease.current();
  }
  isCurrent(hold: Hold): boolean {
    return this.lease.isCurrent(hold);
  }
  onAcquired(listener: () => void): void {
    this.lease.on('acquired', listener);
    this.added.push(['acquired', listener]);
  }
  onLost(listener: () => void): void {
    this.lease.on('lost', listener);
    this.added.push(['lost', listener]);
  }
  /** The lease is the config's (the inbound reader's too): a closed hub's listeners leave it. */
  dispose(): void {
    for (const [event, listener] of this.added.splice(0)) this.lease.off(event, listener);
  }
}

const hubs = new WeakMap<SmsgwConfigNode, AskHub>();

export class AskHub {
  readonly engine: AskEngine;
  /** The outbox's origin of this hub's messages: outcomes after a restart come back to it. */
  readonly origin: string;
  readonly coordinated: boolean;
  private readonly store: AskStore;
  private readonly nodes = new Map<string, AskNodeBinding>();
  private subscription: ReplySubscription | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private readonly restored = new Map<string, { result?: unknown; error?: unknown; until: number }>();
  private readonly waiters = new Map<string, (o: { result?: unknown; error?: unknown }) => void>();
  private readonly unsubscribeRestored: (() => void) | undefined;
  private closing: Promise<void> | undefined;
  private lastPollError: string | undefined;
  private storeTrouble: StoreProblem | undefined;

  private constructor(
    private readonly RED: NodeAPI,
    private readonly config: SmsgwConfigNode,
    private readonly replies: ReplySource | undefined,
  ) {
    this.origin = `smsgw-ask:${config.id}`;
    const coordination = config.coordination;
    this.coordinated = coordination !== undefined;
    let authority: Authority = new LocalAuthority();
    const lease = coordination?.lease(INBOUND_LEASE);
    const dropped = (count: number): void => this.report(droppedText(RED, count, this.store.where));
    if (coordination && coordination.link && lease) {
      this.store = new RedisAskStore(coordination.link, lease.key, coordination.key('smsgw-ask'), dropped);
      authority = new LeaseAuthority(lease);
    } else {
      this.store = new FileAskStore(userDirOf(RED), config.id, {
        onDamaged: (d) => this.report(damagedText(RED, d)),
        onDropped: dropped,
        onProblem: (p) => this.storeProblem(p),
      });
    }
    this.engine = new AskEngine({
      store: this.store,
      authority,
      send: (q, sms, resume, signal) => this.send(q, sms, resume, signal),
      numberKey: (text) => numberKey(text, this.country()),
      warn: (text) => config.warn(text),
      firstRead: () => this.subscription?.pollNow() ?? Promise.resolve(),
      inboxEveryMs: this.coordinated ? INBOX_EVERY_MS : 0,
      referenceLength: config.reliability?.referenceOptions?.length ?? 10,
    });
    this.unsubscribeRestored = config.reliability?.subscribeRestored(
      this.origin,
      ({ entry, result, error }) => {
        const waiter = this.waiters.get(entry.reference);
        if (waiter) return waiter({ result, error });
        const now = Date.now();
        for (const [ref, o] of this.restored) if (o.until < now) this.restored.delete(ref);
        this.restored.set(entry.reference, { result, error, until: now + RESTORED_KEEP_MS });
      },
    );
  }

  /**
   * Listens to the replies (after the hub before it, still closing, stopped listening under the same id) and
   * starts acting on the questions.
   */
  private async open(before: Promise<void>): Promise<void> {
    await before.catch(() => undefined);
    if (this.closing) return;
    if (this.replies) {
      this.subscription = this.replies({
        id: this.origin,
        take: (list) => this.engine.take(list),
      });
    }
    // A coordination that cannot work (a setting, the package) keeps it idle: inputs are refused with why.
    if (!this.config.coordination?.error) await this.engine.start();
  }

  /** The hub of a configuration if one runs (the panel asks without building one). */
  static existing(config: SmsgwConfigNode): AskHub | undefined {
    const hub = hubs.get(config);
    return hub && !hub.closing ? hub : undefined;
  }

  /** The hub of a configuration, built on first use. */
  static of(RED: NodeAPI, config: SmsgwConfigNode, replies: ReplySource | undefined): AskHub {
    let hub = hubs.get(config);
    if (!hub || hub.closing) {
      const before = hub?.closing ?? Promise.resolve();
      hub = new AskHub(RED, config, replies);
      hubs.set(config, hub);
      void hub
        .open(before)
        .catch((err: unknown) => hub!.report(err instanceof Error ? err.message : String(err)));
    }
    return hub;
  }

  /** The first ask node (its log lines name it), or the config node when none runs yet. */
  private first(): Node {
    return this.nodes.values().next().value?.node ?? (this.config as unknown as Node);
  }

  /** One error line in the log, on the first ask node (the config node's when none runs yet). */
  private report(text: string): void {
    this.first().error(text);
  }

  /**
   * The questions cannot be saved (told once, an error a Catch node of the first ask node hears), or can again
   * (one log line): every ask node shows it meanwhile (a red ring), and nothing follows from a change until then.
   */
  private storeProblem(p: StoreProblem | undefined): void {
    const last = this.storeTrouble;
    this.storeTrouble = p;
    reportStoreProblem(this.RED, this.first(), p, last);
    for (const n of this.nodes.values()) n.changed();
  }

  /** Why the questions cannot be read or saved now (the nodes show it), or undefined. */
  get saveProblem(): StoreProblem | undefined {
    return this.storeTrouble;
  }

  /** Why questions cannot be kept or answered here, or undefined. */
  problem(): string | undefined {
    if (!this.replies) return 'this gateway configuration cannot read inbound messages';
    const c = this.config.coordination;
    if (c) return c.problem();
    return undefined;
  }

  get holding(): boolean {
    return this.engine.holding;
  }

  /** The last read of replies failed: why (for the status), until one succeeds. */
  get pollError(): string | undefined {
    return this.lastPollError;
  }

  register(nodeId: string, binding: AskNodeBinding): void {
    this.nodes.set(nodeId, binding);
    this.engine.register(nodeId, {
      output: (q) => binding.output(q),
      failed: (q, sms, err) => binding.failed(q, sms, err),
      quiet: (q, until) => binding.quiet?.(q, until),
      changed: () => {
        binding.changed();
        this.schedulePoll();
      },
    });
  }

  /** The node stopped; the last one closes the hub (`removed`: deleted, its questions go). */
  async unregister(nodeId: string, removed: boolean): Promise<void> {
    this.nodes.delete(nodeId);
    await this.engine.unregister(nodeId, removed);
    if (this.nodes.size > 0) return;
    this.closing ??= this.close(removed);
    await this.closing;
  }

  ask(q: Question): Promise<void> {
    return this.engine.ask(q);
  }

  /** A cancel or resolve; how many questions it closed when this instance applied it (else undefined). */
  cancel(c: CancelRequest): Promise<number | undefined> {
    return this.engine.cancel(c);
  }

  private country(): Parameters<typeof numberKey>[1] {
    try {
      return this.config.getClient().recipientRules?.defaultCountry;
    } catch {
      return undefined;
    }
  }

  /**
   * Reads replies at the shortest interval of the nodes while questions are open here, and while answered ones are
   * kept for a late acknowledger (an hour).
   */
  private schedulePoll(): void {
    if (this.pollTimer || !this.subscription || this.closing) return;
    if (!this.engine.holding || !this.engine.listening) return;
    const every = Math.min(...[...this.nodes.values()].map((n) => n.intervalMs));
    this.pollTimer = setTimeout(
      () => {
        this.pollTimer = undefined;
        if (!this.subscription || this.closing) return;
        void this.subscription
          .pollNow()
          .then(
            () => {
              this.lastPollError = undefined;
            },
            (err: unknown) => {
              this.lastPollError = err instanceof Error ? err.message : String(err);
              for (const n of this.nodes.values()) n.changed();
            },
          )
          .finally(() => this.schedulePoll());
      },
      Math.max(1000, every),
    );
  }

  /** One SMS of a question through the send path of the send SMS node. */
  private async send(
    q: Question,
    sms: AskSms,
    resume: boolean,
    signal: AbortSignal,
  ): Promise<number | undefined> {
    if (resume) {
      const known = this.restored.get(sms.reference);
      if (known) return outcome(known);
      const box = await this.config.reliability?.outbox();
      // Still in the outbox (accepted before the stop): it goes from there; its outcome comes back here.
      if (box?.list().some((e) => e.reference === sms.reference))
        return outcome(await this.waitRestored(sms.reference, signal));
    }
    const params = coerceParams(SEND_SMS, {
      Caption: q.settings.caption,
      Sender: q.settings.sender,
      Recipient: [sms.to],
      SMSText: sms.text,
      SmsTyp: q.settings.smsType || 'Standard',
      SendDate: null,
    });
    const sent = await sendMessage(this.config, SEND_SMS, params, signal, {
      origin: this.origin,
      reference: sms.reference,
      // Escalation steps marked critical (or a critical msg) may use the spending guard's reserve.
      priority: sms.critical ? 'critical' : undefined,
      ...(resume ? { lookupFirst: { since: sms.at } } : {}),
    });
    return jobIdOf(sendOutcome(sent.value).JobId);
  }

  private waitRestored(
    reference: string,
    signal: AbortSignal,
  ): Promise<{ result?: unknown; error?: unknown }> {
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.waiters.delete(reference);
        reject(
          new GatewayError('CONFIG', 'stopped while the message waits in the outbox', { ambiguous: true }),
        );
      };
      this.waiters.set(reference, (o) => {
        this.waiters.delete(reference);
        signal.removeEventListener('abort', onAbort);
        resolve(o);
      });
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private async close(removed: boolean): Promise<void> {
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    this.unsubscribeRestored?.();
    await this.engine.close();
    await this.subscription?.close(removed).catch(() => undefined);
    this.subscription = undefined;
    if (this.coordinated) await this.config.coordination?.releaseLease(INBOUND_LEASE);
    if (hubs.get(this.config) === this) hubs.delete(this.config);
  }
}

// The ask node's message catalogue, named in full (this file is not named after the node).
const droppedText = (RED: NodeAPI, count: number, where: string): string =>
  RED._('@smsgw/node-red-sms-gateway/smsgw-ask:smsgw-ask.errors.questionsDropped', { count, where });
const damagedText = (RED: NodeAPI, d: StateDamage): string =>
  RED._(
    `@smsgw/node-red-sms-gateway/smsgw-ask:smsgw-ask.errors.${d.kind === 'missing' ? 'stateMissing' : 'stateDamaged'}`,
    damageParams(d),
  );

function outcome(o: { result?: unknown; error?: unknown }): number | undefined {
  if (o.error !== undefined) throw o.error;
  return jobIdOf(sendOutcome(o.result).JobId);
}

function jobIdOf(v: unknown): number | undefined {
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}
