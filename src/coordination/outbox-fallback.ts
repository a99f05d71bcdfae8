/**
 * The store of a coordinating config's outbox: the shared one in Redis, and the instance's own journal file for
 * the messages accepted while Redis could not take them (Redis away, or this instance's lease not held). Those
 * stay with this instance (nobody else can see them) and are sent by it once Redis is back; after a restart
 * they are loaded from the file as any outbox entry is.
 */
import type { OutboxEntry, OutboxStore, OutboxStoreStats } from '../reliability/outbox-store';
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

  async remove(id: string): Promise<void> {
    if (!this.local.has(id)) return this.shared.remove(id);
    await this.file.remove(id);
    this.local.delete(id);
  }

  /** Resolves when this instance may send the entry (its own, lease held); EntryTakenOver when not its own. */
  async owns(id: string): Promise<void> {
    if (this.local.has(id)) return;
    await this.shared.owns(id);
  }

  async close(): Promise<void> {
    await Promise.all([this.shared.close(), this.file.close()]);
  }
}
