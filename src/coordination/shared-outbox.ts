/**
 * The outbox shared by the instances of a config node, in Redis (docs/scaling.md): one queue of entries, each
 * owned (claimed) by one instance at a time. An instance is alive while it holds its own lease
 * (`…:outbox:alive:<instance>`, lease.ts); the entries of an instance whose lease lapsed are claimed by another,
 * which looks each one up by its reference before sending it again (an entry stored as in flight is always
 * looked up first: the write-ahead and lookup-before-retry rules of the file outbox). Every write checks that
 * the writer still owns the entry and still holds its lease (fencing).
 *
 *   <prefix><config>:outbox          HASH  entry id → entry JSON (never credentials)
 *   <prefix><config>:outbox:owner    HASH  entry id → instance id
 *   <prefix><config>:outbox:alive:<instance>   STRING  the instance's lease token
 */
import {
  readEntry,
  type OutboxEntry,
  type OutboxStore,
  type OutboxStoreStats,
} from '../reliability/outbox-store';
import { EntryTakenOver } from '../reliability/outbox-store';
import type { Lease } from './lease';
import { Script, type RedisLink } from './redis-link';

/** KEYS: entries, owners, alive. ARGV: token, instance, id, json. Adds an entry owned by the instance. */
const ADD = new Script(`
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], ARGV[3], ARGV[4])
redis.call('HSET', KEYS[2], ARGV[3], ARGV[2])
return 1`);

/** KEYS: entries, owners, alive. ARGV: token, instance, id, json (empty: only check). */
const UPDATE = new Script(`
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return -1 end
if redis.call('HGET', KEYS[2], ARGV[3]) ~= ARGV[2] then return 0 end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], ARGV[3], ARGV[4]) end
return 1`);

/** KEYS: entries, owners. ARGV: instance, id. A settled entry goes (unless another instance owns it now). */
const REMOVE = new Script(`
local owner = redis.call('HGET', KEYS[2], ARGV[2])
if owner and owner ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[2])
redis.call('HDEL', KEYS[2], ARGV[2])
return 1`);

/**
 * KEYS: entries, owners, alive. ARGV: token, instance, alive key prefix, most. Claims entries whose owner's
 * lease is gone; returns their JSON.
 */
const CLAIM = new Script(`
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return {} end
local owners = redis.call('HGETALL', KEYS[2])
local out = {}
local most = tonumber(ARGV[4])
for i = 1, #owners, 2 do
  local id, owner = owners[i], owners[i + 1]
  if owner ~= ARGV[2] and redis.call('EXISTS', ARGV[3] .. owner) == 0 then
    local json = redis.call('HGET', KEYS[1], id)
    if json then
      redis.call('HSET', KEYS[2], id, ARGV[2])
      out[#out + 1] = json
      if #out >= most then break end
    else
      redis.call('HDEL', KEYS[2], id)
    end
  end
end
return out`);

/**
 * KEYS: entries, owners, alive. ARGV: token, instance, id, json, alive key prefix. Hands an entry of this
 * instance's file over to Redis: 1 added, 2 it was there already (handed over before a crash, its owner gone:
 * owned by this instance now, looked up first), 0 another live instance owns it, -1 this lease is not held.
 */
const HAND_OVER = new Script(`
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return -1 end
local owner = redis.call('HGET', KEYS[2], ARGV[3])
if owner and owner ~= ARGV[2] and redis.call('EXISTS', ARGV[5] .. owner) == 1 then return 0 end
local had = redis.call('HEXISTS', KEYS[1], ARGV[3])
if had == 0 then redis.call('HSET', KEYS[1], ARGV[3], ARGV[4]) end
redis.call('HSET', KEYS[2], ARGV[3], ARGV[2])
if had == 1 then return 2 end
return 1`);

const fenced = (): Error =>
  new Error('this instance lost its outbox lease in Redis (Redis away, or the process was paused)');

