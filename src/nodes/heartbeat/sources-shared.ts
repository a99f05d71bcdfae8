/**
 * The sources of one heartbeat node shared by the instances that coordinate through Redis (docs/scaling.md). Every
 * instance notes the msgs it gets and looks for due sources; each alarm and each "back" is claimed by one script
 * (atomic in Redis), so exactly one instance emits it, whichever instance is alive. No lease: an instance that
 * dies leaves nothing to take over, the others keep looking. Times are Redis's (TIME), so the instances' clocks
 * do not matter.
 *
 *   <prefix><config>:smsgw-heartbeat:<node>:src      HASH  source -> JSON { since, seen, ext, over } (ms)
 *   <prefix><config>:smsgw-heartbeat:<node>:due      ZSET  source -> when it is looked at next (not alarmed ones)
 *   <prefix><config>:smsgw-heartbeat:<node>:meta     HASH  checked -> when an instance last looked (ms)
 *   <prefix><config>:smsgw-heartbeat:<node>:gw       HASH  calls | balance -> JSON of the raised gateway alarm
 *   <prefix><config>:smsgw-heartbeat:<node>:balance  STRING  the instance reading the balance this interval
 *
 * A claim is noted before it is emitted: an instance killed between the two loses that one output (at most once,
 * as on one instance). While Redis cannot be reached nothing is claimed (the status says so); what fell due
 * meanwhile is claimed once it is back. A Redis that lost its data (the config's key space, key-space.ts): the
 * sources this instance knew are watched again from then on, told once.
 */
import type { KeySpace } from '../../coordination/key-space';
import { Script, type RedisLink } from '../../coordination/redis-link';
import {
  gatewayAlarmOf,
  GATEWAY_KINDS,
  periodOf,
  realClock,
  type Clock,
  type GatewayAlarm,
  type GatewayKind,
  type SeenOutcome,
  type SourceCounts,
  type Sources,
  type SourcesDeps,
} from './sources';

/** Each instance looks at least this often (and when the next source is due). */
export const CHECK_EVERY_MS = 5000;
/** Nobody looked for this long: sources that fell due meanwhile get their one extra period. */
export const UNWATCHED_AFTER_MS = 30_000;
/** Due sources claimed per script call (more are taken in the next call at once). */
const BATCH = 500;
/** Calls of one check at most (BATCH x this: every source of a full node). */
const MAX_ROUNDS = 40;

const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function ms(v) return string.format('%.0f', v) end
local function entry(raw)
  if not raw then return nil end
  local ok, e = pcall(cjson.decode, raw)
  if ok and type(e) == 'table' and type(e.since) == 'number' then return e end
  return nil
end`;

/** KEYS: src, due. ARGV: source, period, max. A msg: {'added'|'watched'|'full'} or {'back', lastSeen, over}. */
const SEEN = new Script(`${NOW}
local period = tonumber(ARGV[2])
local raw = redis.call('HGET', KEYS[1], ARGV[1])
local e = entry(raw)
if not e then
  if not raw and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return {'full'} end
  redis.call('HSET', KEYS[1], ARGV[1], cjson.encode({since = now, seen = now}))
  redis.call('ZADD', KEYS[2], now + period, ARGV[1])
  return {'added'}
end
local over = e.over
e.seen = now
e.ext = nil
e.over = nil
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(e))
redis.call('ZADD', KEYS[2], now + period, ARGV[1])
if type(over) == 'number' then return {'back', ms(now), ms(over)} end
return {'watched'}`);

/**
 * KEYS: src, due, meta, gw. ARGV: period, unwatched-after, batch, gap start ('' unless a check continues).
 * Claims the due sources (or gives them their extra period). Returns {claimed (source, lastSeen, late)...,
 * next due, watched, not alarmed, now, last look, '1' unwatched, '1' more due, raised gateway alarms}.
 */
const CHECK = new Script(`${NOW}
local period = tonumber(ARGV[1])
local last, unwatched
if ARGV[4] ~= '' then
  last = tonumber(ARGV[4])
  unwatched = true
