/**
 * The spending guard's counts shared by every instance of a config node, in Redis (docs/scaling.md): one count
 * across the instances. A reservation is one Lua script (checks every window and counts, atomically), the same
 * rule as the file ledger's BudgetBook (reliability/budget-ledger.ts): 32 instances reserving at once near a
 * limit cannot pass it. The day and month are the calling instance's local dates (the instances share a time
 * zone), the hour is counted per second of the caller's clock (the instances' clocks agree, NTP).
 *
 *   <base>:hours          ZSET   second → second (the seconds of the rolling hour that hold a count)
 *   <base>:hour           HASH   second → units
 *   <base>:state          HASH   hourTotal, hourWarnedAt, hourLimitedAt (ms)
 *   <base>:day:<date>     HASH   count, warned, limited      expires 32 days after the day (the Spend history)
 *   <base>:month:<month>  HASH   count, warned, limited      expires 62 days after the month
 *   <base>:pending:<key>  STRING cost|second|date|month      a reservation not settled yet (expires in 40 days)
 *   <base>:latest         HASH   day, month                   the latest date counted in (expires in 93 days)
 *   <base>:spent          HASH   clock hour (ms / 3,600,000) → units of the last 24 hours (the Spend history)
 *
 * <base> is `<prefix><config id>:budget`. Every script first runs the key space's check (key-space.ts): a Redis
 * that lost its data (the epoch gone or replaced) marks the counts lost, and while they are, no reservation is
 * made: the guard counts every limit as reached until a person confirms. A clock set back never opens a new
 * window: the latest day and month counted in stay the current ones.
 */
import {
  HISTORY_DAYS,
  HISTORY_HOURS,
  historyHours,
  PENDING_KEEP_MS,
  type SpendHistory,
  type BudgetLedger,
  type CountsConfirmed,
  type CountsLost,
  type ReserveAnswer,
  type ReserveRequest,
  type WindowCounts,
} from '../reliability/budget-ledger';
import { HOUR_MS, type BudgetWindow } from '../reliability/budget-windows';
import { EPOCH_CHECK, KeySpace, newEpoch } from './key-space';
import { Script, type RedisLink } from './redis-link';

/** Drops the seconds that have left the rolling hour; leaves the hour's total in `total`. KEYS 1-3, `now`, `HOUR`. */
const EXPIRE_HOUR = `
local cutoff = math.floor((now - HOUR) / 1000) - 1
local total = tonumber(redis.call('HGET', KEYS[3], 'hourTotal') or '0')
local old = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', cutoff)
if #old > 0 then
  local counts = redis.call('HMGET', KEYS[2], unpack(old))
  for i = 1, #old do total = total - (tonumber(counts[i]) or 0) end
  redis.call('HDEL', KEYS[2], unpack(old))
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', cutoff)
end
if total < 0 or redis.call('ZCARD', KEYS[1]) == 0 then total = 0 end
`;

/**
 * The day and month that count now: the caller's, or a later one counted in before (its clock went back).
 * KEYS[4] latest, `day`, `month`, `dayPrefix`, `monthPrefix`; leaves `dayKey`, `monthKey`.
 */
const LATEST = `
local lastDay = redis.call('HGET', KEYS[4], 'day')
local lastMonth = redis.call('HGET', KEYS[4], 'month')
if lastDay and lastDay > day then day = lastDay end
if lastMonth and lastMonth > month then month = lastMonth end
local dayKey = dayPrefix .. day
local monthKey = monthPrefix .. month
`;

/**
 * KEYS: hours, hour, state, latest, pending, epoch, lost, confirmed, spent. ARGV: cost, now, day, month, limit
 * hour/day/month (-1 = none), warn at hour/day/month (-1 = none), day ttl, month ttl, pending ttl, hour (ms),
 * day key prefix, month key prefix, known epoch, fresh epoch, history hours.
 * Returns {result (-1 lost, 0 refused, 1 reserved, 2 pending), hour, day, month, over, warned, limited,
 * hourFreeAt (-1), epoch, lost marker ('')}; windows as letters h, d, m.
 */
