/**
 * The open questions of a gateway configuration in Redis, for instances that coordinate through it
 * (docs/scaling.md): every instance hands new questions and cancellations in; the holder of the lease that reads
 * the gateway's inbound messages (the same lease: the replies arrive where the questions are kept) changes them,
 * each write checked against its token (fenced), so an instance that lost the lease cannot write any more.
 *
 *   <prefix><config id>:smsgw-ask:q        HASH  question id -> JSON of the question (holder only)
 *   <prefix><config id>:smsgw-ask:inbox    HASH  question id -> JSON of a question not yet taken by the holder
 *   <prefix><config id>:smsgw-ask:cancels  HASH  key -> JSON of a cancellation not yet applied
 *   <prefix><config id>:smsgw-ask:freed    HASH  code -> when its question closed (ms)
 */
import type { RedisLink } from '../../coordination/redis-link';
import { Script } from '../../coordination/redis-link';
import { isQuestion } from './check';
import { REUSE_AFTER_MS } from './codes';
import type { CancelRequest, Question } from './question';
import type { AskState, AskStore, Hold, Inbox } from './store';

/** Writes a question if the token holds the lease; ARGV[4] = '1': it leaves the inbox too. */
const PUT = new Script(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
if ARGV[4] == '1' then redis.call('HDEL', KEYS[3], ARGV[2]) end
return 1`);

/** Drops a closed question and notes its code as freed (older freed codes go), if the token holds the lease. */
const REMOVE = new Script(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[2], ARGV[2])
redis.call('HDEL', KEYS[3], ARGV[2])
if ARGV[3] ~= '' then
  local all = redis.call('HGETALL', KEYS[4])
  for i = 1, #all, 2 do
    if tonumber(all[i + 1]) < tonumber(ARGV[4]) - tonumber(ARGV[5]) then redis.call('HDEL', KEYS[4], all[i]) end
  end
  redis.call('HSET', KEYS[4], ARGV[3], ARGV[4])
end
return 1`);

const CANCEL_DONE = new Script(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[2], ARGV[2])
return 1`);

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

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export class RedisAskStore implements AskStore {
  readonly where: string;
  private readonly q: string;
  private readonly inboxKey: string;
  private readonly cancels: string;
  private readonly freed: string;
  /** Ids already reported as unreadable (they stay in Redis for a person to look at). */
  private readonly reported = new Set<string>();

  constructor(
    private readonly link: RedisLink,
    /** The lease whose holder writes. */
    private readonly leaseKey: string,
    /** `<prefix><config id>:smsgw-ask` */
    base: string,
    private readonly onDropped?: (count: number) => void,
  ) {
    this.q = `${base}:q`;
    this.inboxKey = `${base}:inbox`;
    this.cancels = `${base}:cancels`;
    this.freed = `${base}:freed`;
    this.where = `Redis ${base}:*`;
  }

  private questions(hash: unknown): Question[] {
    const out: Question[] = [];
    let dropped = 0;
    for (const [id, text] of pairs(hash)) {
      const q = parse(text);
      if (isQuestion(q) && q.id === id) out.push(q);
      else if (!this.reported.has(id)) {
        this.reported.add(id);
        dropped++;
      }
    }
    if (dropped > 0) this.onDropped?.(dropped);
    return out;
  }

  async load(): Promise<AskState> {
    const [q, freed] = await Promise.all([
      this.link.command(['HGETALL', this.q]),
      this.link.command(['HGETALL', this.freed]),
    ]);
    const codes: Record<string, number> = {};
    for (const [code, at] of pairs(freed)) if (Number.isFinite(Number(at))) codes[code] = Number(at);
    return { questions: this.questions(q), freed: codes };
  }

  async put(hold: Hold, q: Question, taken = false): Promise<boolean> {
    const r = await this.link.run(
      PUT,
      [this.leaseKey, this.q, this.inboxKey],
      [hold.token, q.id, JSON.stringify(q), taken ? '1' : '0'],
    );
    return Number(r) === 1;
  }

  async remove(hold: Hold, q: Question, freedAt: number): Promise<boolean> {
    const r = await this.link.run(
      REMOVE,
      [this.leaseKey, this.q, this.inboxKey, this.freed],
      [hold.token, q.id, q.code ?? '', freedAt, REUSE_AFTER_MS],
    );
    return Number(r) === 1;
  }

  async submit(q: Question): Promise<void> {
    await this.link.command(['HSET', this.inboxKey, q.id, JSON.stringify(q)]);
  }

  async requestCancel(c: CancelRequest): Promise<void> {
    await this.link.command(['HSET', this.cancels, c.key, JSON.stringify(c)]);
  }

  async inbox(): Promise<Inbox> {
    const [q, c] = await Promise.all([
      this.link.command(['HGETALL', this.inboxKey]),
      this.link.command(['HGETALL', this.cancels]),
    ]);
    const cancels: CancelRequest[] = [];
    for (const [key, text] of pairs(c)) {
      const v = parse(text) as Partial<CancelRequest> | undefined;
      if (v && typeof v.node === 'string' && typeof v.at === 'number')
        cancels.push({ ...v, key } as CancelRequest);
    }
    return { questions: this.questions(q), cancels };
  }

  async cancelDone(hold: Hold, key: string): Promise<boolean> {
    const r = await this.link.run(CANCEL_DONE, [this.leaseKey, this.cancels], [hold.token, key]);
    return Number(r) === 1;
  }

  flush(): Promise<void> {
    return Promise.resolve();
  }
}
