/**
 * A polling trigger's state shared by every instance, in Redis: its own state (cursor, seen ids) as one JSON
 * string, and the records read but not yet handed to the flow as a hash (field = a key that sorts in read
 * order, value = the encoded msg). Only the lease holder writes, through scripts that check its token.
 *
 *   <prefix><config id>:<node type>:<node id>:state    STRING  JSON of the node's state
 *   <prefix><config id>:<node type>:<node id>:pending  HASH    key → encoded msg
 */
import { randomBytes } from 'node:crypto';
import { Script, type RedisLink } from './redis-link';
import type { Hold } from './lease';

/**
 * Stage a poll: the new state and the records it read, in one step, if the token still holds the lease.
 * A destructive read (`ARGV[3] == '1'`: the gateway has marked the records collected) keeps its records even
 * when the lease was lost meanwhile: nobody else can read them again, so the next holder hands them on.
 * KEYS[4], when given, marks the batch as staged (a day): staging it again after an answer lost with the
 * connection changes nothing, so records handed on and dropped meanwhile do not come back.
 */
export const STAGE = new Script(`
local held = redis.call('GET', KEYS[1]) == ARGV[1]
if not held and ARGV[3] ~= '1' then return 0 end
if KEYS[4] and not redis.call('SET', KEYS[4], '1', 'NX', 'EX', 86400) then return held and 1 or -1 end
if held then redis.call('SET', KEYS[2], ARGV[2]) end
for i = 4, #ARGV, 2 do redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
if held then return 1 end
return -1`);

/** A record was handed to the flow: drop it from the pending hash (holder only). */
export const DONE = new Script(
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('HDEL', KEYS[2], ARGV[2]) + 1 end return 0",
);

export interface PendingEntry {
  key: string;
  /** The encoded msg (JSON-safe). */
  value: unknown;
}

export type StageOutcome = 'staged' | 'lost' | 'handed-over';

export class RedisPollState<S> {
  readonly stateKey: string;
  readonly pendingKey: string;
  private readonly tag = randomBytes(4).toString('hex');
  private seq = 0;

  constructor(
    private readonly link: RedisLink,
    private readonly leaseKey: string,
    base: string,
  ) {
    this.stateKey = `${base}:state`;
    this.pendingKey = `${base}:pending`;
  }

  /** The saved state (undefined when none) and the pending records in read order. */
  async load(): Promise<{ state: S | undefined; pending: PendingEntry[] }> {
    const [raw, hash] = await Promise.all([
      this.link.command(['GET', this.stateKey]),
      this.link.command(['HGETALL', this.pendingKey]),
    ]);
    const state = typeof raw === 'string' && raw !== '' ? (JSON.parse(raw) as S) : undefined;
    const pending: PendingEntry[] = [];
    for (const [key, text] of pairs(hash)) {
      try {
        pending.push({ key, value: JSON.parse(text) as unknown });
      } catch {
        // An unreadable entry is not ours to drop silently: it stays for a person to look at.
      }
    }
    pending.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { state, pending };
  }

  /** The saved state alone (undefined when none). */
  async loadState(): Promise<S | undefined> {
    const raw = await this.link.command(['GET', this.stateKey]);
    return typeof raw === 'string' && raw !== '' ? (JSON.parse(raw) as S) : undefined;
  }

  /** Records pending. */
  async size(): Promise<number> {
    return Number(await this.link.command(['HLEN', this.pendingKey]));
  }

  /** Keys that sort in read order across instances and polls (time, then a per-instance tag and counter). */
  nextKeys(n: number): string[] {
    const t = Date.now().toString(36).padStart(10, '0');
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(`${t}.${this.tag}.${(this.seq++).toString(36).padStart(8, '0')}`);
    return out;
  }

  async stage(hold: Hold, state: S, entries: PendingEntry[], destructive: boolean): Promise<StageOutcome> {
    const args: string[] = [hold.token, JSON.stringify(state), destructive ? '1' : '0'];
    for (const e of entries) args.push(e.key, JSON.stringify(e.value));
    const keys = [this.leaseKey, this.stateKey, this.pendingKey];
    // Batch keys are unique (time, instance tag, counter): the first one names the batch.
    if (destructive && entries.length > 0) keys.push(`${this.pendingKey}:staged:${entries[0]!.key}`);
    const r = Number(await this.link.run(STAGE, keys, args));
    return r === 1 ? 'staged' : r === -1 ? 'handed-over' : 'lost';
  }

  /**
   * Drops a record this instance handed on but could not note (Redis was away), whoever holds the lease now:
   * a record that was handed on never needs to stay, and a new holder must not hand it on again.
   */
  async forget(key: string): Promise<void> {
    await this.link.command(['HDEL', this.pendingKey, key]);
  }

  /** False when the lease is no longer held by this token. */
  async done(hold: Hold, key: string): Promise<boolean> {
    const r = Number(await this.link.run(DONE, [this.leaseKey, this.pendingKey], [hold.token, key]));
    return r > 0;
  }
}

/** HGETALL answers a flat array (RESP2) or an object/Map (RESP3), depending on the client. */
function pairs(hash: unknown): [string, string][] {
  if (Array.isArray(hash)) {
    const out: [string, string][] = [];
    for (let i = 0; i + 1 < hash.length; i += 2) out.push([String(hash[i]), String(hash[i + 1])]);
    return out;
  }
  if (hash instanceof Map) return [...hash].map(([k, v]) => [String(k), String(v)]);
  if (hash && typeof hash === 'object')
    return Object.entries(hash as Record<string, unknown>).map(([k, v]) => [k, String(v)]);
  return [];
}

