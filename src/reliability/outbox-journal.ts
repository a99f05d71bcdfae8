/**
 * The outbox's file store: an append-only journal, one JSON line per change, flushed with group commit. Writes
 * go out one at a time, in order (a synchronous write of the batch into the page cache); each write that holds a record needing durability is followed by its own
 * fdatasync, and the next write does not wait for that flush to return (pipelined group commit, at most
 * MAX_FLUSHES flushes under way): a record given while a flush is under way is written at once and flushed by
 * the next fdatasync, which covers everything written before it started. It waits for one flush, not for the
 * rest of the current one plus its own. A burst of 1,000 adds still costs a few flushes, not 1,000; the remove
 * of a sent message is written at once but flushed with the next record that needs a flush: one flush per
 * message under a steady load, not two. Now and then it is compacted: the entries it holds are written as one
 * snapshot line to a temp file, which is fsync'd and renamed over the journal.
 *
 *   {"version":3}                       first line (a compaction writes it, then one add per entry it holds)
 *   {"add":{...entry}}                  an accepted message
 *   {"update":{"id":..,"attempts":..,"maybeSent":..,"inFlight":..,"lastError":..,"notBefore":..}}
 *   {"remove":"<id>"}                   settled
 *
 * Every line carries its checksum (`<json>\t<crc32>`, src/store/seal.ts: one pass over the bytes written), so
 * a flipped byte is found, never read as another value. A crash can leave a last line half written: it was
 * never acknowledged (its flush had not returned), so it is ignored. Any other line that cannot be read is
 * skipped and told (one error naming the file, what was kept and lost), the file is copied aside first (0600),
 * and every entry kept is looked up by its reference before it is sent again (the line lost may have been its
 * remove). A journal the manifest lists that is not there is told as loudly. A journal of an older version
 * (a one-line snapshot `{"version":2,"entries":[...]}`, unsealed lines) is read as it was written.
 * Measured (docs/reliability.md): rewriting a 10,000-entry JSON file per change costs ~30 ms; an append ~0.5 ms.
 */
import { dirname } from 'node:path';
import { counted } from '../count';
import { GatewayError } from '../errors';
import { Manifest, damageText, isSealed, openLine, sealLine, sealLines, type StateDamage } from '../store';
import * as sfs from '../store/fs';
import { copyAside, readIfExists, removeFile, removeStaleTemps, writeFileAtomic } from '../store/durable';
import { readEntry, type OutboxEntry, type OutboxStore, type OutboxStoreStats } from './outbox-store';

export interface JournalOptions {
  file: string;
  /** Records appended before the journal is compacted (at least twice the entries held; default 1000). */
  compactAfter?: number;
  /** Node-RED's user directory: its manifest lists the journal once written (a journal gone is told). */
  userDir?: string | undefined;
  /** Told of a problem met after load() (the journal removed or replaced while open): one log line. */
  onWarning?: ((text: string) => void) | undefined;
}

interface Pending {
  /** The record's JSON (sealed when its batch is written). */
  line: string;
  /** An add: undone in memory when its write fails (the message was not accepted). */
  addId: string | undefined;
  /** Resolved only once flushed; false: once written (the remove of a sent message, see OutboxStore). */
  flush: boolean;
  resolve(): void;
  reject(e: unknown): void;
}

const VERSION = 3;
const HEADER = JSON.stringify({ version: VERSION });

/**
 * Flushes under way at once. Two overlap the wait for the disk (a record written while one flush runs is
 * flushed by the next, which the kernel can run alongside) and leave the other threads of libuv's pool (4)
 * to Node-RED's own file work.
 */
const MAX_FLUSHES = 2;

/** The fields an update record carries (in this order). */
function updateOf(e: Readonly<OutboxEntry>): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    id: e.id,
    attempts: e.attempts,
    maybeSent: e.maybeSent,
    inFlight: e.inFlight,
  };
  if (e.lastError !== undefined) fields.lastError = e.lastError;
  if (e.notBefore !== undefined) fields.notBefore = e.notBefore;
  return fields;
}

