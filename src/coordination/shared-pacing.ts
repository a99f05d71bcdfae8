/**
 * The pacing book per number shared by every instance of a config node, in Redis (docs/scaling.md): one book
 * across the instances, so two instances texting one number keep its limits together. A reservation is one Lua
 * script answering as the file book's rule (reliability/pacing.ts, PaceBook.reserve) does: the slot after the
 * times already there, within every rule of every number, the critical allowance, a reservation found again by
 * its id (an outbox entry's later attempt, on any instance). The times are the calling instance's clock (the
 * instances' clocks agree, NTP).
 *
 *   <base>:n:<number>   STRING  the number's times (ms, ascending, comma-separated)   expires a window after its last
 *   <base>:c:<number>   STRING  its critical allowance's times                        as above
 *   <base>:p:<id>       STRING  a reservation not settled yet (JSON: at, via, keys)   expires a window after its slot
 *
 * <base> is `<prefix><config id>:pacing`. Each script first runs the key space's check (key-space.ts): after a
 * Redis that lost its data, every number the book does not know counts as having had its whole allowance at the
 * moment of the loss (as the file book does after a damaged file). Redis away: nothing is reserved and the
 * message is not sent (NETWORK; an outbox keeps it): never paced by each instance alone.
 */
import { GatewayError } from '../errors';
import { systemClock, type Clock } from '../reliability/clock';
import {
  longestWindow,
  STALE_MS,
  type PaceAnswer,
  type Pacer,
  type PaceLost,
  type PaceRequest,
  type PaceSettings,
  type PaceRule,
} from '../reliability/pacing';
import { EPOCH_CHECK, KeySpace, newEpoch } from './key-space';
import { Script, type RedisLink } from './redis-link';

/** Lua: a list of times in a key (`load`), pruned (`prune`), stored with its expiry (`store`), one removed. */
const TIMES = `
local function load(k)
  local s = redis.call('GET', k)
  local t = {}
  if s then for v in string.gmatch(s, '[^,]+') do t[#t + 1] = tonumber(v) end end
  return t, s ~= false
end
local function prune(t)
  local out = {}
  for i = 1, #t do if t[i] > now - span then out[#out + 1] = t[i] end end
  return out
end
local function store(k, t)
  local parts, last = {}, now
  for i = 1, #t do
    parts[i] = string.format('%.0f', t[i])
    if t[i] > last then last = t[i] end
  end
  redis.call('SET', k, table.concat(parts, ','), 'PX', math.max(1, last + span - now))
end
local function removeOne(k, t)
  local list, known = load(k)
  if not known then return end
  for i = #list, 1, -1 do
    if list[i] == t then
      table.remove(list, i)
      local parts = {}
      for j = 1, #list do parts[j] = string.format('%.0f', list[j]) end
      redis.call('SET', k, table.concat(parts, ','), 'KEEPTTL')
      return
    end
  end
end
local function release(rec)
  for _, key in ipairs(rec.keys) do
    removeOne(nPrefix .. key, rec.at)
    if rec.via == 'critical' then removeOne(cPrefix .. key, rec.at) end
  end
end
`;

/** "count:ms,count:ms" as a list of rules. */
const RULES = `
local function rules(s)
  local out = {}
  for c, ms in string.gmatch(s, '(%d+):(%d+)') do out[#out + 1] = {tonumber(c), tonumber(ms)} end
  return out
end
`;

/**
 * KEYS: epoch, lost, confirmed, pending, then per number its times and its critical times. ARGV: now, critical
 * (1/0), onlyNow (1/0), longest window, stale (ms), known epoch, fresh epoch, rules, critical rules, times key
 * prefix, critical key prefix, the numbers (in KEYS' order). Returns {at, via, reserved (1/0), epoch, lost ('')}.
 */
export const RESERVE = new Script(`
local now = tonumber(ARGV[1])
local critical, onlyNow = ARGV[2] == '1', ARGV[3] == '1'
local span, stale = tonumber(ARGV[4]), tonumber(ARGV[5])
local ke, kl, kc, known, fresh = KEYS[1], KEYS[2], KEYS[3], ARGV[6], ARGV[7]
local nPrefix, cPrefix = ARGV[10], ARGV[11]
${EPOCH_CHECK}
${TIMES}
${RULES}
local normalRules, criticalRules = rules(ARGV[8]), rules(ARGV[9])
local lostSince = nil
if lostMark then lostSince = tonumber(string.match(lostMark, '|(%d+)$') or '0') end
local n = #ARGV - 11
local held = redis.call('GET', KEYS[4])
if held then
  local rec = cjson.decode(held)
  if now <= rec.at + stale then
    return {string.format('%.0f', rec.at), 'pending', 1, epoch, lostMark or ''}
  end
  release(rec)
  redis.call('DEL', KEYS[4])
end
local at = now
local logs = {}
for i = 1, n do
  local log, exists = load(KEYS[3 + 2 * i])
  log = prune(log)
  logs[i] = log
  if #log > 0 and log[#log] > at then at = log[#log] end
  for _, r in ipairs(normalRules) do
    if #log >= r[1] then at = math.max(at, log[#log - r[1] + 1] + r[2]) end
  end
  -- The book was lost: a number it does not know may have had its whole allowance just before.
  if lostSince and not exists and now < lostSince + span then
    for _, r in ipairs(normalRules) do at = math.max(at, lostSince + r[2]) end
  end
end
local via = 'normal'
local clogs = {}
if at > now and critical and #criticalRules > 0 then
  local room = true
  for i = 1, n do
    local c = prune((load(KEYS[4 + 2 * i])))
    clogs[i] = c
    for _, r in ipairs(criticalRules) do
      if not (#c < r[1] or c[#c - r[1] + 1] <= now - r[2]) then room = false end
    end
  end
  if room then
    at = now
    via = 'critical'
  end
end
if onlyNow and at > now then return {string.format('%.0f', at), via, 0, epoch, lostMark or ''} end
local keys = {}
for i = 1, n do
  keys[i] = ARGV[11 + i]
  local log = logs[i]
  local j = #log
  while j > 0 and log[j] > at do j = j - 1 end
  table.insert(log, j + 1, at)
  store(KEYS[3 + 2 * i], log)
  if via == 'critical' then
    local c = clogs[i]
    c[#c + 1] = now
    store(KEYS[4 + 2 * i], c)
  end
end
redis.call('SET', KEYS[4], cjson.encode({at = at, via = via, keys = keys}), 'PX', math.max(1, at + span + stale - now))
return {string.format('%.0f', at), via, 1, epoch, lostMark or ''}`);

