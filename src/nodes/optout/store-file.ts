/**
 * The opt-out list of one instance: `<userDir>/smsgw-state/optout.<config id>.json`, through the store
 * (src/store: durable writes, a checksum per line, the manifest, retries). One line per number and per logged
 * change, so a damaged line costs one of them; but which number a damaged line held cannot be known, so any
 * damage, a file missing that the manifest lists, or values this version does not write mark the list lost
 * (list.ts says what that means). Without a user directory the list lives in memory (the config node says so).
 *
 * A change is applied in memory and written; its promise resolves once the write is on disk. A write that fails
 * rejects (the reader offers the STOP again, the flow's msg fails): a number put on the list stays on it in memory
 * meanwhile (the safe side: nothing goes to it), one taken off goes back on until a write holds the change.
 */
import {
  StateFile,
  StoreWriteError,
  type RetryTimers,
  type StateDamage,
  type StoreProblem,
} from '../../store';
import {
  ANSWER_EVERY_MS,
  OptOutBook,
  type ChangeRequest,
  type ListConfirmed,
  type ListLost,
  type OptChange,
  type OptEntry,
} from './book';
import type { OptOutList } from './list';

export interface FileListOptions {
  /** The file was damaged or is missing (told once; the list is lost until confirmed). */
  onDamage?(damage: StateDamage): void;
  /** The file cannot be read or written (told once), or can again (undefined). */
  onProblem?(problem: StoreProblem | undefined): void;
  timers?: RetryTimers;
  now?(): number;
}

export class FileOptOutList implements OptOutList {
  readonly shared = false;
  book = new OptOutBook();
  private readonly store: StateFile<OptOutBook>;
  private readonly opening: Promise<void>;
  private isOpen = false;
  private damage: StateDamage | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private readonly lostListeners: ((lost: ListLost) => void)[] = [];
  private readonly now: () => number;
  private closed = false;

  constructor(userDir: string | undefined, id: string, options: FileListOptions = {}) {
    this.now = options.now ?? Date.now;
    this.store = new StateFile<OptOutBook>(userDir, `optout.${id}`, {
      kind: 'optout',
      onDamage: (d) => {
        if (d.file === this.store.file) this.damage = d;
        options.onDamage?.(d);
      },
      ...(options.onProblem ? { onProblem: options.onProblem } : {}),
      ...(options.timers ? { timers: options.timers } : {}),
    });
    this.opening = this.open();
  }

  get where(): string {
    return this.store.where;
  }

  get opened(): boolean {
    return this.isOpen;
  }

  ready(): Promise<void> {
    return this.opening;
  }

  problem(): string | undefined {
    const p = this.store.problem;
    return p ? `cannot ${p.op === 'read' ? 'read' : 'save'} ${p.file}: ${p.code}` : undefined;
  }

  onLost(listener: (lost: ListLost) => void): void {
    this.lostListeners.push(listener);
    if (this.book.lost) listener(this.book.lost);
  }

  private async open(): Promise<void> {
    const raw = (await this.store.open()) as unknown;
    let why: string | undefined;
    if (this.damage)
      why =
        this.damage.kind === 'missing'
          ? 'the list file is missing'
          : `the list file was damaged (${this.damage.why})`;
    if (raw !== undefined) {
      const { book, odd } = OptOutBook.from(raw);
      this.book = book;
      if (odd > 0) why ??= `the list file holds values this version does not write (${odd})`;
    }
    this.isOpen = true;
    if (why !== undefined) {
      const lost: ListLost = { why, where: this.store.where, since: this.now() };
      this.book.lost = lost;
      // On disk at once: a restart before the next change still refuses.
      await this.store.save(this.book).catch(() => undefined);
      for (const l of this.lostListeners) l(lost);
    }
  }

  /** One change of the file at a time (a STOP, an import, a confirmation), in order. */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work, work);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private live(): void {
    if (this.closed) throw new Error('the opt-out list is closed');
  }

  change(requests: readonly ChangeRequest[]): Promise<OptChange[]> {
    return this.serial(async () => {
      this.live();
      await this.opening;
      const book = this.book;
      const at = this.now();
      const logLength = book.log.length;
      const before = new Map<string, OptEntry | undefined>();
      for (const r of requests) if (!before.has(r.key)) before.set(r.key, book.get(r.key));
      const changes = requests.map((r) => book.apply(r, at));
      try {
        await this.store.save(book);
      } catch (e) {
        // Not on disk: numbers taken off go back on (until a write holds it); numbers put on stay on.
        book.log.splice(logLength);
        for (const r of requests) {
          const old = before.get(r.key);
          if (r.out) book.note(changes.find((c) => c.key === r.key)!);
          else if (old?.out) book.set(r.key, old);
        }
        throw e;
      }
      return changes;
    });
  }

  recent(count: number): Promise<OptChange[]> {
    return Promise.resolve(this.book.log.slice(-count).reverse());
  }

  confirm(by: string): Promise<ListConfirmed | undefined> {
    return this.serial(async () => {
      this.live();
      await this.opening;
      const lost = this.book.lost;
      if (!lost) return undefined;
      const before = this.book.confirmed;
      const confirmed = { by, at: this.now() };
      this.book.lost = undefined;
      this.book.confirmed = confirmed;
      try {
        await this.store.save(this.book);
      } catch (e) {
        // Not on disk: a restart would refuse again, so the confirmation did not happen.
        this.book.lost = lost;
        this.book.confirmed = before;
        throw e instanceof StoreWriteError ? e : new Error(String(e));
      }
      return confirmed;
    });
  }

  claimAnswer(key: string): Promise<boolean> {
    return this.serial(async () => {
      this.live();
      await this.opening;
      const now = this.now();
      this.book.pruneAnswered(now);
      const last = this.book.answered.get(key);
      if (last !== undefined && last > now - ANSWER_EVERY_MS) return false;
      this.book.answered.set(key, now);
      try {
        await this.store.save(this.book);
      } catch (e) {
        this.book.answered.delete(key);
        throw e;
      }
      return true;
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.chain;
    await this.store.close();
  }
}