export class JournalStore implements OutboxStore {
  readonly location: string;
  readonly warnings: string[] = [];
  /** The journal was damaged or is missing (set by load(); the caller tells it). */
  damage: StateDamage | undefined;
  readonly stats: OutboxStoreStats = { records: 0, syncs: 0, bytes: 0, compactions: 0 };
  private readonly compactAfter: number;
  private readonly manifest: Manifest | undefined;
  private readonly onWarning: ((text: string) => void) | undefined;
  /** What the journal says once every queued record is written (copies: the outbox mutates its own). */
  private readonly held = new Map<string, OutboxEntry>();
  private fh: sfs.StoreHandle | undefined;
  /** Device and inode of the journal this store wrote last: the file at `location` must still be this one. */
  private opened: { dev: number; ino: number } | undefined;
  private queue: Pending[] = [];
  private writing: Promise<void> | undefined;
  /** Flushes under way (each resolves or rejects its own batch, never throws). */
  private readonly flushing = new Set<Promise<void>>();
  private scheduled = false;
  private sinceSnapshot = 0;
  /** Records written but not flushed yet (removes of sent messages). */
  private unflushed = false;
  /** A write failed part-way: the next batch rewrites the file instead of appending to a torn line. */
  private broken = false;
  private loaded = false;
  private closed = false;

  constructor(options: JournalOptions) {
    if (!options || typeof options.file !== 'string' || options.file === '')
      throw new GatewayError('CONFIG', 'the outbox journal needs a file');
    this.location = options.file;
    this.compactAfter = Math.max(1, options.compactAfter ?? 1000);
    this.manifest = options.userDir ? Manifest.of(options.userDir) : undefined;
    this.onWarning = options.onWarning;
  }

  async load(): Promise<OutboxEntry[]> {
    // Temp files of compactions a crash interrupted: they hold nothing the journal does not.
    await removeStaleTemps(this.location);
    const text = await readIfExists(this.location);
    if (text !== undefined && text !== '') this.replay(text);
    else if (text === undefined && this.manifest?.listed(this.location))
      this.damage = {
        file: this.location,
        kind: 'missing',
        aside: undefined,
        why: `it was written before (listed in ${this.manifest.file}) and is not there now`,
        kept: [],
        lost: ['every message it held that was not sent yet'],
      };
    // A fresh snapshot: a torn tail, a skipped line or a file of an older version all become a clean journal.
    await this.snapshot();
    this.loaded = true;
    await this.manifest?.add(this.location, 'outbox').catch(() => undefined);
    return [...this.held.values()].map((e) => ({ ...e }));
  }

  /** Its configuration was deleted with nothing kept: the journal goes, on purpose (and off the manifest). */
  async discard(): Promise<void> {
    await this.close();
    await removeFile(this.location);
    await this.manifest?.remove(this.location);
  }

  // Each record's JSON is made once, as `{"add":<entry>}` etc. (the same text as JSON.stringify of the wrapper).
  add(entry: Readonly<OutboxEntry>): Promise<void> {
    const refused = this.refusal();
    if (refused) return refused;
    const copy = { ...entry };
    this.held.set(entry.id, copy);
    return this.enqueue('{"add":' + JSON.stringify(copy) + '}', entry.id, true);
  }

  update(entry: Readonly<OutboxEntry>): Promise<void> {
    const refused = this.refusal();
    if (refused) return refused;
    const fields = updateOf(entry);
    const held = this.held.get(entry.id);
    if (held) Object.assign(held, fields, { lastError: entry.lastError, notBefore: entry.notBefore });
    return this.enqueue('{"update":' + JSON.stringify(fields) + '}', undefined, true);
  }