/** KEYS: pending. ARGV: times key prefix, critical key prefix. Gives a reservation's slot back; 1 when it was. */
export const RELEASE = new Script(`
local nPrefix, cPrefix = ARGV[1], ARGV[2]
local held = redis.call('GET', KEYS[1])
if not held then return 0 end
local now, span = 0, 0
${TIMES}
release(cjson.decode(held))
redis.call('DEL', KEYS[1])
return 1`);

const rulesText = (rules: readonly PaceRule[]): string => rules.map((r) => `${r.count}:${r.ms}`).join(',');

export class SharedPacer implements Pacer {
  readonly keySpace: KeySpace;
  private lostNow: PaceLost | undefined;
  private closed = false;

  constructor(
    private readonly link: RedisLink,
    /** `<prefix><config id>:pacing` */
    readonly base: string,
    readonly settings: PaceSettings,
    private readonly clock: Clock = systemClock,
    /** The key space of the configuration (its epoch); by default one of its own under `<base>`, in memory. */
    keySpace?: KeySpace,
  ) {
    this.keySpace = keySpace ?? new KeySpace(link, base);
  }

  get location(): string {
    return `Redis ${this.base}`;
  }

  /** The book was lost (Redis lost its data) within the longest window, else undefined. */
  get lost(): PaceLost | undefined {
    const lost = this.lostNow;
    return lost && this.clock.now() < lost.since + longestWindow(this.settings) ? lost : undefined;
  }

  /** The Redis key of a number's times (the test reads it). */
  timesKey(key: string): string {
    return `${this.base}:n:${key}`;
  }

  async reserve(req: Omit<PaceRequest, 'now'>): Promise<PaceAnswer> {
    if (this.closed) throw new Error('the pacing book is closed');
    const now = this.clock.now();
    const k = this.keySpace;
    let r: unknown[];
    try {
      await k.ready();
      r = (await this.link.run(
        RESERVE,
        [
          k.epochKey,
          k.lostKey,
          k.confirmedKey,
          `${this.base}:p:${req.id}`,
          ...req.keys.flatMap((key) => [`${this.base}:n:${key}`, `${this.base}:c:${key}`]),
        ],
        [
          now,
          req.critical ? 1 : 0,
          req.onlyNow ? 1 : 0,
          longestWindow(this.settings),
          STALE_MS,
          k.known,
          newEpoch(),
          rulesText(this.settings.rules),
          rulesText(this.settings.critical),
          `${this.base}:n:`,
          `${this.base}:c:`,
          ...req.keys,
        ],
      )) as unknown[];
    } catch (e) {
      // Not reserved, so not sent: pacing each instance alone would let them together pass the limits.
      throw new GatewayError(
        'NETWORK',
        `not sent: the pacing per number cannot keep its book in ${this.location}: ${e instanceof Error ? e.message : String(e)}`,
        { ambiguous: false, cause: e },
      );
    }
    const lost = k.seen(String(r[3] ?? ''), String(r[4] ?? ''));
    this.lostNow = lost ? { why: lost.why, since: lost.since } : undefined;
    const via = String(r[1]);
    return {
      at: Number(r[0]),
      via: via === 'pending' || via === 'critical' ? via : 'normal',
      reserved: Number(r[2]) === 1,
    };
  }

  /** The message went (or was refused for good): its reservation is done, its time stays counted. */
  async settleNow(id: string): Promise<void> {
    await this.link.command(['DEL', `${this.base}:p:${id}`]);
  }

  /** The message will not go: its slot is given back. */
  async releaseNow(id: string): Promise<void> {
    await this.link.run(RELEASE, [`${this.base}:p:${id}`], [`${this.base}:n:`, `${this.base}:c:`]);
  }

  // Settling and giving back are not awaited by the send: one that fails (Redis away) leaves the number's time
  // counted until its reservation expires (the safe side).
  settle(id: string): void {
    void this.settleNow(id).catch(() => undefined);
  }

  release(id: string): void {
    void this.releaseNow(id).catch(() => undefined);
  }

  /** The Redis connection belongs to the config node's coordination (closed there). */
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}
