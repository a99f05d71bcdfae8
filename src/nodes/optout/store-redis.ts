/**
 * The opt-out list of a configuration shared by its instances through Redis (docs/scaling.md): a STOP read by the
 * instance that holds the inbound reader's lease refuses the number on every instance.
 *
 *   <base>              HASH    number key -> JSON entry {o, t, s, b}
 *   <base>:log          LIST    "<seq>|<JSON change and entry>", newest first, at most MAX_LOG
 *   <base>:seq          STRING  the number of the last change
 *   <base>:made         STRING  a random id, written when the list is first made
 *   <base>:lost         STRING  JSON {why, where, since} from a loss until a person confirms
 *   <base>:confirmed    STRING  the id (made) a person confirmed after a loss; <base>:confirmedBy {by, at}
 *   <base>:answered:<k> STRING  an answer to a keyword went to number k (expires after a day)
 *
 * <base> is `<prefix><config id>:optout`. Every change is one script (the entry, the counter and the log line
 * at once), so the list and its log never disagree, and many changes (an import) are one script: all or none.
 * Each instance keeps the whole list in memory (a send's check reads memory only) and looks at the counter every
 * REFRESH_MS: when it moved, it reads the log lines since its own (or the whole list when more changed than the
 * log keeps). A change made here is in memory when its promise resolves.
 *
 * A Redis that lost its data: the list's id (`made`) is gone or replaced, seen by the check every script runs,
 * or the configuration's key space says so (coordination/key-space.ts, markLost). The list is then marked lost
 * in Redis (every instance refuses sends until a person confirms) and each instance writes back what it still
 * holds of it (the numbers on the list, where Redis has no newer entry for them).
 */
import { randomBytes } from 'node:crypto';
import type { RedisLink } from '../../coordination/redis-link';
import { Script } from '../../coordination/redis-link';
import {
  ANSWER_EVERY_MS,
  MAX_LOG,
  OptOutBook,
  changeOf,
  entryOf,
  lostOf,
  storedChange,
  storedEntry,
  type ChangeRequest,
  type ListConfirmed,
  type ListLost,
  type OptChange,
} from './book';
import type { OptOutList } from './list';

/** How often an instance looks for changes made by the others. */
export const REFRESH_MS = 2000;

/**
 * Lua: whether the list is the one this instance knows. Needs km, kl, kc (made, lost, confirmed), known (the id
 * this instance read, '' before), lostText (JSON of the loss, should it be one). Leaves `made`.
 */
const MADE_CHECK = `
local made = redis.call('GET', km)
if not made then
  if known ~= '' then
    redis.call('SET', kl, lostText, 'NX')
    redis.call('SET', km, known)
    made = known
  else
    made = fresh
    redis.call('SET', km, made)
  end
elseif known ~= '' and made ~= known and redis.call('GET', kc) ~= made then
  redis.call('SET', kl, lostText, 'NX')
end
`;

/** KEYS: hash, seq, made, lost, confirmed. ARGV: known, lostText, fresh. Returns {made, seq, lost, fields}. */
const LOAD = new Script(`
local km, kl, kc = KEYS[3], KEYS[4], KEYS[5]
local known, lostText, fresh = ARGV[1], ARGV[2], ARGV[3]
${MADE_CHECK}
return {made, redis.call('GET', KEYS[2]) or '0', redis.call('GET', kl) or '', redis.call('HGETALL', KEYS[1])}`);

/** KEYS: seq, made, lost, confirmed. ARGV: known, lostText. Returns {made, seq, lost}. */
const CHECK = new Script(`
local km, kl, kc = KEYS[2], KEYS[3], KEYS[4]
local known, lostText, fresh = ARGV[1], ARGV[2], ARGV[1]
${MADE_CHECK}
return {made, redis.call('GET', KEYS[1]) or '0', redis.call('GET', kl) or ''}`);

/**
 * KEYS: hash, log, seq, made, lost, confirmed. ARGV: known, lostText, max log, then key, entry, log line per change.
 * Returns {seq before, seq after, made, lost}.
 */