else
  last = tonumber(redis.call('HGET', KEYS[3], 'checked') or '0') or 0
  unwatched = (now - last) > tonumber(ARGV[2])
end
redis.call('HSET', KEYS[3], 'checked', ms(now))
local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for i = 1, #due, 2 do
  local src = due[i]
  local at = tonumber(due[i + 1])
  local e = entry(redis.call('HGET', KEYS[1], src))
  if not e or e.over ~= nil then
    redis.call('ZREM', KEYS[2], src)
  elseif unwatched and e.ext == nil and at > last then
    e.ext = now + period
    redis.call('HSET', KEYS[1], src, cjson.encode(e))
    redis.call('ZADD', KEYS[2], e.ext, src)
  else
    local late = (e.seen or e.since) + period
    e.over = late
    e.ext = nil
    redis.call('HSET', KEYS[1], src, cjson.encode(e))
    redis.call('ZREM', KEYS[2], src)
    out[#out + 1] = src
    out[#out + 1] = e.seen and ms(e.seen) or ''
    out[#out + 1] = ms(late)
  end
end
local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
return {out, first[2] or '', redis.call('HLEN', KEYS[1]), redis.call('ZCARD', KEYS[2]), ms(now), ms(last),
  unwatched and '1' or '0', (#due >= tonumber(ARGV[3]) * 2) and '1' or '0', redis.call('HKEYS', KEYS[4])}`);

/**
 * KEYS: src, due. ARGV: period, max, '1' listed ('0' any), sources... With a list: sources not on it go, listed
 * ones not there yet are watched from now. Every source gets its next look for this period; entries that cannot
 * be read go (counted). Returns the count of those.
 */
const START = new Script(`${NOW}
local period = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
local bad = 0
if ARGV[3] == '1' then
  local keep = {}
  for i = 4, #ARGV do keep[ARGV[i]] = true end
  for _, src in ipairs(redis.call('HKEYS', KEYS[1])) do
    if not keep[src] then
      redis.call('HDEL', KEYS[1], src)
      redis.call('ZREM', KEYS[2], src)
    end
  end
end
for i = 4, #ARGV do
  if redis.call('HLEN', KEYS[1]) < max and redis.call('HSETNX', KEYS[1], ARGV[i], cjson.encode({since = now})) == 1 then
    redis.call('ZADD', KEYS[2], now + period, ARGV[i])
  end
end
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local e = entry(all[i + 1])
  if not e then
    bad = bad + 1
    redis.call('HDEL', KEYS[1], all[i])
    redis.call('ZREM', KEYS[2], all[i])
  elseif e.over ~= nil then
    redis.call('ZREM', KEYS[2], all[i])
  else
    redis.call('ZADD', KEYS[2], e.ext or ((e.seen or e.since) + period), all[i])
  end
end
return bad`);

/** KEYS: src, due. ARGV: source. 1 when it was watched. */
const FORGET = new Script(`local n = redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return n`);

/** KEYS: gw. ARGV: kind. The alarm it cleared (JSON), or nil when it was not raised. */
const CLEAR = new Script(`local v = redis.call('HGET', KEYS[1], ARGV[1])
if v then redis.call('HDEL', KEYS[1], ARGV[1]) end
return v`);

/** KEYS: src, due. ARGV: source, period. Watches a source again from now unless it is there. */
const SEEN_AGAIN = new Script(`${NOW}
if redis.call('HSETNX', KEYS[1], ARGV[1], cjson.encode({since = now})) == 1 then
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
end
return 1`);

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
const num = (v: unknown): number | undefined => {
  const t = text(v);
  const n = t === '' ? NaN : Number(t);
  return Number.isFinite(n) ? n : undefined;
};

export class SharedSources implements Sources {
  readonly where: string;
  private readonly keys: { src: string; due: string; meta: string; gw: string; balance: string };
  private readonly clock: Clock;
  private readonly periodMs: number;
  /** The sources this instance saw (watched again after a loss of the shared state). */
  private readonly known = new Set<string>();
  private readonly raisedNow = new Set<GatewayKind>();
  private shown: SourceCounts = { watched: 0, overdue: 0, gateway: [] };
  private timer: unknown;
  private started = false;
  private checking: Promise<void> | undefined;
  private closed = false;
  private readonly offLost: (() => void) | undefined;

  constructor(
    private readonly link: RedisLink,
    /** `<prefix><config>:smsgw-heartbeat:<node>` */
    base: string,
    private readonly deps: SourcesDeps,
    keySpace?: KeySpace,
  ) {
    this.keys = {
      src: `${base}:src`,
      due: `${base}:due`,
      meta: `${base}:meta`,
      gw: `${base}:gw`,
      balance: `${base}:balance`,
    };
    this.where = `Redis ${base}:*`;
    this.clock = deps.clock ?? realClock;
    this.periodMs = periodOf(deps.plan);
    if (keySpace) {
      const onLost = (why: string): void => void this.watchAgain(why);
      keySpace.on('lost', onLost);
      this.offLost = () => keySpace.off('lost', onLost);
    }
  }

  start(): Promise<void> {
    this.tick();
    return Promise.resolve();
  }

  async seen(source: string): Promise<SeenOutcome> {
    const { listed, max } = this.deps.plan;
    if (listed && !listed.has(source)) return 'unlisted';
    const r = list(await this.link.run(SEEN, [this.keys.src, this.keys.due], [source, this.periodMs, max]));
    const outcome = text(r[0]);
    if (outcome === 'full') return 'full';
    this.remember(source);
    if (outcome === 'back') {
      if (!this.closed)
        this.deps.emit({
          type: 'back',
          source,
          lastSeen: num(r[1]) ?? this.clock.now(),
          overdueSince: num(r[2]) ?? 0,
        });
      if (this.shown.overdue > 0) this.show({ ...this.shown, overdue: this.shown.overdue - 1 });
      return 'back';
    }
    if (outcome === 'added') this.show({ ...this.shown, watched: this.shown.watched + 1 });
    return outcome === 'added' ? 'added' : 'watched';
  }

  async forget(source: string): Promise<boolean> {
    this.known.delete(source);
    const n = Number(await this.link.run(FORGET, [this.keys.src, this.keys.due], [source]));
    if (n === 1) this.show({ ...this.shown, watched: Math.max(0, this.shown.watched - 1) });
    return n === 1;
  }

  async raise(kind: GatewayKind, alarm: GatewayAlarm): Promise<boolean> {
    // Raised for this instance at once (by this call or another instance's): a success meanwhile clears it.
    this.raisedNow.add(kind);
    const r = await this.link.command(['HSETNX', this.keys.gw, kind, JSON.stringify(alarm)]);
    if (Number(r) !== 1) return false;
    if (!this.closed) this.deps.emit({ type: 'gatewayDown', kind, alarm });
    this.show({ ...this.shown, gateway: [...this.raisedNow] });
    return true;
  }

  async clear(kind: GatewayKind): Promise<boolean> {
    const r = await this.link.run(CLEAR, [this.keys.gw], [kind]);
    this.raisedNow.delete(kind);
    this.show({ ...this.shown, gateway: [...this.raisedNow] });
    if (r === null || r === undefined) return false;
    let alarm: GatewayAlarm | undefined;
    try {
      alarm = gatewayAlarmOf(JSON.parse(text(r)));
    } catch {
      alarm = undefined;
    }
    if (!this.closed)
      this.deps.emit({ type: 'gatewayBack', kind, alarm: alarm ?? { since: 0 }, at: this.clock.now() });
    return true;
  }

  raised(kind: GatewayKind): boolean {
    return this.raisedNow.has(kind);
  }

  /** One instance reads the balance per interval: true when this one should now. */
  async balanceTurn(everyMs: number): Promise<boolean> {
    const r = await this.link.command([
      'SET',
      this.keys.balance,
      '1',
      'NX',
      'PX',
      String(Math.max(1000, Math.round(everyMs) - 1000)),
    ]);
    return r === 'OK';
  }

  counts(): SourceCounts {
    return this.shown;
  }

  async close(removed: boolean): Promise<void> {
    this.closed = true;
    this.offLost?.();
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await this.checking?.catch(() => undefined);
    // A deleted node's sources go from Redis too; the other instances delete theirs at the same deploy.
    if (removed)
      await this.link
        .command(['DEL', this.keys.src, this.keys.due, this.keys.meta, this.keys.gw, this.keys.balance])
        .catch(() => undefined);
  }

  private remember(source: string): void {
    if (this.known.size < this.deps.plan.max) this.known.add(source);
  }

  private show(counts: SourceCounts): void {
    const s = this.shown;
    this.shown = counts;
    if (
      s.watched !== counts.watched ||
      s.overdue !== counts.overdue ||
      s.gateway.join() !== counts.gateway.join()
    )
      this.deps.changed();
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => this.tick(), Math.max(0, ms));
  }

  private tick(): void {
    this.timer = undefined;
    if (this.closed || this.checking) return;
    this.checking = this.check()
      .then(
        (nextMs) => {
          this.deps.trouble?.(undefined);
          this.schedule(nextMs);
        },
        (err: unknown) => {
          this.deps.trouble?.(err instanceof Error ? err.message : String(err));
          this.schedule(CHECK_EVERY_MS);
        },
      )
      .finally(() => {
        this.checking = undefined;
      });
  }

  /** Brings the sources in line with this node's settings (once per start, and after a loss). */
  private async align(): Promise<void> {
    const { listed, max } = this.deps.plan;
    const bad = Number(
      await this.link.run(
        START,
        [this.keys.src, this.keys.due],
        [this.periodMs, max, listed ? '1' : '0', ...(listed ?? [])],
      ),
    );
    if (bad > 0) this.deps.dropped(bad);
  }

  /** One look: claims what is due, emits it; resolves with the time to the next look. */
  private async check(): Promise<number> {
    if (!this.started) {
      await this.align();
      this.started = true;
    }
    let gapFrom = '';
    let nextMs = CHECK_EVERY_MS;
    for (let round = 0; round < MAX_ROUNDS && !this.closed; round++) {
      const r = list(
        await this.link.run(
          CHECK,
          [this.keys.src, this.keys.due, this.keys.meta, this.keys.gw],
          [this.periodMs, UNWATCHED_AFTER_MS, BATCH, gapFrom],
        ),
      );
      const claimed = list(r[0]).map(text);
      for (let i = 0; i + 2 < claimed.length; i += 3) {
        const source = claimed[i]!;
        this.remember(source);
        if (!this.closed)
          this.deps.emit({
            type: 'overdue',
            source,
            lastSeen: num(claimed[i + 1]),
            overdueSince: num(claimed[i + 2]) ?? 0,
          });
      }
      const watched = Number(r[2]) || 0;
      const pending = Number(r[3]) || 0;
      this.raisedNow.clear();
      for (const k of list(r[8]).map(text))
        if ((GATEWAY_KINDS as readonly string[]).includes(k)) this.raisedNow.add(k as GatewayKind);
      this.show({ watched, overdue: Math.max(0, watched - pending), gateway: [...this.raisedNow] });
      const next = num(r[1]);
      const now = num(r[4]) ?? 0;
      nextMs =
        next === undefined ? CHECK_EVERY_MS : Math.min(CHECK_EVERY_MS, Math.max(1000, next - now + 10));
      if (text(r[7]) !== '1') break;
      gapFrom = text(r[6]) === '1' ? text(r[5]) : '';
    }
    return nextMs;
  }

  /** The shared state was lost: listed and known sources are watched again from now (told once per loss). */
  private async watchAgain(why: string): Promise<void> {
    if (this.closed) return;
    try {
      await this.align();
      await this.readd([...this.known]);
      this.deps.lost?.(why, Number(await this.link.command(['HLEN', this.keys.src])) || 0);
    } catch (e) {
      this.deps.lost?.(`${why} (${e instanceof Error ? e.message : String(e)})`, 0);
    }
    this.tick();
  }

  private async readd(sources: string[]): Promise<void> {
    for (const source of sources)
      await this.link.run(SEEN_AGAIN, [this.keys.src, this.keys.due], [source, this.periodMs]);
  }
}