export const RESERVE = new Script(`
local cost = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local HOUR = tonumber(ARGV[14])
local day, month, dayPrefix, monthPrefix = ARGV[3], ARGV[4], ARGV[15], ARGV[16]
local ke, kl, kc, known, fresh = KEYS[6], KEYS[7], KEYS[8], ARGV[17], ARGV[18]
${EPOCH_CHECK}
${EXPIRE_HOUR}
${LATEST}
local names = {'h', 'd', 'm'}
local limits = {tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])}
local warnAt = {tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])}
local ttl = {0, tonumber(ARGV[11]), tonumber(ARGV[12])}
local periodKeys = {'', dayKey, monthKey}
local counts = {total, tonumber(redis.call('HGET', dayKey, 'count') or '0'), tonumber(redis.call('HGET', monthKey, 'count') or '0')}
local function touch()
  redis.call('HSET', KEYS[3], 'hourTotal', counts[1])
  for _, k in ipairs({KEYS[1], KEYS[2], KEYS[3]}) do redis.call('PEXPIRE', k, HOUR * 2) end
end
local function first(i, flag)
  if i == 1 then
    local field = flag == 'warned' and 'hourWarnedAt' or 'hourLimitedAt'
    local last = tonumber(redis.call('HGET', KEYS[3], field) or '-1')
    if last >= 0 and now - last < HOUR then return false end
    redis.call('HSET', KEYS[3], field, ARGV[2])
    return true
  end
  local key = periodKeys[i]
  if redis.call('HGET', key, flag) == '1' then return false end
  redis.call('HSET', key, flag, '1')
  redis.call('PEXPIRE', key, ttl[i])
  return true
end
if redis.call('EXISTS', KEYS[5]) == 1 then
  touch()
  return {2, counts[1], counts[2], counts[3], '', '', '', -1, epoch, lostMark or ''}
end
if lostMark then
  return {-1, counts[1], counts[2], counts[3], '', '', '', -1, epoch, lostMark}
end
local over = ''
for i = 1, 3 do
  if limits[i] >= 0 and counts[i] + cost > limits[i] then over = over .. names[i] end
end
if over ~= '' then
  local limited = ''
  for i = 1, 3 do
    if string.find(over, names[i], 1, true) and first(i, 'limited') then limited = limited .. names[i] end
  end
  local free = -1
  if string.find(over, 'h', 1, true) then
    local secs = redis.call('ZRANGE', KEYS[1], 0, -1)
    if #secs > 0 then
      local units = redis.call('HMGET', KEYS[2], unpack(secs))
      local left = counts[1]
      for i = 1, #secs do
        left = left - (tonumber(units[i]) or 0)
        if left + cost <= limits[1] then
          free = (tonumber(secs[i]) + 1) * 1000 + HOUR
          break
        end
      end
    end
  end
  touch()
  return {0, counts[1], counts[2], counts[3], over, '', limited, free, epoch, ''}
end
local sec = math.floor(now / 1000)
redis.call('HINCRBY', KEYS[2], sec, cost)
redis.call('ZADD', KEYS[1], sec, sec)
counts[1] = counts[1] + cost
counts[2] = redis.call('HINCRBY', dayKey, 'count', cost)
counts[3] = redis.call('HINCRBY', monthKey, 'count', cost)
redis.call('PEXPIRE', dayKey, ttl[2])
redis.call('PEXPIRE', monthKey, ttl[3])
redis.call('HSET', KEYS[4], 'day', day, 'month', month)
redis.call('PEXPIRE', KEYS[4], ttl[3])
redis.call('SET', KEYS[5], cost .. '|' .. sec .. '|' .. day .. '|' .. month, 'PX', ARGV[13])
local clockHour = math.floor(now / HOUR)
local keepHours = tonumber(ARGV[19])
redis.call('HINCRBY', KEYS[9], clockHour, cost)
for _, f in ipairs(redis.call('HKEYS', KEYS[9])) do
  if tonumber(f) <= clockHour - keepHours then redis.call('HDEL', KEYS[9], f) end
end
redis.call('PEXPIRE', KEYS[9], HOUR * (keepHours + 1))
touch()
local warned = ''
for i = 1, 3 do
  if warnAt[i] >= 0 and counts[i] >= warnAt[i] and first(i, 'warned') then warned = warned .. names[i] end
end
return {1, counts[1], counts[2], counts[3], '', warned, '', -1, epoch, ''}`);

/**
 * KEYS: hours, hour, state, pending, spent. ARGV: now, hour (ms), day key prefix, month key prefix. Takes a pending
 * reservation's units back (from the second, clock hour, day and month it was counted in). Returns 1 when it was pending.
 */