/**
 * Stage a poll of a config's one reader of a queue: the reader's state and, for each listener, its
 * state and the records read for it, in one step, if the token still holds the lease (a destructive read keeps its
 * records even without it, as STAGE does).
 * KEYS: 1 lease, 2 reader state, 3 batch marker, then per listener its state and its pending hash.
 * ARGV: 1 token, 2 reader state JSON, 3 destructive ('1'), 4 use the marker ('1'), 5 listeners, then per listener
 * its state JSON, the number of records and that many key/value pairs.
 */
export const STAGE_QUEUE = new Script(`
local held = redis.call('GET', KEYS[1]) == ARGV[1]
if not held and ARGV[3] ~= '1' then return 0 end
if ARGV[4] == '1' and not redis.call('SET', KEYS[3], '1', 'NX', 'EX', 86400) then return held and 1 or -1 end
if held then redis.call('SET', KEYS[2], ARGV[2]) end
local a = 6
for i = 1, tonumber(ARGV[5]) do
  if held then redis.call('SET', KEYS[2 + 2 * i], ARGV[a]) end
  local m = tonumber(ARGV[a + 1])
  a = a + 2
  for j = 1, m do
    redis.call('HSET', KEYS[3 + 2 * i], ARGV[a], ARGV[a + 1])
    a = a + 2
  end
end
if held then return 1 end
return -1`);

/** What one listener gets staged: its new state and the records read for it. */
export interface ListenerStage<L> {
  pending: RedisPollState<L>;
  state: L;
  entries: PendingEntry[];
}

/**
 * The shared state of a config's one reader of a queue the gateway empties, and of its listeners:
 *
 *   <prefix><config id>:<type>:state                  STRING  JSON of the reader's state
 *   <prefix><config id>:<type>:<listener id>:state    STRING  JSON of the listener's state (the keys it was given)
 *   <prefix><config id>:<type>:<listener id>:pending  HASH    key → encoded record not yet handed to it
 *   <prefix><config id>:<type>:staged:<key>           STRING  a destructive read's batch was staged (a day)
 *   <prefix><config id>:<type>:marks                  HASH    record key → what the first takers marked (a week)
 *
 * A listener's keys are those a trigger of earlier versions used for itself, so what it left is handed on.
 */
/** Marks are kept as long as records are kept for a listener that is away (the reader's AWAY_MS). */
const MARKS_KEEP_MS = 7 * 86_400_000;

export class RedisQueueState<S, L> {
  readonly stateKey: string;

  constructor(
    private readonly link: RedisLink,
    private readonly leaseKey: string,
    private readonly base: string,
  ) {
    this.stateKey = `${base}:state`;
  }

  /** What the first takers marked on records (record key → JSON object), while listeners still owe them. */
  get marksKey(): string {
    return `${this.base}:marks`;
  }

  /** Notes marks of records (a week: as long as records are kept for a listener that is away). */
  async putMarks(marks: readonly [string, object][]): Promise<void> {
    if (marks.length === 0) return;
    const args = ['HSET', this.marksKey];
    for (const [key, m] of marks) args.push(key, JSON.stringify(m));
    await this.link.command(args);
    await this.link.command(['PEXPIRE', this.marksKey, String(MARKS_KEEP_MS)]);
  }

  /** The marks of these record keys (undefined where none, or unreadable). */
  async getMarks(keys: readonly string[]): Promise<(unknown | undefined)[]> {
    if (keys.length === 0) return [];
    const raw = (await this.link.command(['HMGET', this.marksKey, ...keys])) as unknown;
    const list = Array.isArray(raw) ? raw : [];
    return keys.map((_k, i) => {
      const text = list[i];
      if (typeof text !== 'string') return undefined;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return undefined;
      }
    });
  }

  /** Marks a destructive read's batch as staged (a day): `<base>:staged:<first key>`. */
  markerKey(first: string): string {
    return `${this.base}:staged:${first}`;
  }

  /** The pending hash and state of one listener (load, done, forget, nextKeys as for a trigger). */
  listener(id: string): RedisPollState<L> {
    return new RedisPollState<L>(this.link, this.leaseKey, `${this.base}:${id}`);
  }

  async load(): Promise<S | undefined> {
    const raw = await this.link.command(['GET', this.stateKey]);
    return typeof raw === 'string' && raw !== '' ? (JSON.parse(raw) as S) : undefined;
  }

  /**
   * Sets a batch marker that is not set yet (a day): true when this call set it. A read whose holder vanished is
   * recovered by the next holder only after it claimed the read's marker, so a late stage of that read writes nothing.
   */
  async claim(marker: string): Promise<boolean> {
    const r = await this.link.command(['SET', this.markerKey(marker), '1', 'NX', 'EX', '86400']);
    return r !== null && r !== undefined;
  }

  async stage(
    hold: Hold,
    state: S,
    listeners: ListenerStage<L>[],
    destructive: boolean,
    marker: string | undefined,
  ): Promise<StageOutcome> {
    const keys = [this.leaseKey, this.stateKey, marker ? this.markerKey(marker) : this.stateKey];
    const args: string[] = [
      hold.token,
      JSON.stringify(state),
      destructive ? '1' : '0',
      destructive && marker ? '1' : '0',
      String(listeners.length),
    ];
    for (const l of listeners) {
      keys.push(l.pending.stateKey, l.pending.pendingKey);
      args.push(JSON.stringify(l.state), String(l.entries.length));
      for (const e of l.entries) args.push(e.key, JSON.stringify(e.value));
    }
    const r = Number(await this.link.run(STAGE_QUEUE, keys, args));
    return r === 1 ? 'staged' : r === -1 ? 'handed-over' : 'lost';
  }
}
