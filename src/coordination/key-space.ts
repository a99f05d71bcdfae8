/**
 * Whether a configuration's keys in Redis are still the ones this instance worked with. A Redis restarted
 * without its data (no append-only file, a lost disk, FLUSHALL) reads every missing key as empty: counts as 0,
 * no open questions, no outbox entries, no place in the queues. Nothing says so unless it is looked for:
 *
 *   <prefix><config id>:epoch       STRING  a random id, written once by the first instance (never expires)
 *   <prefix><config id>:lost        STRING  "<why>|<since ms>" from the moment a loss is seen, until confirmed
 *   <prefix><config id>:confirmed   STRING  the epoch a person confirmed the counts of (after a loss)
 *
 * Each instance remembers the epoch it saw, in memory and in its own state file (`smsgw-redis.<config>.json`,
 * through the store), so a loss is seen while the instances run (the key gone or replaced) and after they all
 * restart (the key gone, the file remembers it). The rule is one Lua snippet, run alone (check(), at every
 * reconnection and every half minute) and inside the spending guard's scripts, so a send never counts against
 * a key space that lost its data: the loss sets `lost`, and the guard counts every limit as reached until a
 * person confirms (docs/reliability.md). A new instance (nothing remembered) takes the epoch it finds.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { ValueStore } from '../store';
import { Script, type RedisLink } from './redis-link';

/**
 * Lua: the check of one key space. Needs `ke`, `kl`, `kc` (the keys above), `known` (the epoch this instance
 * remembers, '' for none), `fresh` (a new id, should the key be gone) and `now` (ms). Leaves `epoch` (the key
 * space's epoch now) and `lostMark` (the lost marker, or false).
 */
export const EPOCH_CHECK = `
local epoch = redis.call('GET', ke)
if not epoch then
  redis.call('SET', ke, fresh)
  if known ~= '' then
    redis.call('SET', kl, 'the keys of this configuration are gone (Redis lost its data)|' .. now, 'NX')
  end
  epoch = fresh
elseif known ~= '' and epoch ~= known and redis.call('GET', kc) ~= epoch then
  redis.call('SET', kl, 'the keys of this configuration were replaced (Redis lost its data)|' .. now, 'NX')
end
local lostMark = redis.call('GET', kl)
`;

/** KEYS: epoch, lost, confirmed. ARGV: known, fresh, now. Returns {epoch, lost marker or ''}. */
const CHECK = new Script(`
local ke, kl, kc = KEYS[1], KEYS[2], KEYS[3]
local known, fresh, now = ARGV[1], ARGV[2], ARGV[3]
${EPOCH_CHECK}
return {epoch, lostMark or ''}`);

/** KEYS: lost, confirmed, epoch. Clears the marker and notes the epoch as confirmed. Returns the epoch. */
const CONFIRM = new Script(`
redis.call('DEL', KEYS[1])
local epoch = redis.call('GET', KEYS[3])
if epoch then redis.call('SET', KEYS[2], epoch) end
return epoch or ''`);

/** The loss a marker names: why and since when. */
export function parseLost(mark: unknown): { why: string; since: number } | undefined {
  if (typeof mark !== 'string' || mark === '') return undefined;
  const i = mark.lastIndexOf('|');
  return i < 0 ? { why: mark, since: 0 } : { why: mark.slice(0, i), since: Number(mark.slice(i + 1)) || 0 };
}

export const newEpoch = (): string => randomBytes(8).toString('hex');

export interface KeySpaceEvents {
  /** The key space lost its data (told once per loss this instance sees). */
  lost: [why: string, since: number];
}

/** A value that can be an answer of EVAL: a list of strings. */
const listOf = (r: unknown): string[] => (Array.isArray(r) ? r.map((v) => String(v ?? '')) : []);

export class KeySpace extends EventEmitter<KeySpaceEvents> {
  readonly epochKey: string;
  readonly lostKey: string;
  readonly confirmedKey: string;
  private epoch = '';
  private toldSince: number | undefined;
  private readonly loaded: Promise<void>;

  constructor(
    private readonly link: RedisLink,
    /** `<prefix><config id>` */
    readonly base: string,
    /**
     * Where this instance remembers the epoch across restarts (a state file); memory only without it. It names the
     * key space too: another prefix (set on purpose) is another key space, not a loss.
     */
    private readonly local?: ValueStore<{ base?: string; epoch?: string }>,
  ) {
    super();
    this.epochKey = `${base}:epoch`;
    this.lostKey = `${base}:lost`;
    this.confirmedKey = `${base}:confirmed`;
    this.loaded = (local?.open() ?? Promise.resolve(undefined)).then(
      (v) => {
        if (typeof v?.epoch === 'string' && v.base === base) this.epoch = v.epoch;
      },
      () => undefined,
    );
  }

  /** Resolves once the remembered epoch is read. */
  ready(): Promise<void> {
    return this.loaded;
  }

  /** The epoch this instance works with ('' before the first look). */
  get known(): string {
    return this.epoch;
  }

  /** Takes `epoch` as the one this instance works with (memory now, its state file as soon as it can). */
  adopt(epoch: string): void {
    if (epoch === '' || epoch === this.epoch) return;
    this.epoch = epoch;
    void this.local?.save({ base: this.base, epoch }).catch(() => undefined);
  }

  /**
   * The answer of the rule (EPOCH_CHECK) as an instance sees it: a loss is told (once), the epoch adopted unless
   * the counts are lost (then the guard keeps refusing until a person confirms, and this instance keeps telling).
   */
  seen(epoch: string, lostMark: string): { why: string; since: number } | undefined {
    const lost = parseLost(lostMark);
    if (lost) {
      if (this.toldSince !== lost.since) {
        this.toldSince = lost.since;
        this.emit('lost', lost.why, lost.since);
      }
      // This instance saw the loss: the key space it works with from now on is the new one.
      this.adopt(epoch);
      return lost;
    }
    this.toldSince = undefined;
    this.adopt(epoch);
    return undefined;
  }

  /** Looks now: the key space's epoch against the one remembered. */
  async check(now = Date.now()): Promise<{ why: string; since: number } | undefined> {
    await this.loaded;
    const [epoch, mark] = listOf(
      await this.link.run(
        CHECK,
        [this.epochKey, this.lostKey, this.confirmedKey],
        [this.epoch, newEpoch(), now],
      ),
    );
    return this.seen(epoch ?? '', mark ?? '');
  }

  /** A person confirmed the counts: the marker goes, and every instance takes the epoch as it is now. */
  async confirm(): Promise<void> {
    const epoch = String(
      (await this.link.run(CONFIRM, [this.lostKey, this.confirmedKey, this.epochKey], [])) ?? '',
    );
    this.toldSince = undefined;
    this.adopt(epoch);
  }
}