export const RELEASE = new Script(`
local now = tonumber(ARGV[1])
local HOUR = tonumber(ARGV[2])
local v = redis.call('GET', KEYS[4])
if not v then return 0 end
redis.call('DEL', KEYS[4])
local cost, sec, day, month = string.match(v, '^(%d+)|(%d+)|([^|]*)|([^|]*)$')
if not cost then return 0 end
cost = tonumber(cost)
if now < (tonumber(sec) + 1) * 1000 + HOUR then
  local c = tonumber(redis.call('HGET', KEYS[2], sec) or '0')
  local take = math.min(c, cost)
  if take > 0 then
    if c == take then
      redis.call('HDEL', KEYS[2], sec)
      redis.call('ZREM', KEYS[1], sec)
    else
      redis.call('HINCRBY', KEYS[2], sec, -take)
    end
    local total = tonumber(redis.call('HGET', KEYS[3], 'hourTotal') or '0') - take
    if total < 0 then total = 0 end
    redis.call('HSET', KEYS[3], 'hourTotal', total)
  end
end
local clockHour = math.floor(tonumber(sec) * 1000 / HOUR)
local spent = tonumber(redis.call('HGET', KEYS[5], clockHour) or '-1')
if spent >= 0 then redis.call('HSET', KEYS[5], clockHour, math.max(0, spent - cost)) end
for _, key in ipairs({ARGV[3] .. day, ARGV[4] .. month}) do
  local c = tonumber(redis.call('HGET', key, 'count') or '-1')
  if c >= 0 then redis.call('HSET', key, 'count', math.max(0, c - cost)) end
end
return 1`);

/**
 * KEYS: hours, hour, state, latest, epoch, lost, confirmed. ARGV: now, hour (ms), day, month, day key prefix,
 * month key prefix, known epoch, fresh epoch. Returns {hour, day, month, epoch, lost marker ('')}.
 */
export const COUNTS = new Script(`
local now = tonumber(ARGV[1])
local HOUR = tonumber(ARGV[2])
local day, month, dayPrefix, monthPrefix = ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local ke, kl, kc, known, fresh = KEYS[5], KEYS[6], KEYS[7], ARGV[7], ARGV[8]
${EPOCH_CHECK}
${EXPIRE_HOUR}
${LATEST}
if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('HSET', KEYS[3], 'hourTotal', total) end
return {total, tonumber(redis.call('HGET', dayKey, 'count') or '0'), tonumber(redis.call('HGET', monthKey, 'count') or '0'), epoch, lostMark or ''}`);

/** KEYS: spent. ARGV: day key prefix, day ids. Returns {spent as field, units, ...; units of each day}. */
export const HISTORY = new Script(`
local days = {}
for i = 2, #ARGV do days[#days + 1] = tonumber(redis.call('HGET', ARGV[1] .. ARGV[i], 'count') or '0') end
return {redis.call('HGETALL', KEYS[1]), days}`);

const DAY_MS = 24 * HOUR_MS;
const LETTERS: Record<string, BudgetWindow> = { h: 'hour', d: 'day', m: 'month' };
const windowsOf = (v: unknown): BudgetWindow[] =>
  [...String(v ?? '')].map((c) => LETTERS[c]).filter((w): w is BudgetWindow => w !== undefined);

export class SharedBudgetLedger implements BudgetLedger {
  readonly remote = true;
  readonly keySpace: KeySpace;
  private lostNow: CountsLost | undefined;

  constructor(
    private readonly link: RedisLink,
    /** `<prefix><config id>:budget` */
    readonly base: string,
    /** The key space of the configuration (its epoch); by default one of its own under `<base>`, in memory. */
    keySpace?: KeySpace,
  ) {
    this.keySpace = keySpace ?? new KeySpace(link, base);
  }

  get location(): string {
    return `Redis ${this.base}`;
  }

  get lost(): CountsLost | undefined {
    return this.lostNow;
  }

  private keys(): string[] {
    return [`${this.base}:hours`, `${this.base}:hour`, `${this.base}:state`, `${this.base}:latest`];
  }

  private epochKeys(): string[] {
    const k = this.keySpace;
    return [k.epochKey, k.lostKey, k.confirmedKey];
  }