  remove(id: string, options: { sent?: boolean } = {}): Promise<void> {
    const refused = this.refusal();
    if (refused) return refused;
    this.held.delete(id);
    return this.enqueue('{"remove":' + JSON.stringify(id) + '}', undefined, options.sent !== true);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.writing || this.scheduled) await (this.writing ?? new Promise((r) => setImmediate(r)));
    await this.flushed();
    if (this.unflushed && this.fh) {
      await this.fh.datasync();
      this.stats.syncs++;
      this.unflushed = false;
    }
    await this.fh?.close();
    this.fh = undefined;
  }

  /** A problem met while running: kept with the others and told at once. */
  private warn(text: string): void {
    this.warnings.push(text);
    this.onWarning?.(text);
  }

  /** Entries held now (for tests and the editor's listing). */
  get size(): number {
    return this.held.size;
  }

  private replay(text: string): void {
    const read = readJournal(text);
    this.warnings.push(...read.warnings.map((w) => `${this.location}: ${w}`));
    if (read.damaged > 0) {
      // A line lost may have been an entry's remove (it was sent) or its update (it may have been sent): every
      // entry kept is looked up by its reference first, so none goes out twice.
      for (const e of read.entries) e.maybeSent = true;
      this.damage = {
        file: this.location,
        kind: 'damaged',
        aside: copyAside(this.location),
        why: `${counted(read.damaged, 'unreadable record')}`,
        kept: [
          `${counted(read.entries.length, 'message')} (each looked up by its reference before it is sent again)`,
        ],
        lost: [
          `${counted(read.damaged, 'record')} of the outbox (an accepted message among them is not sent)`,
        ],
      }; // Also for the library's users (Outbox.warnings); the nodes tell it with node.error instead.
      this.warnings.push(damageText(this.damage));
    }
    for (const e of read.entries) this.held.set(e.id, e);
  }

  /** A record given while the journal is not open or closed: refused, and nothing of it is applied. */
  private refusal(): Promise<void> | undefined {
    if (!this.closed && this.loaded) return undefined;
    return Promise.reject(
      new GatewayError('CONFIG', `the outbox journal is ${this.closed ? 'closed' : 'not open'}`, {
        ambiguous: false,
      }),
    );
  }

  /**
   * Queues a record (its effect on `held` is applied by the caller at once, so a compaction includes it) and
   * resolves once it is flushed (`flush`) or written. The writer starts on the next turn of the event loop, so a
   * burst given in one turn is one write; records given while a flush is under way go into the next.
   */
  private enqueue(line: string, addId: string | undefined, flush: boolean): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ line, addId, flush, resolve, reject });
      this.kick();
    });
  }

  /**
   * Starts the writer unless it runs or is about to. A record queued by the continuation of a flushed one
   * arrives after drain() saw an empty queue but before `writing` is cleared: the writer looks once more.
   */
  private kick(): void {
    if (this.writing || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.writing = this.drain().finally(() => {
        this.writing = undefined;
        if (this.queue.length > 0) this.kick();
      });
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      // Batches stay small enough to be worth flushing apart: with MAX_FLUSHES under way, wait for one.
      while (this.flushing.size >= MAX_FLUSHES) await Promise.race(this.flushing);
      const batch = this.queue;
      this.queue = [];
      try {
        const at = this.whereIs();
        // Never written over: another writer's journal (an instance still closing, a copy put back by hand).
        if (at === 'other')
          throw new Error(
            `the outbox journal ${this.location} was replaced by another file, which is not written over (restart the flows to read it)`,
          );
        if (at === 'gone' && !this.broken)
          this.warn(
            `the outbox journal ${this.location} was moved or removed: written again from what it holds`,
          );
        if (
          this.broken ||
          at === 'gone' ||
          this.sinceSnapshot + batch.length > Math.max(this.compactAfter, 2 * this.held.size)
        ) {
          // The snapshot replaces the file: the flushes of the old one finish first.
          await this.flushed();
          await this.snapshot();
          this.done(batch);
        } else this.append(batch);
      } catch (e) {
        this.fail(batch, e);
      }
    }
  }

  /** Writes a batch; a batch that needs durability gets its own flush, not awaited (pipelined). */
  private append(batch: Pending[]): void {
    const fh = this.fh;
    if (!fh) throw new Error('the journal is not open');
    // The batch's lines sealed into one buffer, each encoded once (its checksum over those bytes).
    const lines: string[] = new Array<string>(batch.length);
    let needsFlush = false;
    for (let i = 0; i < batch.length; i++) {
      lines[i] = batch[i]!.line;
      if (batch[i]!.flush) needsFlush = true;
    }
    // A synchronous write: a few KB into the page cache, without a trip through libuv's thread pool and back
    // before the flush can start (on a busy machine each trip waits for a thread to be scheduled).
    const bytes = sealLines(lines);
    fh.writeSync(bytes);
    this.stats.bytes += bytes.length;
    this.sinceSnapshot += batch.length;
    // Only removes of sent messages: written now, flushed with the next record that needs it (or at close).
    if (!needsFlush) {
      this.unflushed = true;
      this.done(batch);
      return;
    }
    // This fdatasync starts after every earlier write returned: it covers them all, removes included.
    this.unflushed = false;
    const flush = fh.datasync().then(
      () => {
        this.stats.syncs++;
        this.done(batch);
      },
      (e: unknown) => this.fail(batch, e),
    );
    this.flushing.add(flush);
    void flush.finally(() => this.flushing.delete(flush));
  }

  /**
   * Whether the file at `location` is still the one this store wrote last. 'gone': it (or its directory) was
   * removed, renamed or replaced by a file, and appends would go where no restart finds them; 'other': another
   * file took its place. One stat per batch, not per record (16 µs measured on the loaded test machine, beside
   * ~0.3-0.5 ms for the flush).
   */
  private whereIs(): 'same' | 'gone' | 'other' {
    const at = this.opened;
    if (!at) return 'same';
    let now;
    try {
      now = sfs.statSync(this.location);
    } catch {
      return 'gone';
    }
    return now.ino === at.ino && now.dev === at.dev ? 'same' : 'other';
  }

  /** Resolves once every flush under way has returned. */
  private async flushed(): Promise<void> {
    while (this.flushing.size > 0) await Promise.all(this.flushing);
  }

  private done(batch: Pending[]): void {
    this.stats.records += batch.length;
    for (const p of batch) p.resolve();
  }

  private fail(batch: Pending[], e: unknown): void {
    this.broken = true;
    const text = e instanceof Error ? e.message : String(e);
    this.warnings.push(`outbox journal write failed: ${text}`);
    for (const p of batch) if (p.addId !== undefined) this.held.delete(p.addId);
    // Part of it may be on disk: a message whose add failed may still be sent after a restart.
    const err = new GatewayError('CONFIG', `the outbox could not store the message: ${text}`, {
      ambiguous: true,
      cause: e,
    });
    for (const p of batch) p.reject(err);
  }

  /** Rewrites the journal as one snapshot of what it holds (temp file, fsync, rename, fsync of the directory). */
  private async snapshot(): Promise<void> {
    let text = sealLine(HEADER) + '\n';
    for (const e of this.held.values()) text += sealLine(JSON.stringify({ add: e })) + '\n';
    await this.fh?.close();
    this.fh = undefined;
    // A directory removed while the journal was open is made again (a file in its place is not replaced).
    await sfs.mkdir(dirname(this.location), 0o700);
    await writeFileAtomic(this.location, text);
    // Ours from the rename on, also should opening it for appends fail (the next batch then writes it again).
    const st = sfs.statSync(this.location);
    this.opened = { dev: st.dev, ino: st.ino };
    this.fh = await sfs.open(this.location, 'a', 0o600);
    this.stats.syncs += 2;
    this.stats.bytes += Buffer.byteLength(text);
    this.stats.compactions++;
    this.sinceSnapshot = 0;
    this.broken = false;
    this.unflushed = false;
  }
}

