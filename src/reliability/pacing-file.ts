/**
 * The pacing book of one Node-RED instance in a state file (`<userDir>/smsgw-state/pacing.<config id>.json`,
 * through the store: one line per number), so a restart does not forget what each number was sent within the
 * longest window. A reservation resolves only once a write holding it is on disk (many share one write: group
 * commit), so a message never goes out on a slot a crash could forget; settling and giving back ride along with
 * the next write (lost in a crash, they leave a number's time counted: the safe side). A write that fails refuses
 * the message (nothing reserved, nothing sent: CONFIG), the store tells it once and tries again.
 *
 * A file that is damaged, or missing although it was written before, is never a fresh start: the book is marked
 * lost from that moment, and every number it does not know counts as having had its whole allowance then, so
 * messages to such numbers wait until the longest window has passed (critical ones keep their allowance).
 * Without a user directory the book lives in memory.
 */
import { StateFile, type RetryTimers, type StateDamage, type StoreProblem } from '../store';
import { systemClock, type Clock } from './clock';
import {
  longestWindow,
  PaceBook,
  type PaceAnswer,
  type Pacer,
  type PaceLost,
  type PaceRequest,
  type PaceSettings,
} from './pacing';

export interface FilePacerOptions {
  /** The file was damaged or is missing (told once; numbers it does not know wait out the longest window). */
  onDamage?(damage: StateDamage): void;
  /** The file cannot be read or written (told once), or can again (undefined). */
  onProblem?(problem: StoreProblem | undefined): void;
  timers?: RetryTimers;
  clock?: Clock;
}

export class FilePacer implements Pacer {
  private dirty = false;
  private closed = false;

  private constructor(
    private readonly store: StateFile<PaceBook> | undefined,
    readonly book: PaceBook,
    private readonly clock: Clock,
  ) {}

  get settings(): PaceSettings {
    return this.book.settings;
  }

  /**
   * Opens the book of config `id` in `<userDir>/smsgw-state/pacing.<id>.json` (created on the first reservation),
   * or one in memory without a user directory. Waits while the file cannot be read (the store tells it).
   */
  static async open(
    userDir: string | undefined,
    id: string,
    settings: PaceSettings,
    options: FilePacerOptions = {},
  ): Promise<FilePacer> {
    const clock = options.clock ?? systemClock;
    if (!userDir) return new FilePacer(undefined, new PaceBook(settings), clock);
    let damage: StateDamage | undefined;
    const store = new StateFile<PaceBook>(userDir, `pacing.${id}`, {
      kind: 'pacing',
      onDamage: (d) => {
        if (d.file === store.file) damage = d;
        options.onDamage?.(d);
      },
      ...(options.onProblem ? { onProblem: options.onProblem } : {}),
      ...(options.timers ? { timers: options.timers } : {}),
    });
    const raw = (await store.open()) as unknown;
    const book = PaceBook.from(raw, settings);
    const pacer = new FilePacer(store, book, clock);
    if (damage) {
      const why =
        damage.kind === 'missing'
          ? 'the pacing file is missing'
          : `the pacing file was damaged (${damage.why})`;
      book.lost = { why, since: clock.now() };
      // On disk at once: a restart before the next reservation still knows it.
      await store.save(book).catch(() => undefined);
    }
    return pacer;
  }

  get location(): string {
    return this.store?.where ?? 'memory';
  }

  get lost(): PaceLost | undefined {
    const lost = this.book.lost;
    return lost && this.clock.now() < lost.since + longestWindow(this.settings) ? lost : undefined;
  }

  /** Why the file cannot be read or written now, or undefined. */
  get problem(): StoreProblem | undefined {
    return this.store?.problem;
  }

  async reserve(req: Omit<PaceRequest, 'now'>): Promise<PaceAnswer> {
    if (this.closed) throw new Error('the pacing book is closed');
    const answer = this.book.reserve({ ...req, now: this.clock.now() });
    if (!answer.reserved || answer.via === 'pending' || !this.store) return answer;
    try {
      await this.store.save(this.book);
    } catch (e) {
      // Not on disk: not reserved either (the message does not go out on it).
      this.book.release(req.id);
      throw e;
    }
    this.dirty = false;
    return answer;
  }

  settle(id: string): void {
    if (this.book.settle(id)) this.dirty = true;
  }

  release(id: string): void {
    if (this.book.release(id)) this.dirty = true;
  }

  /** Writes what is not written yet; later reservations are refused. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.dirty && this.store) await this.store.save(this.book).catch(() => undefined);
    await this.store?.close();
  }

  /** The configuration was deleted: its book goes (and off the manifest: its absence is no loss). */
  async remove(): Promise<void> {
    this.closed = true;
    await this.store?.remove();
  }
}
