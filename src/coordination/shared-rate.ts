/**
 * One token bucket for every instance of a config node, in Redis (docs/scaling.md): the config's rate limit
 * counts the requests of all instances together, as the gateway does. The bucket is a hash refilled from
 * Redis's own clock (TIME), so the instances' clocks do not matter; taking a token is one script call.
 *
 *   <prefix><config id>:rate   HASH  tokens, at (ms)   expires once it would be full again
 */
import { Script, type RedisLink } from './redis-link';

/**
 * ARGV: rate per second, burst. Returns 0 when a token was taken, else the milliseconds until one is due
 * (nothing taken). The hash expires when it would be full again: an idle cluster leaves no key behind.
 */
export const TAKE = new Script(`
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or burst
local at = tonumber(b[2]) or now
if now > at then tokens = math.min(burst, tokens + (now - at) * rate / 1000) end
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = math.ceil((1 - tokens) * 1000 / rate) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(math.max(now, at)))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) * 1000 / rate) + 1000)
return wait`);

export class SharedRate {
  constructor(
    private readonly link: RedisLink,
    readonly key: string,
    readonly ratePerSecond: number,
    readonly burst: number,
  ) {}

  /** 0 when a token was taken, else how long to wait before asking again; rejects when Redis cannot answer. */
  async take(): Promise<number> {
    const r = await this.link.run(TAKE, [this.key], [this.ratePerSecond, this.burst]);
    return Math.max(0, Number(r) || 0);
  }
}
