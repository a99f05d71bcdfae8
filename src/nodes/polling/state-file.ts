import { chmodSync, copyFileSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { privateDir, removeStaleTemps, writeFileAtomic } from '../../reliability/atomic-file';
import { readState, stateText } from './state-text';

/** A state file that could not be read whole: where it was copied and what was kept of it. */
export interface StateDamage {
  file: string;
  /** The copy of the damaged file (`<file>.damaged-<ms>`), or undefined when it could not be made. */
  aside: string | undefined;
  /** Why it could not be read whole. */
  why: string;
  /** What was kept (and is used now), e.g. "pending (2 item(s))"; empty when nothing. */
  kept: string[];
  /** What was lost. */
  lost: string[];
}

/** The parameters of the nodes' message about a damaged state file (errors.stateDamaged). */
export const damageParams = (d: StateDamage): Record<string, string> => ({
  file: d.file,
  aside: d.aside ?? '-',
  why: d.why,
  kept: d.kept.length > 0 ? d.kept.join(', ') : '-',
  lost: d.lost.join(', '),
});

/**
 * A poller's cursor and recently seen ids, kept in `<userDir>/smsgw-state/<type>.<node id>.json` so they survive a
 * restart and a redeploy. They hold message texts and phone numbers: written as the outbox journal is (temp file,
 * fsync, rename, fsync of the directory), mode 0600 in a 0700 directory, one at a time, one value per line
 * (state-text.ts) so that a damaged file costs the lines it damaged, not the file. Without a userDir (embedded
 * runtimes, some tests) the state lives in memory only.
 */
export class StateFile<T> {
  readonly file: string | undefined;
  /** Set by load() when the file could not be read whole (the caller reports it: node.error). */
  damage: StateDamage | undefined;
  private chain: Promise<void> = Promise.resolve();

  constructor(userDir: string | undefined, nodeType: string, nodeId: string) {
    const name = `${nodeType}.${nodeId}`.replace(/[^A-Za-z0-9_.-]/g, '_');
    this.file = userDir ? path.join(userDir, 'smsgw-state', `${name}.json`) : undefined;
  }

  /**
   * Reads the state synchronously at node start; a missing file means "no state yet". A file that cannot be
   * read whole is copied aside, what can be read of it is returned (and written back at once, so the next start
   * reads a sound file), and `damage` says what was kept and lost. Temp files a crash left are removed.
   */
  load(): T | undefined {
    const file = this.file;
    this.damage = undefined;
    if (!file) return undefined;
    this.chain = this.chain.then(() => removeStaleTemps(file).then(() => undefined));
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      const why = e instanceof Error ? e.message : String(e);
      this.damage = { file, aside: this.copyAside(file), why, kept: [], lost: ['everything'] };
      return undefined;
    }
    const read = readState(text);
    if (read.damage === undefined) return read.value as T | undefined;
    this.damage = { file, aside: this.copyAside(file), why: read.damage, kept: read.kept, lost: read.lost };
    // Written back now (not only at the next save): a restart before that would copy and report it again.
    void this.save((read.value ?? {}) as T).catch(() => undefined);
    return read.value as T | undefined;
  }

  private copyAside(file: string): string | undefined {
    const aside = `${file}.damaged-${Date.now()}`;
    try {
      copyFileSync(file, aside);
      chmodSync(aside, 0o600);
      return aside;
    } catch {
      return undefined;
    }
  }

  save(state: T): Promise<void> {
    const file = this.file;
    if (!file) return Promise.resolve();
    const text = stateText(state as object);
    const next = this.chain.then(async () => {
      await privateDir(path.dirname(file));
      await writeFileAtomic(file, text);
    });
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Waits for writes already queued (close handlers call this so a redeploy reads the latest state). */
  flush(): Promise<void> {
    return this.chain;
  }
}

/** Recently seen ids in arrival order, bounded so the state file stays small. */
export class SeenIds {
  private readonly set: Set<string>;

  constructor(
    ids: readonly string[] = [],
    private readonly max = 5000,
  ) {
    this.set = new Set(ids.slice(-max));
  }

  has(id: string): boolean {
    return this.set.has(id);
  }

  add(id: string): void {
    this.set.delete(id);
    this.set.add(id);
    while (this.set.size > this.max) {
      const first = this.set.values().next().value;
      if (first === undefined) break;
      this.set.delete(first);
    }
  }

  toJSON(): string[] {
    return [...this.set];
  }
}
