/**
 * "Coordinate instances through Redis" of one config node (docs/scaling.md): one Redis connection for the
 * config, one lease per trigger kind (shared by that kind's nodes of this config on this instance), the
 * pollers' shared state, and the connection state shown on the nodes. Off by default: then nothing here is
 * built and the Redis client library is never required.
 */
import type { Node, NodeAPI } from 'node-red';
import { GatewayError, isGatewayError } from '../../errors';
import { Lease } from '../../coordination/lease';
import { RedisPollState, RedisQueueState } from '../../coordination/poll-state';
import { RedisLink } from '../../coordination/redis-link';
import { SharedRate } from '../../coordination/shared-rate';
import type { FlowControl } from '../../reliability/flow-control';
import type { OutboxStore } from '../../reliability/outbox-store';
import { FallbackOutboxStore } from '../../coordination/outbox-fallback';
import { SharedOutboxStore } from '../../coordination/shared-outbox';
import { randomBytes } from 'node:crypto';
import { settingsOf } from '../common/fields';
import { KeySpace } from '../../coordination/key-space';
import { StateFile } from '../../store';
import { sharedKey } from '../common/status';
import { StoreWatch } from '../common/state';
import { userDirOf } from '../common/user-dir';
import type { SmsgwConfigDef, SmsgwCredentials } from './types';

export const DEFAULT_LEASE_S = 15;
export const DEFAULT_PREFIX = 'smsgw:';

export interface CoordinationSettings {
  url: string;
  password: string | undefined;
  prefix: string;
  leaseMs: number;
}

/** The coordination fields of a config node, or undefined when the setting is off. */
export function coordinationOf(
  def: SmsgwConfigDef,
  creds: SmsgwCredentials,
): CoordinationSettings | undefined {
  // Judged by their rules (src/nodes/fields/config.ts), the Redis fields only while coordinating.
  const v = settingsOf('smsgw-config', def);
  if (v.coordinate !== true) return undefined;
  return {
    url: v.redisUrl as string,
    password: creds.redisPassword || undefined,
    prefix: v.redisPrefix as string,
    leaseMs: Math.round((v.redisLease as number) * 1000),
  };
}

/** How often the key space is looked at besides every reconnection (a FLUSHALL without a restart). */
export const KEY_SPACE_CHECK_MS = 30_000;

interface LeaseUse {
  lease: Lease;
  users: number;
}

export class CoordinationHost {
  readonly link: RedisLink | undefined;
  /** A setting or a missing package that keeps coordination from working: the pollers show it and wait. */
  readonly error: GatewayError | undefined;
  readonly settings: CoordinationSettings;
  /** Whether the config's keys in Redis are the ones this instance worked with (key-space.ts). */
  readonly keySpace: KeySpace | undefined;
  private readonly leases = new Map<string, LeaseUse>();
  private keySpaceTimer: NodeJS.Timeout | undefined;
  private readonly epochFile: StateFile<{ base?: string; epoch?: string }> | undefined;