const CHANGE = new Script(`
local km, kl, kc = KEYS[4], KEYS[5], KEYS[6]
local known, lostText, fresh = ARGV[1], ARGV[2], ARGV[1]
${MADE_CHECK}
local before = tonumber(redis.call('GET', KEYS[3]) or '0')
local seq = before
for i = 4, #ARGV, 3 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  seq = redis.call('INCR', KEYS[3])
  redis.call('LPUSH', KEYS[2], seq .. '|' .. ARGV[i + 2])
end
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[3]) - 1)
return {tostring(before), tostring(seq), made, redis.call('GET', kl) or ''}`);

/** KEYS: lost, confirmed, made, confirmedBy. ARGV: JSON {by, at}. Clears the loss. */
const CONFIRM = new Script(`
local had = redis.call('GET', KEYS[1])
redis.call('DEL', KEYS[1])
local made = redis.call('GET', KEYS[3])
if made then redis.call('SET', KEYS[2], made) end
if had then redis.call('SET', KEYS[4], ARGV[1]) end
return {had or '', made or ''}`);

/** KEYS: lost, hash. ARGV: lostText, then key, entry pairs to write back where Redis has none. */
const MARK_LOST = new Script(`
redis.call('SET', KEYS[1], ARGV[1], 'NX')
for i = 2, #ARGV, 2 do redis.call('HSETNX', KEYS[2], ARGV[i], ARGV[i + 1]) end
return redis.call('GET', KEYS[1]) or ''`);

/** Entries written back per script after a loss (a list of 100,000 numbers is 100 scripts). */
const RESTORE_BATCH = 1000;

const listOf = (r: unknown): unknown[] => (Array.isArray(r) ? r : []);