  /** The key space's answer: the loss (told by the key space) or the epoch taken. */
  private seen(epoch: unknown, mark: unknown): void {
    const lost = this.keySpace.seen(String(epoch ?? ''), String(mark ?? ''));
    this.lostNow = lost ? { ...lost, where: `Redis ${this.keySpace.base}:*` } : undefined;
  }

  async reserve(req: ReserveRequest): Promise<ReserveAnswer> {
    await this.keySpace.ready();
    const lim = (w: BudgetWindow): number => req.limits[w] ?? -1;
    const warn = (w: BudgetWindow): number => req.warnAt[w] ?? -1;
    // The day's and month's keys outlive them a little (a release of a reservation made before midnight),
    // and serve the Spend history's 30 days.
    const dayTtl = (HISTORY_DAYS + 2) * DAY_MS;
    const monthTtl = 93 * DAY_MS;
    const r = (await this.link.run(
      RESERVE,
      [...this.keys(), `${this.base}:pending:${req.key}`, ...this.epochKeys(), `${this.base}:spent`],
      [
        req.cost,
        req.now,
        req.day,
        req.month,
        lim('hour'),
        lim('day'),
        lim('month'),
        warn('hour'),
        warn('day'),
        warn('month'),
        dayTtl,
        monthTtl,
        PENDING_KEEP_MS,
        HOUR_MS,
        `${this.base}:day:`,
        `${this.base}:month:`,
        this.keySpace.known,
        newEpoch(),
        HISTORY_HOURS,
      ],
    )) as unknown[];
    this.seen(r[8], r[9]);
    const result = Number(r[0]);
    const free = Number(r[7]);
    const answer: ReserveAnswer = {
      result: result === 1 ? 'reserved' : result === 2 ? 'pending' : result === -1 ? 'lost' : 'refused',
      counts: { hour: Number(r[1]) || 0, day: Number(r[2]) || 0, month: Number(r[3]) || 0 },
      over: windowsOf(r[4]),
      warned: windowsOf(r[5]),
      limited: windowsOf(r[6]),
      hourFreeAt: free >= 0 ? free : undefined,
    };
    if (answer.result === 'lost' && this.lostNow) answer.lost = this.lostNow;
    return answer;
  }

  async confirm(key: string): Promise<void> {
    await this.link.command(['DEL', `${this.base}:pending:${key}`]);
  }

  async release(key: string, now: number): Promise<void> {
    const [hours, hour, state] = this.keys();
    await this.link.run(
      RELEASE,
      [hours!, hour!, state!, `${this.base}:pending:${key}`, `${this.base}:spent`],
      [now, HOUR_MS, `${this.base}:day:`, `${this.base}:month:`],
    );
  }

  async counts(now: number, day: string, month: string): Promise<WindowCounts> {
    await this.keySpace.ready();
    const r = (await this.link.run(
      COUNTS,
      [...this.keys(), ...this.epochKeys()],
      [now, HOUR_MS, day, month, `${this.base}:day:`, `${this.base}:month:`, this.keySpace.known, newEpoch()],
    )) as unknown[];
    this.seen(r[3], r[4]);
    return { hour: Number(r[0]) || 0, day: Number(r[1]) || 0, month: Number(r[2]) || 0 };
  }

  async history(now: number, days: readonly string[]): Promise<SpendHistory> {
    const r = (await this.link.run(
      HISTORY,
      [`${this.base}:spent`],
      [`${this.base}:day:`, ...days],
    )) as unknown[];
    const flat = Array.isArray(r[0]) ? (r[0] as unknown[]) : [];
    const spent = new Map<number, number>();
    for (let i = 0; i + 1 < flat.length; i += 2)
      spent.set(Number(flat[i]) * HOUR_MS, Number(flat[i + 1]) || 0);
    const counts = Array.isArray(r[1]) ? (r[1] as unknown[]) : [];
    return {
      hours: historyHours(now).map((start) => ({ start, units: Math.max(0, spent.get(start) ?? 0) })),
      days: days.map((day, i) => ({ day, units: Math.max(0, Number(counts[i]) || 0) })),
    };
  }

  /** A person confirmed the counts: the marker goes for every instance (each takes the epoch as it is now). */
  async confirmLost(by: string, now: number): Promise<CountsConfirmed> {
    await this.keySpace.confirm();
    this.lostNow = undefined;
    return { by, at: now };
  }

  /** The Redis connection belongs to the config node's coordination (closed there). */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
