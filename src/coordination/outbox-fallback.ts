/**
 * The store of a coordinating config's outbox: the shared one in Redis, and the instance's own journal file for
 * the messages accepted while Redis could not take them (Redis away, or this instance's lease not held). Those
 * are not sent from the file: once Redis is back, each is handed over to the shared queue (owned by this
 * instance) when its turn comes, then removed from the file, then sent. After a restart the file's entries are
 * loaded as any outbox entry is; one that was handed over just before the crash is found in Redis (owned by
 * this instance again, or by the instance that took it over) and is looked up before it is sent.
 */
import type { OutboxSender } from '../reliability/outbox';
import type { OutboxEntry, OutboxStore, OutboxStoreStats } from '../reliability/outbox-store';
import { EntryTakenOver } from '../reliability/outbox-store';
import type { SharedOutboxStore } from './shared-outbox';

export class FallbackOutboxStore implements OutboxStore {
  /** Ids of the entries kept in the local file. */
  private readonly local = new Set<string>();

  constructor(
    readonly shared: SharedOutboxStore,
    private readonly file: OutboxStore,
  ) {}

  get location(): string {
    return `${this.shared.location} (${this.file.location} while Redis is away)`;
  }

  get warnings(): string[] {
    return this.file.warnings;
  }

  get stats(): OutboxStoreStats {
    const a = this.shared.stats;
    const b = this.file.stats;
    return {
      records: a.records + b.records,
      syncs: a.syncs + b.syncs,
      bytes: a.bytes + b.bytes,
      compactions: a.compactions + b.compactions,
    };
  }

  /** True for an entry kept in this instance's file (not in Redis). */
  isLocal(id: string): boolean {
    return this.local.has(id);
  }

  async load(): Promise<OutboxEntry[]> {
    const entries = await this.file.load();
    for (const e of entries) this.local.add(e.id);
    return entries;
  }

  async add(entry: Readonly<OutboxEntry>): Promise<void> {
    try {
      await this.shared.add(entry);
      return;
    } catch {
      // Redis cannot take it now: the local write-ahead journal does (fsync'd), and this instance sends it.
    }
    this.local.add(entry.id);
    try {
      await this.file.add(entry);
    } catch (e) {
      this.local.delete(entry.id);
      throw e;
    }
  }

  update(entry: Readonly<OutboxEntry>): Promise<void> {
    return this.local.has(entry.id) ? this.file.update(entry) : this.shared.update(entry);
  }

  async remove(id: string, options?: { sent?: boolean }): Promise<void> {
    if (!this.local.has(id)) return this.shared.remove(id);
    await this.file.remove(id, options);
    this.local.delete(id);
  }

  /**
   * Resolves when this instance may send the entry (in Redis, its own, lease held): an entry of the file is
   * handed over to Redis first. Resolves true when it must be looked up before it is sent (Redis held it
   * already); EntryTakenOver when another instance owns it (its copy in the file is dropped: that one sends it).
   */
  async owns(entry: Readonly<OutboxEntry>): Promise<boolean> {
    if (!this.local.has(entry.id)) {
      await this.shared.owns(entry.id);
      return false;
    }
    let found: boolean;
    try {
      found = await this.shared.handOver(entry);
    } catch (e) {
      if (e instanceof EntryTakenOver) await this.remove(entry.id);
      throw e;
    }
    // In Redis now (durably, with appendfsync always): the file's copy goes. A crash in between leaves both;
    // the file's entry was stored in flight, so after the restart it is looked up first (and found in Redis).
    await this.file.remove(entry.id);
    this.local.delete(entry.id);
    return found;
  }

  async close(): Promise<void> {
    await Promise.all([this.shared.close(), this.file.close()]);
  }
}

/**
 * The outbox's sender of a coordinating config: before each attempt it checks in Redis that this instance owns
 * the entry and holds its lease, handing an entry of the file over to Redis first. EntryTakenOver goes to the
 * outbox (it forgets the entry); any other failure (Redis away, lease lost) becomes `unreachable(why)`: the
 * message is surely not sent and stays kept.
 */
export function ownedSender(
  store: FallbackOutboxStore,
  send: OutboxSender,
  unreachable: (why: string) => Error,
): OutboxSender {
  return async (entry, options) => {
    let lookupFirst: boolean;
    try {
      lookupFirst = await store.owns(entry);
    } catch (e) {
      if (e instanceof EntryTakenOver) throw e;
      throw unreachable(e instanceof Error ? e.message : String(e));
    }
    return send(entry, lookupFirst ? { ...options, lookupFirst } : options);
  };
}
