/**
 * An opt-out list as the rest of the package uses it, wherever it is kept: a state file of one instance
 * (store-file.ts) or Redis, shared by the instances of a configuration (store-redis.ts). Each keeps the whole list
 * in memory (the check of a send's recipients reads memory only: no disk or network on a send) and make every
 * change durable before the promise of the change resolves.
 *
 * Lost (docs/reliability.md, "Opt-out list lost"): a list that should exist and does not (the file listed in the
 * store's manifest and gone, a damaged file, a Redis that lost its data) is never a fresh start. What could be
 * read (and, under Redis, what each instance still holds in memory) is kept, the list is marked lost (durably:
 * a restart keeps it so) and every send is refused until a person confirms the list: the numbers missing from it
 * cannot be known, and texting one of them would text someone who said STOP. STOP, START and the other changes
 * are still taken meanwhile.
 */
import type { ChangeRequest, ListConfirmed, ListLost, OptChange, OptOutBook } from './book';

export interface OptOutList {
  /** Where the list lives (a file, the Redis keys), for messages. */
  readonly where: string;
  /** Shared by the instances of the configuration through Redis. */
  readonly shared: boolean;
  /** The list in memory (the check reads it; under Redis a copy kept up to date). */
  readonly book: OptOutBook;
  /** Resolves once the list is read; rejects when it never can be (closed meanwhile). */
  ready(): Promise<void>;
  /** True once it has been read. */
  readonly opened: boolean;
  /** Why the list cannot be read, written or reached now, or undefined. */
  problem(): string | undefined;
  /** Makes changes, all or none; resolves once they are durable, with the changes as logged. */
  change(requests: readonly ChangeRequest[]): Promise<OptChange[]>;
  /** A person confirms a lost list as it is now: sends go out again. Durable when it resolves. */
  confirm(by: string): Promise<ListConfirmed | undefined>;
  /**
   * Whether an answer to a keyword may go to this number now (none went in the last day): true notes it, durably,
   * so a second STOP the same day is not answered again, also after a restart or on another instance.
   */
  claimAnswer(key: string): Promise<boolean>;
  /** The last `count` changes, newest first (under Redis: every instance's). */
  recent(count: number): Promise<OptChange[]>;
  /** Told once per loss found (at open, or under Redis while running). */
  onLost(listener: (lost: ListLost) => void): void;
  close(): Promise<void>;
}