export class SharedOutboxStore implements OutboxStore {
  readonly warnings: string[] = [];
  readonly stats: OutboxStoreStats = { records: 0, syncs: 0, bytes: 0, compactions: 0 };
  private readonly entriesKey: string;
  private readonly ownersKey: string;
  private closed = false;

  /** `base` is `<prefix><config>:outbox`; `alive` the instance's lease on `<base>:alive:<instance>`. */
  constructor(
    private readonly link: RedisLink,
    base: string,
    readonly instance: string,
    private readonly alive: Lease,
  ) {
    this.entriesKey = base;
    this.ownersKey = `${base}:owner`;
  }

  get location(): string {
    return `redis ${this.entriesKey}`;
  }

  /** The key prefix of the instances' leases. */
  static aliveKey(base: string, instance: string): string {
    return `${base}:alive:${instance}`;
  }

  private token(): string {
    const hold = this.alive.current();
    if (!hold) throw fenced();
    return hold.token;
  }

  /** A new instance owns nothing: entries come to it by `claim()`. */
  load(): Promise<OutboxEntry[]> {
    return Promise.resolve([]);
  }

  async add(entry: Readonly<OutboxEntry>): Promise<void> {
    const json = JSON.stringify(entry);
    const r = await this.link.run(
      ADD,
      [this.entriesKey, this.ownersKey, this.alive.key],
      [this.token(), this.instance, entry.id, json],
    );
    if (Number(r) !== 1) throw fenced();
    this.count(json);
  }

  async update(entry: Readonly<OutboxEntry>): Promise<void> {
    const json = JSON.stringify(entry);
    await this.check(entry.id, json);
    this.count(json);
  }

  /** Resolves when this instance owns the entry and holds its lease; EntryTakenOver when another owns it. */
  async owns(id: string): Promise<void> {
    await this.check(id, '');
  }

  /**
   * Moves an entry of this instance's file into the shared queue, owned by this instance. Resolves true when
   * Redis held it already (it must be looked up before it is sent); EntryTakenOver when another instance owns it.
   */
  async handOver(entry: Readonly<OutboxEntry>): Promise<boolean> {
    const json = JSON.stringify(entry);
    const r = Number(
      await this.link.run(
        HAND_OVER,
        [this.entriesKey, this.ownersKey, this.alive.key],
        [this.token(), this.instance, entry.id, json, SharedOutboxStore.aliveKey(this.entriesKey, '')],
      ),
    );
    if (r === 0) throw new EntryTakenOver(entry.id);
    if (r !== 1 && r !== 2) throw fenced();
    this.count(json);
    return r === 2;
  }

  async remove(id: string): Promise<void> {
    await this.link.run(REMOVE, [this.entriesKey, this.ownersKey], [this.instance, id]);
    this.count('');
  }

  /** Claims up to `most` entries of instances whose lease lapsed (readable ones; others are warned about). */
  async claim(most = 100): Promise<OutboxEntry[]> {
    if (this.closed) return [];
    const hold = this.alive.current();
    if (!hold) return [];
    const prefix = SharedOutboxStore.aliveKey(this.entriesKey, '');
    const r = await this.link.run(
      CLAIM,
      [this.entriesKey, this.ownersKey, this.alive.key],
      [hold.token, this.instance, prefix, most],
    );
    const out: OutboxEntry[] = [];
    for (const text of Array.isArray(r) ? r : []) {
      let entry: OutboxEntry | undefined;
      try {
        entry = readEntry(JSON.parse(String(text)));
      } catch {
        entry = undefined;
      }
      if (entry) out.push(entry);
      else this.warnings.push(`outbox: an unreadable entry in ${this.entriesKey} was left there`);
    }
    return out;
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }

  private async check(id: string, json: string): Promise<void> {
    const r = Number(
      await this.link.run(
        UPDATE,
        [this.entriesKey, this.ownersKey, this.alive.key],
        [this.token(), this.instance, id, json],
      ),
    );
    if (r === 0) throw new EntryTakenOver(id);
    if (r !== 1) throw fenced();
  }

  private count(json: string): void {
    this.stats.records++;
    this.stats.bytes += json.length;
  }
}
