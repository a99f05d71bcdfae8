/**
 * The spending guard's counts of one Node-RED instance, kept in a state file so a restart does not reset them
 * (`<userDir>/smsgw-state/budget.<config id>.json`, through the store: src/store). Each change is written as the
 * whole (small) book; a reservation resolves only once a write holding it is durable (many reservations share
 * one write: group commit), so a crash right after a send was started never forgets its count. Confirmations and
 * releases ride along with the next write (or the one at close): if one is lost, the count stays higher (the
 * safe side). A write that fails refuses the send (not counted); the store tells it once and tries again.
 *
 * A count file that should be there and is not (the manifest lists it), or a damaged one, is never a fresh
 * start: the book is marked lost (written at once, so a restart keeps it so) and every send is refused until a
 * person confirms the counts (confirmLost). Without a user directory the book lives in memory.
 */
import { StateFile, StoreWriteError, type RetryTimers, type StateDamage, type StoreProblem } from '../store';
import {
  BudgetBook,
  type BudgetLedger,
  type CountsConfirmed,
  type CountsLost,
  type ReserveAnswer,
  type ReserveRequest,
  type SpendHistory,
  type WindowCounts,
} from './budget-ledger';

export interface FileLedgerOptions {
  /** The count file was damaged or is missing (told once; the counts are lost until confirmed). */
  onDamage?(damage: StateDamage): void;
  /** The count file cannot be read or written (told once), or can again (undefined). */
  onProblem?(problem: StoreProblem | undefined): void;
  timers?: RetryTimers;
  now?(): number;
}

export class FileLedger implements BudgetLedger {
  private closed = false;
  /** Confirmed or released since the last write. */
  private dirty = false;

  private constructor(
    private readonly store: StateFile<BudgetBook> | undefined,
    private readonly book: BudgetBook,
  ) {}

  /**
   * Opens the book of config `id` in `<userDir>/smsgw-state/budget.<id>.json` (created on the first count), or one
   * in memory without a user directory. Waits while the file cannot be read (the store tells it).
   */
  static async open(
    userDir: string | undefined,
    id: string,
    options: FileLedgerOptions = {},
  ): Promise<FileLedger> {
    if (!userDir) return new FileLedger(undefined, new BudgetBook());
    let damage: StateDamage | undefined;
    const store = new StateFile<BudgetBook>(userDir, `budget.${id}`, {
      kind: 'budget',
      // All or nothing: any damage marks the counts lost, so one line (and one checksum) per member.
      lineItems: false,
      onDamage: (d) => {
        if (d.file === store.file) damage = d;
        options.onDamage?.(d);
      },
      ...(options.onProblem ? { onProblem: options.onProblem } : {}),
      ...(options.timers ? { timers: options.timers } : {}),
    });
    const raw = (await store.open()) as unknown;
    let book = new BudgetBook();
    let why: string | undefined;
    if (damage)
      why =
        damage.kind === 'missing'
          ? 'the count file is missing'
          : `the count file was damaged (${damage.why})`;
    if (raw !== undefined) {
      try {
        book = BudgetBook.from(raw);
      } catch (e) {
        why ??= `the count file holds no budget counts (${e instanceof Error ? e.message : String(e)})`;
      }
    }
    const ledger = new FileLedger(store, book);
    if (why !== undefined) {
      book.markLost({ why, where: store.where, since: (options.now ?? Date.now)() });
      // On disk at once: a restart before the next count still refuses.
      await store.save(book).catch(() => undefined);
    }
    return ledger;
  }

  get location(): string {
    return this.store?.where ?? 'memory';
  }

  get lost(): CountsLost | undefined {
    return this.book.lost;
  }

  /** Why the count file cannot be read or written now, or undefined. */
  get problem(): StoreProblem | undefined {
    return this.store?.problem;
  }

  async reserve(req: ReserveRequest): Promise<ReserveAnswer> {
    this.open();
    const answer = this.book.reserve(req);
    const changed = answer.result === 'reserved' || answer.warned.length > 0 || answer.limited.length > 0;
    if (!changed || !this.store) return answer;
    try {
      await this.store.save(this.book);
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

  history(now: number, days: readonly string[]): Promise<SpendHistory> {
    return Promise.resolve(this.book.history(now, days));
  }

  async confirmLost(by: string, now: number): Promise<CountsConfirmed> {
    this.open();
    const lost = this.book.lost;
    const before = this.book.confirmed;
    const confirmed = this.book.confirmLost(by, now);
    try {
      await this.store?.save(this.book);
    } catch (e) {
      // Not on disk: a restart would refuse again, so the confirmation did not happen.
      this.book.lost = lost;
      this.book.confirmed = before;
      throw e instanceof StoreWriteError ? e : new Error(String(e));
    }
    return confirmed;
  }

  /** Writes what is not written yet; later reservations are refused. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.dirty && this.store) await this.store.save(this.book).catch(() => undefined);
    await this.store?.close();
  }

  /** The configuration was deleted: its counts go (and off the manifest: their absence is no loss). */
  async remove(): Promise<void> {
    this.closed = true;
    await this.store?.remove();
  }

  private open(): void {
    if (this.closed) throw new Error('the budget ledger is closed');
  }
}