  /** `setting` is what coordinationOf() returned, or the error it threw. */
  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
    setting: CoordinationSettings | GatewayError,
  ) {
    let link: RedisLink | undefined;
    let error: GatewayError | undefined;
    this.settings =
      setting instanceof GatewayError
        ? { url: '', password: undefined, prefix: DEFAULT_PREFIX, leaseMs: DEFAULT_LEASE_S * 1000 }
        : setting;
    try {
      if (setting instanceof GatewayError) throw setting;
      link = new RedisLink({ url: setting.url, password: setting.password, prefix: setting.prefix });
      link.on('down', (why) => node.warn(RED._(sharedKey('errors.redisDown'), { message: why })));
      link.on('up', () => node.log(RED._(sharedKey('log.redisUp'))));
    } catch (e) {
      error = isGatewayError(e) ? e : new GatewayError('CONFIG', String(e));
      node.error(RED._(sharedKey('errors.coordination'), { message: error.message }));
    }
    this.link = link;
    this.error = error;
    if (link) {
      // The epoch this instance saw, kept through the store so a Redis emptied while every instance was down is
      // noticed too; a loss is told once (the spending guard says what it means for the counts).
      const watch = new StoreWatch(RED, node);
      this.epochFile = new StateFile(userDirOf(RED), `smsgw-redis.${node.id}`, {
        kind: 'keyspace',
        onDamage: watch.damaged,
        onProblem: watch.report,
      });
      const keySpace = new KeySpace(link, this.settings.prefix + node.id, this.epochFile);
      keySpace.on('lost', (why) =>
        node.error(RED._(sharedKey('errors.keySpaceLost'), { keys: `${keySpace.base}:*`, why })),
      );
      const check = (): void => void keySpace.check().catch(() => undefined);
      link.on('up', check);
      this.keySpaceTimer = setInterval(() => {
        if (link.up) check();
      }, KEY_SPACE_CHECK_MS);
      this.keySpaceTimer.unref?.();
      this.keySpace = keySpace;
    }
  }

  /** Keys of this config node: `<prefix><config id>:<parts>`. */
  key(...parts: string[]): string {
    return this.settings.prefix + [this.node.id, ...parts].join(':');
  }

  /** The lease of a trigger kind (started on first use; give it back with `releaseLease`). */
  lease(kind: string): Lease | undefined {
    if (!this.link) return undefined;
    let use = this.leases.get(kind);
    if (!use) {
      use = {
        lease: new Lease(this.link, this.key(kind, 'lease'), { leaseMs: this.settings.leaseMs }),
        users: 0,
      };
      this.leases.set(kind, use);
      // One line per change of holder: where a failover happened is read from the logs.
      use.lease.on('acquired', () => this.node.log(this.RED._(sharedKey('log.leaseTaken'), { kind })));
      use.lease.on('lost', (reason) =>
        this.node.log(this.RED._(sharedKey('log.leaseLost'), { kind, reason })),
      );
      use.lease.start();
    }
    use.users += 1;
    return use.lease;
  }

  /** One user of the kind's lease stopped; the last one releases it. */
  async releaseLease(kind: string): Promise<void> {
    const use = this.leases.get(kind);
    if (!use) return;
    use.users -= 1;
    if (use.users > 0) return;
    this.leases.delete(kind);
    await use.lease.stop();
  }

  pollState<S>(kind: string, nodeId: string): RedisPollState<S> | undefined {
    if (!this.link) return undefined;
    return new RedisPollState<S>(this.link, this.key(kind, 'lease'), this.key(kind, nodeId));
  }

  /** The shared state of the config's one reader of a queue and of its listeners (`<prefix><config>:<type>:…`). */
  queueState<S, L>(type: string): RedisQueueState<S, L> | undefined {
    if (!this.link) return undefined;
    return new RedisQueueState<S, L>(this.link, this.key(type, 'lease'), this.key(type));
  }

  /** The config's rate limit becomes one token bucket for every instance (`<prefix><config>:rate`). */
  shareRate(flow: FlowControl): void {
    if (!this.link || flow.ratePerSecond <= 0) return;
    const rate = new SharedRate(this.link, this.key('rate'), flow.ratePerSecond, flow.burst);
    flow.share(() => rate.take());
  }

  /**
   * The outbox shared with the other instances (`<prefix><config>:outbox`), with `file` for what Redis cannot
   * take; this instance's lease on it (started here, stopped by the caller) says it is alive.
   */
  sharedOutbox(file: OutboxStore): { store: FallbackOutboxStore; alive: Lease } | undefined {
    if (!this.link) return undefined;
    const instance = randomBytes(6).toString('hex');
    const base = this.key('outbox');
    const alive = new Lease(this.link, SharedOutboxStore.aliveKey(base, instance), {
      leaseMs: this.settings.leaseMs,
    });
    alive.start();
    const shared = new SharedOutboxStore(this.link, base, instance, alive);
    return { store: new FallbackOutboxStore(shared, file), alive };
  }

  /** Why coordination cannot work right now (a setting, the package, Redis unreachable), or undefined. */
  problem(): string | undefined {
    if (this.error) return this.error.message;
    if (this.link && !this.link.up) return this.link.downReason;
    return undefined;
  }

  /**
   * Releases the triggers' leases at once (another instance polls without waiting for them to lapse) and closes
   * the connection once `first` settled (the outbox, which gives its own lease back through it).
   */
  async close(first: Promise<unknown> = Promise.resolve()): Promise<void> {
    if (this.keySpaceTimer) clearInterval(this.keySpaceTimer);
    this.keySpaceTimer = undefined;
    await this.epochFile?.close().catch(() => undefined);
    await Promise.all([...this.leases.values()].map((u) => u.lease.stop()));
    this.leases.clear();
    await first.catch(() => undefined);
    await this.link?.close();
  }
}
