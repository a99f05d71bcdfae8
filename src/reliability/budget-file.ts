/**
 * The spending guard's counts of one Node-RED instance, kept in a file so a restart does not reset them
 * (`<userDir>/smsgw-state/budget.<config id>.json`, mode 600 in a 700 directory). Each change is written as the
 * whole (small) book: a temporary file, fsync, rename, fsync of the directory. A reservation resolves only once
 * a write holding it is durable (many reservations share one write: group commit), so a crash right after a
 * send was started never forgets its count. Confirmations and releases ride along with the next write (or the
 * one at close): if one is lost, the count stays higher (the safe side). Without a file (no user directory) the
 * book lives in memory.
 */
import { chmod, copyFile } from 'node:fs/promises';
import * as path from 'node:path';
import { privateDir, readIfExists, removeStaleTemps, writeFileAtomic } from './atomic-file';
import {
  BudgetBook,
  type BudgetLedger,
  type ReserveAnswer,
  type ReserveRequest,
  type WindowCounts,
} from './budget-ledger';

interface Waiter {
  version: number;
  resolve(): void;
  reject(err: unknown): void;
}

export class FileLedger implements BudgetLedger {
  /** Problems met while opening (a damaged file copied aside). */
  readonly warnings: string[] = [];
  private version = 0;
  private written = 0;
  private writing: Promise<void> | undefined;
  private readonly waiters: Waiter[] = [];
  private closed = false;
  /** Confirmed or released since the last write. */
  private dirty = false;

  private constructor(
    private readonly file: string | undefined,
    private book: BudgetBook,
  ) {}

  /** Opens the book in `file` (created on the first count), or one in memory when `file` is undefined. */
  static async open(file: string | undefined): Promise<FileLedger> {
    if (!file) return new FileLedger(undefined, new BudgetBook());
    await privateDir(path.dirname(file));
    // Temp files of writes a crash cut short take no disk space.
    await removeStaleTemps(file);
    const ledger = new FileLedger(file, new BudgetBook());
    const text = await readIfExists(file);
    if (text === undefined) return ledger;
    try {
      ledger.book = BudgetBook.from(JSON.parse(text));
    } catch (e) {
      // Never silently: the damaged file is kept beside for a look, and the caller says the counts restart.
      const aside = `${file}.damaged-${Date.now()}`;
      await copyFile(file, aside)
        .then(() => chmod(aside, 0o600))
        .catch(() => undefined);
      ledger.warnings.push(
        `the budget counts in ${file} cannot be read (${e instanceof Error ? e.message : String(e)}): copied to ${path.basename(aside)}; counting starts again from zero`,
      );
    }
    return ledger;
  }

  get location(): string {
    return this.file ?? 'memory';
  }

  async reserve(req: ReserveRequest): Promise<ReserveAnswer> {
    this.open();
    const answer = this.book.reserve(req);
    const changed = answer.result === 'reserved' || answer.warned.length > 0 || answer.limited.length > 0;
    if (!changed) return answer;
    try {
      await this.persist();
    } catch (e) {
      // Not durable: not counted either (the send does not go out).
      if (answer.result === 'reserved') this.book.release(req.key, req.now);
      throw e;
    }
    return answer;
  }

  // Confirmations and releases are written with the next reservation's write (or at close): lost in a crash,
  // they leave a reservation pending or a count higher, both on the safe side, and a send costs one write.
  confirm(key: string): Promise<void> {
    if (this.book.confirm(key)) this.dirty = true;
    return Promise.resolve();
  }

  release(key: string, now: number): Promise<void> {
    if (this.book.release(key, now)) this.dirty = true;
    return Promise.resolve();
  }

  counts(now: number, day: string, month: string): Promise<WindowCounts> {
    return Promise.resolve(this.book.counts(now, day, month));
  }

  /** Writes what is not written yet and waits for it; later reservations are refused. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.dirty) await this.persist().catch(() => undefined);
    while (this.writing) await this.writing;
  }

  private open(): void {
    if (this.closed) throw new Error('the budget ledger is closed');
  }

  /** Resolves once a write holding everything changed so far is durable. */
  private persist(): Promise<void> {
    if (!this.file) return Promise.resolve();
    const version = ++this.version;
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ version, resolve, reject }));
    this.writing ??= this.writeLoop(this.file);
    return done;
  }

  private async writeLoop(file: string): Promise<void> {
    while (this.written < this.version) {
      const version = this.version;
      this.dirty = false;
      let error: unknown;
      try {
        await writeFileAtomic(file, JSON.stringify(this.book));
      } catch (e) {
        error = e;
      }
      this.written = version;
      const settled = this.waiters.filter((w) => w.version <= version);
      this.waiters.splice(0, settled.length);
      for (const w of settled) {
        if (error === undefined) w.resolve();
        else w.reject(error);
      }
    }
    this.writing = undefined;
  }
}
