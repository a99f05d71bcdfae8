import { promises as fsp, readFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * A poller's cursor and recently seen ids, kept in `<userDir>/smsgw-state/<type>.<node id>.json` so they survive a
 * restart and a redeploy. Writes go to a temporary file renamed over the old one (atomic on POSIX), one at
 * a time. Without a userDir (embedded runtimes, some tests) the state lives in memory only.
 */
export class StateFile<T> {
  readonly file: string | undefined;
  private chain: Promise<void> = Promise.resolve();

  constructor(userDir: string | undefined, nodeType: string, nodeId: string) {
    const name = `${nodeType}.${nodeId}`.replace(/[^A-Za-z0-9_.-]/g, '_');
    this.file = userDir ? path.join(userDir, 'smsgw-state', `${name}.json`) : undefined;
  }

  /** Reads the state synchronously at node start; a missing or corrupt file means "no state yet". */
  load(): T | undefined {
    if (!this.file) return undefined;
    try {
      return JSON.parse(readFileSync(this.file, 'utf8')) as T;
    } catch {
      return undefined;
    }
  }

  save(state: T): Promise<void> {
    const file = this.file;
    if (!file) return Promise.resolve();
    const text = JSON.stringify(state);
    const next = this.chain.then(async () => {
      await fsp.mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      await fsp.writeFile(tmp, text, 'utf8');
      await fsp.rename(tmp, file);
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
