/** The JSON state file: read at start, written atomically (temp file + rename), debounced, and on close. */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { PersistedState } from './store';

export class StateFile {
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;

  constructor(
    readonly path: string,
    private readonly delayMs: number,
    private readonly read: () => PersistedState,
  ) {}

  /** The saved state, or undefined when there is no file yet. A file that is not valid JSON throws. */
  static load(path: string): PersistedState | undefined {
    if (!existsSync(path)) return undefined;
    const text = readFileSync(path, 'utf8');
    try {
      return JSON.parse(text) as PersistedState;
    } catch (err) {
      throw new Error(`emulator state file ${path} is not valid JSON`, { cause: err });
    }
  }

  changed(): void {
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.delayMs);
    this.timer.unref();
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.dirty) return;
    this.dirty = false;
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    // The file holds account passwords (it is also the seed): readable by the owner only.
    writeFileSync(tmp, JSON.stringify(this.read()), { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}