function parse(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export interface RedisListOptions {
  now?(): number;
  /** Looks for changes of the others this often (default REFRESH_MS; 0: only when asked, for tests). */
  refreshMs?: number;
  /** An entry or log line in Redis that this version cannot read (told once per poll that finds some). */
  onOdd?(count: number): void;
}

export class RedisOptOutList implements OptOutList {
  readonly shared = true;
  book = new OptOutBook();
  readonly where: string;
  private readonly keys: {
    hash: string;
    log: string;
    seq: string;
    made: string;
    lost: string;
    confirmed: string;
    confirmedBy: string;
  };
  private made = '';
  private seq = 0;
  private lostText = '';
  private isOpen = false;
  private opened$: Promise<void>;
  private resolveOpen!: () => void;
  private rejectOpen!: (e: unknown) => void;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private closed = false;
  private lastError: string | undefined;
  private readonly lostListeners: ((lost: ListLost) => void)[] = [];
  private readonly now: () => number;
  private readonly onUp = (): void => void this.refresh().catch(() => undefined);

  constructor(
    private readonly link: RedisLink,
    /** `<prefix><config id>:optout` */
    base: string,
    private readonly options: RedisListOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.where = `Redis ${base}*`;
    this.keys = {
      hash: base,
      log: `${base}:log`,
      seq: `${base}:seq`,
      made: `${base}:made`,
      lost: `${base}:lost`,
      confirmed: `${base}:confirmed`,
      confirmedBy: `${base}:confirmedBy`,
    };
    this.opened$ = new Promise((resolve, reject) => {
      this.resolveOpen = resolve;
      this.rejectOpen = reject;
    });
    this.opened$.catch(() => undefined);
    link.on('up', this.onUp);
    void this.refresh().catch(() => undefined);
    const every = options.refreshMs ?? REFRESH_MS;
    if (every > 0) {
      this.timer = setInterval(() => void this.refresh().catch(() => undefined), every);
      this.timer.unref?.();
    }
  }

  get opened(): boolean {
    return this.isOpen;
  }

  ready(): Promise<void> {
    return this.opened$;
  }

  problem(): string | undefined {
    if (!this.link.up) return `Redis cannot be reached (${this.link.downReason})`;
    return this.isOpen ? undefined : this.lastError;
  }

  onLost(listener: (lost: ListLost) => void): void {
    this.lostListeners.push(listener);
    if (this.book.lost) listener(this.book.lost);
  }

  /** The text of a loss found by the scripts (the list's id gone or replaced). */
  private lossText(
    why = "the opt-out list's keys in Redis are gone or were replaced (Redis lost its data)",
  ): string {
    return JSON.stringify({ why, where: this.where, since: this.now() } satisfies ListLost);
  }

  /** One look at Redis at a time: the first reads the list; later ones read what the others changed. */
  refresh(): Promise<void> {
    const next = this.running.then(() => this.look());
    this.running = next.catch(() => undefined);
    return next;
  }

  private async look(): Promise<void> {
    if (this.closed || !this.link.up) return;
    try {
      if (!this.isOpen) return await this.load();
      const [made, seq, lost] = listOf(
        await this.link.run(
          CHECK,
          [this.keys.seq, this.keys.made, this.keys.lost, this.keys.confirmed],
          [this.made, this.lossText()],
        ),
      ).map(String);
      const lostNow = lost ?? '';
      // A loss found now: what this instance holds goes back into Redis before the (emptied) list is read.
      if (lostNow !== '' && this.lostText === '') await this.writeBack(lostNow);
      if (lostNow !== this.lostText || Number(seq) < this.seq) return await this.load();
      if (made) this.made = made;
      if (Number(seq) > this.seq) await this.pull(Number(seq));
      this.lastError = undefined;
    } catch (e) {
      this.lastError = e instanceof Error ? e.message : String(e);
      throw e;
    }
  }

  /** The whole list (first read, a loss, or more changes than the log keeps). */
  private async load(): Promise<void> {
    const k = this.keys;
    const [made, seq, lost, fields] = listOf(
      await this.link.run(
        LOAD,
        [k.hash, k.seq, k.made, k.lost, k.confirmed],
        [this.made, this.lossText(), randomBytes(8).toString('hex')],
      ),
    );
    const book = new OptOutBook();
    const flat = listOf(fields);
    let odd = 0;
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const e = entryOf(parse(flat[i + 1]));
      if (e) book.set(String(flat[i]), e);
      else odd++;
    }
    const lostText = String(lost ?? '');
    this.applyLost(book, lostText);
    this.book = book;
    this.made = String(made ?? this.made);
    this.seq = Number(seq) || 0;
    this.lastError = undefined;
    if (odd > 0) this.options.onOdd?.(odd);
    if (!this.isOpen) {
      this.isOpen = true;
      this.resolveOpen();
    }
  }

  private applyLost(book: OptOutBook, text: string): void {
    const was = this.lostText;
    this.lostText = text;
    const lost =
      text === '' ? undefined : (lostOf(parse(text)) ?? { why: text, where: this.where, since: 0 });
    book.lost = lost;
    if (lost && text !== was) for (const l of this.lostListeners) l(lost);
  }

  /** The log lines since this instance's last one, in order; the whole list when some are missing. */
  private async pull(seq: number): Promise<void> {
    const n = seq - this.seq;
    if (n > MAX_LOG) return this.load();
    const lines = listOf(await this.link.command(['LRANGE', this.keys.log, '0', String(n - 1)]))
      .map(String)
      .reverse();
    const read: { seq: number; value: unknown }[] = [];
    for (const line of lines) {
      const bar = line.indexOf('|');
      read.push({ seq: Number(line.slice(0, bar)), value: parse(line.slice(bar + 1)) });
    }
    const expected = read.filter((r) => r.seq > this.seq);
    if (expected.length !== n || expected.some((r, i) => r.seq !== this.seq + 1 + i)) return this.load();
    let odd = 0;
    for (const r of expected) {
      const v = r.value as { e?: unknown } | undefined;
      const change = changeOf(v);
      const entry = entryOf(v?.e);
      if (!change || !entry) {
        odd++;
        continue;
      }
      this.book.set(change.key, entry);
      this.book.note(change);
    }
    this.seq = seq;
    // A line this version cannot read may hide a number: the whole list is read instead.
    if (odd > 0) {
      this.options.onOdd?.(odd);
      await this.load();
    }
  }

  private live(): void {
    if (this.closed) throw new Error('the opt-out list is closed');
  }

  async change(requests: readonly ChangeRequest[]): Promise<OptChange[]> {
    this.live();
    await this.opened$;
    const at = this.now();
    const draft = new OptOutBook();
    const changes = requests.map((r) => draft.apply(r, at));
    const args: string[] = [this.made, this.lossText(), String(MAX_LOG)];
    for (const c of changes) {
      const entry = storedEntry(draft.get(c.key)!);
      args.push(c.key, JSON.stringify(entry), JSON.stringify({ ...storedChange(c), e: entry }));
    }
    const k = this.keys;
    // In line with the looks at Redis: nothing read meanwhile lands on top of these changes.
    const work = async (): Promise<void> => {
      const [before, after, made] = listOf(
        await this.link.run(CHANGE, [k.hash, k.log, k.seq, k.made, k.lost, k.confirmed], args),
      ).map(String);
      // In memory now, whatever came between (the next look reads the log in order and ends where Redis is).
      for (const c of changes) {
        this.book.set(c.key, draft.get(c.key)!);
        this.book.note(c);
      }
      if (Number(before) === this.seq) this.seq = Number(after);
      this.made = made ?? this.made;
    };
    const next = this.running.then(work);
    this.running = next.then(
      () => undefined,
      () => undefined,
    );
    await next;
    // What the others changed meanwhile, and a loss the script found, are read now.
    await this.refresh().catch(() => undefined);
    return changes;
  }

  /** The last changes, newest first (the editor shows them): from Redis, all instances' alike. */
  async recent(count: number): Promise<OptChange[]> {
    const lines = listOf(await this.link.command(['LRANGE', this.keys.log, '0', String(count - 1)]));
    const out: OptChange[] = [];
    for (const line of lines.map(String)) {
      const change = changeOf(parse(line.slice(line.indexOf('|') + 1)));
      if (change) out.push(change);
    }
    return out;
  }

  async confirm(by: string): Promise<ListConfirmed | undefined> {
    this.live();
    await this.opened$;
    const confirmed: ListConfirmed = { by, at: this.now() };
    const k = this.keys;
    const [had, made] = listOf(
      await this.link.run(CONFIRM, [k.lost, k.confirmed, k.made, k.confirmedBy], [JSON.stringify(confirmed)]),
    ).map(String);
    if (made) this.made = made;
    this.applyLost(this.book, '');
    this.book.confirmed = had ? confirmed : this.book.confirmed;
    return had ? confirmed : undefined;
  }

  async claimAnswer(key: string): Promise<boolean> {
    this.live();
    const r = await this.link.command([
      'SET',
      `${this.keys.hash}:answered:${key}`,
      String(this.now()),
      'NX',
      'PX',
      String(ANSWER_EVERY_MS),
    ]);
    return r === 'OK';
  }

  /**
   * The configuration's key space lost its data (the config node's coordination says so): marked lost in Redis,
   * and what this instance holds of the list written back where Redis has nothing newer; then read again.
   */
  async markLost(why: string, since: number): Promise<void> {
    if (this.closed) return;
    await this.writeBack(JSON.stringify({ why, where: this.where, since } satisfies ListLost));
    await this.refresh();
  }

  /** Marks the list lost in Redis and writes back the numbers on it this instance holds (where Redis has none). */
  private async writeBack(text: string): Promise<void> {
    const out = this.book.entries().filter(([, e]) => e.out);
    for (let i = 0; i === 0 || i < out.length; i += RESTORE_BATCH) {
      const args = [text];
      for (const [key, e] of out.slice(i, i + RESTORE_BATCH)) args.push(key, JSON.stringify(storedEntry(e)));
      await this.link.run(MARK_LOST, [this.keys.lost, this.keys.hash], args);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.link.off('up', this.onUp);
    if (!this.isOpen) this.rejectOpen(new Error('the opt-out list is closed'));
    await this.running;
  }
}