/** What a journal's text holds: the entries (oldest first), lines that could not be read, and warnings. */
export function readJournal(text: string): { entries: OutboxEntry[]; damaged: number; warnings: string[] } {
  const held = new Map<string, OutboxEntry>();
  const warnings: string[] = [];
  const lines = text.split('\n');
  const sealed = isSealed(text);
  let damaged = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() === '') continue;
    let rec: Record<string, unknown>;
    try {
      // This version's lines carry their checksum: a line whose checksum does not match is not read at all.
      const line = sealed ? openLine(raw) : raw;
      if (line === undefined) throw new Error('checksum');
      rec = JSON.parse(line) as Record<string, unknown>;
      if (sealed && i === 0 && rec.version === VERSION) continue;
    } catch {
      // After the last newline: a record whose write never completed (its flush had not returned, nothing
      // acknowledged it). A whole record there (a version 1 file has no newline) is read as usual.
      if (i === lines.length - 1)
        warnings.push('an unfinished last record (a crash while writing, or the file cut short) was ignored');
      else damaged++;
      continue;
    }
    if (!applyRecord(held, rec, i === 0, warnings)) damaged++;
  }
  return { entries: [...held.values()], damaged, warnings };
}

/** Applies one record; false when it cannot be read. */
function applyRecord(
  held: Map<string, OutboxEntry>,
  rec: Record<string, unknown>,
  first: boolean,
  warnings: string[],
): boolean {
  if (first && Array.isArray(rec.entries) && typeof rec.version === 'number') {
    // A snapshot; version 1 (the whole outbox file before the journal) wrote `inFlight` with the same meaning.
    for (const raw of rec.entries as unknown[]) {
      const e = readEntry(raw);
      if (e) held.set(e.id, e);
      else warnings.push('an unreadable outbox entry was skipped');
    }
    return true;
  }
  if (rec.add !== undefined) {
    const e = readEntry(rec.add);
    if (e) held.set(e.id, e);
    return e !== undefined;
  }
  if (rec.update !== undefined) {
    const u = (rec.update ?? {}) as Record<string, unknown>;
    if (typeof u.id !== 'string') return false;
    const e = held.get(u.id);
    if (e) {
      if (typeof u.attempts === 'number') e.attempts = u.attempts;
      if (typeof u.maybeSent === 'boolean') e.maybeSent = u.maybeSent;
      if (typeof u.inFlight === 'boolean') e.inFlight = u.inFlight;
      e.lastError = typeof u.lastError === 'string' ? u.lastError : undefined;
      e.notBefore = typeof u.notBefore === 'number' && Number.isFinite(u.notBefore) ? u.notBefore : undefined;
    }
    return true;
  }
  if (typeof rec.remove === 'string') {
    held.delete(rec.remove);
    return true;
  }
  return false;
}
