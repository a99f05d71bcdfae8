/**
 * The delivery guarantees of one config node (docs/reliability.md): one FlowControl shared by every node
 * using the config, the reference setting, the optional durable outbox in
 * `<userDir>/smsgw-outbox/<config id>.json`, and the connection state (an AUTH failure) fanned out to every
 * node using the config until a call succeeds.
 */
import { mkdir, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import type { Node, NodeAPI } from 'node-red';
import type { GatewayClient } from '../../client';
import { GatewayError, isGatewayError } from '../../errors';
import { clientSender } from '../../reliability/client-sender';
import { FlowControl } from '../../reliability/flow-control';
import { keepByDefault, Outbox, type OutboxEntry } from '../../reliability/outbox';
import { resolveReferenceOptions, type ResolvedReferenceOptions } from '../../reliability/reference';
import { flowOptions, referenceOf } from './client-options';
import { failed, sharedKey } from '../common/status';
import type { SmsgwConfigDef } from './types';

/** What every node using the config shows besides its own state. */
export interface ConfigHealth {
  /** The gateway refused the login (its status), until a call succeeds. */
  authFailed: string | undefined;
  /** Messages waiting in the flow-control queue. */
  depth: number;
  /** Messages kept in the outbox. */
  kept: number;
}

/** What a send waiting for the outbox gets when its entry finally went out. */
export interface OutboxDelivery {
  result: unknown;
  reference: string;
}

interface Waiter {
  resolve(v: OutboxDelivery): void;
  reject(e: unknown): void;
}

/** A kept entry as the editor lists it (never credentials: the outbox does not store them). */
export interface OutboxListing {
  id: string;
  reference: string;
  service: string;
  operation: string;
  createdAt: string;
  attempts: number;
  maybeSent: boolean;
  lastError: string | undefined;
  caption: unknown;
  recipients: unknown;
}

/** Status refreshes of the nodes are coalesced: a queue that moves 200 times a second is shown ~5 times. */
const NOTIFY_MS = 200;

const OUTBOX_DIR = 'smsgw-outbox';

export class ReliabilityHost {
  readonly flow: FlowControl;
  /** The reference added to captions; undefined when the config switched it off. */
  readonly referenceOptions: ResolvedReferenceOptions | undefined;
  /** A setting that cannot work (e.g. a negative rate): every message fails with it. */
  readonly configError: GatewayError | undefined;
  readonly outboxFile: string | undefined;
  private readonly outboxReady: Promise<Outbox | undefined>;
  private authFailed: string | undefined;
  private kept = 0;
  private readonly listeners = new Map<Node, () => void>();
  private readonly waiters = new Map<string, Waiter>();
  private timer: NodeJS.Timeout | undefined;
  private readonly offFlow: () => void;
  private closed = false;

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
    def: SmsgwConfigDef,
    getClient: () => GatewayClient,
    private readonly users: () => Iterable<Node>,
  ) {
    let flow: FlowControl;
    let error: GatewayError | undefined;
    let reference: ResolvedReferenceOptions | undefined;
    try {
      flow = new FlowControl(flowOptions(def));
      const r = referenceOf(def);
      reference = r ? resolveReferenceOptions(r) : undefined;
    } catch (e) {
      error = isGatewayError(e) ? e : new GatewayError('CONFIG', String(e));
      flow = new FlowControl({});
    }
    this.flow = flow;
    this.configError = error;
    this.referenceOptions = reference;
    this.offFlow = flow.onChange(() => this.notify(false));

    if (def.tlsRejectUnauthorized === false && /^https:/i.test(String(def.baseUrl ?? '').trim())) {
      node.warn(RED._(sharedKey('warn.tlsOff')));
    }

    const userDir = (RED.settings as unknown as Record<string, unknown>).userDir;
    this.outboxFile =
      def.outbox === true && typeof userDir === 'string' && userDir !== ''
        ? path.join(userDir, OUTBOX_DIR, `${def.id}.json`)
        : undefined;
    if (def.outbox === true && !this.outboxFile) node.warn(RED._(sharedKey('warn.noUserDir')));
    this.outboxReady = this.outboxFile
      ? this.openOutbox(this.outboxFile, getClient)
      : Promise.resolve(undefined);
  }

  /** The outbox once it is open; undefined when it is off or could not be opened. */
  outbox(): Promise<Outbox | undefined> {
    return this.outboxReady;
  }

  health(): ConfigHealth {
    return { authFailed: this.authFailed, depth: this.flow.depth, kept: this.kept };
  }

  /** A node using the config refreshes its status through `listener`; returns the unsubscribe function. */
  subscribe(user: Node, listener: () => void): () => void {
    this.listeners.set(user, listener);
    return () => {
      if (this.listeners.get(user) === listener) this.listeners.delete(user);
    };
  }

  /**
   * How a call of any node went: an AUTH failure turns every node of the config red ("auth failed") until
   * a call succeeds (`undefined`); other errors leave the state as it is.
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
    }
    this.notify(true);
  }

  /** Resolves when the outbox sends the entry; rejects when it is refused for good, cleared, or `signal` aborts. */
  waitFor(id: string, signal: AbortSignal): Promise<OutboxDelivery> {
    return new Promise<OutboxDelivery>((resolve, reject) => {
      const onAbort = (): void => {
        this.waiters.delete(id);
        reject(
          new GatewayError(
            'TIMEOUT',
            'the node stopped while the message waited in the outbox; it stays there and is sent when the gateway is back',
            { ambiguous: false },
          ),
        );
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(id, {
        resolve: (v) => {
          signal.removeEventListener('abort', onAbort);
          resolve(v);
        },
        reject: (e) => {
          signal.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
    });
  }

  /** The kept entries for the editor. */
  async list(): Promise<{ enabled: boolean; file: string | undefined; entries: OutboxListing[] }> {
    const box = await this.outboxReady;
    const entries = (box?.list() ?? []).map((e) => ({
      id: e.id,
      reference: e.reference,
      service: e.service,
      operation: e.operation,
      createdAt: e.createdAt,
      attempts: e.attempts,
      maybeSent: e.maybeSent,
      lastError: e.lastError,
      caption: e.params.Caption ?? e.params.caption,
      recipients: e.params.Recipient ?? e.params.recipient ?? e.params.Recipients ?? e.params.bRecipient,
    }));
    return {
      enabled: box !== undefined,
      file: this.outboxFile ? path.basename(this.outboxFile) : undefined,
      entries,
    };
  }

  /** Removes every kept entry (they will not be sent); their waiting messages fail. */
  async clear(): Promise<number> {
    const box = await this.outboxReady;
    if (!box) return 0;
    const n = await box.clear();
    for (const [id, w] of this.waiters) {
      this.waiters.delete(id);
      w.reject(
        new GatewayError('REJECTED', 'removed from the outbox before it was sent', { ambiguous: false }),
      );
    }
    return n;
  }

  async close(removed: boolean): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.offFlow();
    this.flow.close();
    const box = await this.outboxReady;
    if (!box) return;
    await box.close();
    // A deleted config node takes its outbox file along, unless messages are still kept in it.
    if (removed && box.size === 0) await unlink(box.file).catch(() => undefined);
    else if (removed)
      this.node.warn(this.RED._(sharedKey('warn.outboxLeft'), { count: box.size, file: box.file }));
  }

  private async openOutbox(file: string, getClient: () => GatewayClient): Promise<Outbox | undefined> {
    try {
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      const settings = this.RED.settings as unknown as Record<string, unknown>;
      const retry = Number(settings.smsgwOutboxRetryInterval) || undefined;
      const box = await Outbox.open({
        file,
        send: clientSender(getClient()),
        // A send cut off by the flow stopping stays kept (the closing client's error is not a refusal).
        keep: (err) => this.closed || keepByDefault(err),
        ...(retry ? { retryIntervalMs: retry, maxRetryIntervalMs: Math.max(retry, 60_000) } : {}),
      });
      for (const w of box.warnings) this.node.warn(w);
      box.on('sent', (entry, result) => this.delivered(entry, result));
      box.on('failed', (entry, error) => this.refused(entry, error));
      box.on('change', (size) => {
        this.kept = size;
        this.notify(true);
      });
      this.kept = box.size;
      if (this.closed) {
        await box.close();
        return undefined;
      }
      return box;
    } catch (e) {
      this.node.error(
        this.RED._(sharedKey('errors.outboxOpen'), { message: e instanceof Error ? e.message : String(e) }),
      );
      return undefined;
    }
  }

  private delivered(entry: OutboxEntry, result: unknown): void {
    this.report(undefined);
    const w = this.waiters.get(entry.id);
    if (w) {
      this.waiters.delete(entry.id);
      w.resolve({ result, reference: entry.reference });
      return;
    }
    // Kept before a restart: no msg waits for it any more; the log says it went out.
    this.node.log(
      this.RED._(sharedKey('log.outboxSent'), { operation: entry.operation, reference: entry.reference }),
    );
  }

  private refused(entry: OutboxEntry, error: unknown): void {
    this.report(error);
    const w = this.waiters.get(entry.id);
    if (w) {
      this.waiters.delete(entry.id);
      w.reject(error);
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
