/**
 * One state file: `<userDir>/smsgw-state/<name>.json`, the one way this package keeps a component's state across a
 * restart (the readers', the triggers', the delivery tracker's, the ask nodes' questions, the budget counts).
 *
 *   - Written before anything follows from it: temp file, fsync, rename, fsync of the directory (durable.ts),
 *     mode 0600 in a 0700 directory, one write at a time, the latest value (saver.ts).
 *   - Every line sealed with a checksum (state-text.ts): a damaged file is copied aside (`<file>.damaged-<ms>`,
 *     0600), what can be trusted of it is used and written back at once, and `onDamage` says what was kept and lost.
 *   - A file the manifest lists (it was written before) that is not there is "missing", told as loudly.
 *   - A file that cannot be read now (EIO, EACCES, a directory in its place) is read again until it can be
 *     (`open()` waits, and `onProblem` tells it once): nothing is started on a guess.
 *   - A write that fails keeps the value in memory, is told once, tried again (1 s doubling to 30 s) and told
 *     once more when it works again.
 *
 * Without a user directory (embedded runtimes, some tests) the state lives in memory only.
 */
import * as path from 'node:path';
import { GatewayError } from '../errors';
import type { StateDamage } from './damage';
import {
  copyAside,
  privateDir,
  readIfExistsSync,
  removeFile,
  removeStaleTemps,
  writeFileAtomic,
} from './durable';
import type { StoreKind } from './kinds';
import { Manifest } from './manifest';
import { codeOf, RETRY_FIRST_MS, RETRY_MAX_MS, Saver, type RetryTimers, type SaveProblem } from './saver';
import { readState, stateText } from './state-text';

export const STATE_DIR = 'smsgw-state';

/** What a store tells about its file beyond damage: it cannot be read (op 'read') or written ('save'). */
export interface StoreProblem extends SaveProblem {
  op: 'read' | 'save';
}

/** A file that cannot be read now: nothing is started on it (code CONFIG). */
export class StoreReadError extends GatewayError {
  constructor(
    readonly problem: StoreProblem,
    cause?: unknown,
  ) {
    super('CONFIG', `cannot read ${problem.file}: ${problem.code} (${problem.message})`, {
      ambiguous: false,
      cause,
    });
  }
}

/** Where a component keeps its state: a state file, or a Node-RED context store (context-store.ts). */
export interface ValueStore<T> {
  readonly kind: StoreKind;
  /** Human-readable place, for logs. */
  readonly where: string;
  /**
   * Reads the state (undefined: nothing kept yet, or a missing file told through onDamage). Waits while it cannot
   * be read (told through onProblem); rejects only when closed meanwhile.
   */
  open(): Promise<T | undefined>;
  /** Saves `value` (the latest wins); resolves once on disk, rejects (StoreWriteError) when this write fails. */
  save(value: T): Promise<void>;
  /** Saves `value`; resolves once on disk, waiting through failed writes (retried). */
  durable(value: T): Promise<void>;
  /** Why it cannot be read or written now, or undefined. */
  readonly problem: StoreProblem | undefined;
  /** Tries a failing read or write again now. */
  retryNow(): Promise<void>;
  /** Waits for the write under way. */
  flush(): Promise<void>;
  /** One last try to write what is unsaved; then no more retries. */
  close(): Promise<void>;
  /** The state is dropped on purpose (a deleted node): the file goes, and off the manifest. */
  remove(): Promise<void>;
}

export interface StoreOptions {
  kind: StoreKind;
  /**
   * One line per item of a list or map (default): a damaged line costs one item. False: one line per member, for a
   * state that is all or nothing anyway (cheaper to write: one checksum per member).
   */
  lineItems?: boolean;
  /** Told once when the file cannot be read or written, and once when it can again (undefined). */
  onProblem?(problem: StoreProblem | undefined): void;
  /** The file (or the manifest) was damaged or is missing: copied aside, what was kept and lost. */
  onDamage?(damage: StateDamage): void;
  timers?: RetryTimers;
}

const realTimers: RetryTimers = {
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** The file name of a state: type and id, with anything but word characters, dots and dashes replaced. */
export const stateFileOf = (userDir: string, name: string): string =>
  path.join(userDir, STATE_DIR, `${name.replace(/[^A-Za-z0-9_.-]/g, '_')}.json`);

export class StateFile<T> implements ValueStore<T> {
  readonly kind: StoreKind;
  readonly file: string | undefined;
  readonly where: string;
  /** Set by open() when the file was damaged or missing (also told through onDamage). */
  damage: StateDamage | undefined;
  private value: T | undefined;
  private readonly saver: Saver | undefined;
  private readonly manifest: Manifest | undefined;
  private readProblem: StoreProblem | undefined;
  private readRetry: (() => void) | undefined;
  private closed = false;
  private dirReady = false;
  private readonly timers: RetryTimers;

  constructor(
    userDir: string | undefined,
    name: string,
    private readonly options: StoreOptions,
  ) {
    this.kind = options.kind;
    this.timers = options.timers ?? realTimers;
    this.file = userDir ? stateFileOf(userDir, name) : undefined;
    this.where = this.file ?? 'memory';
    this.manifest = userDir ? Manifest.of(userDir) : undefined;
    const file = this.file;
    if (file)
      this.saver = new Saver({
        file,
        write: () => this.write(file),
        onProblem: (p) => options.onProblem?.(p ? { ...p, op: 'save' } : undefined),
        timers: this.timers,
      });
  }

  get problem(): StoreProblem | undefined {
    const p = this.saver?.problem;
    return this.readProblem ?? (p ? { ...p, op: 'save' } : undefined);
  }

  /**
   * Reads the state once it can be read (see above). A damaged file: what can be read is returned and written
   * back at once (the next start reads a sound file); a missing one: undefined, told. Temp files a crash left go.
   */
  async open(): Promise<T | undefined> {
    const file = this.file;
    if (!file) return undefined;
    const manifestDamage = this.manifest?.takeDamage();
    if (manifestDamage) this.options.onDamage?.(manifestDamage);
    let delay = RETRY_FIRST_MS;
    for (;;) {
      if (this.closed)
        throw new StoreReadError(this.readProblem ?? this.problemOf(file, new Error('the store closed')));
      try {
        const value = this.read(file);
        if (this.readProblem) {
          this.readProblem = undefined;
          this.options.onProblem?.(undefined);
        }
        await removeStaleTemps(file);
        return value;
      } catch (e) {
        if (!(e instanceof StoreReadError)) throw e;
        if (!this.readProblem) {
          this.readProblem = e.problem;
          this.options.onProblem?.(e.problem);
        }
      }
      await new Promise<void>((resolve) => {
        const t = this.timers.setTimeout(() => {
          this.readRetry = undefined;
          resolve();
        }, delay);
        this.readRetry = () => {
          this.timers.clearTimeout(t);
          this.readRetry = undefined;
          resolve();
        };
      });
      delay = Math.min(delay * 2, RETRY_MAX_MS);
    }
  }

  private problemOf(file: string, e: unknown): StoreProblem {
    return {
      file,
      op: 'read',
      code: codeOf(e),
      message: e instanceof Error ? e.message : String(e),
      since: this.readProblem?.since ?? Date.now(),
    };
  }

  /** One read: the value, or a StoreReadError when the file cannot be read now. */
  private read(file: string): T | undefined {
    this.damage = undefined;
    let text: string | undefined;
    try {
      text = readIfExistsSync(file);
    } catch (e) {
      throw new StoreReadError(this.problemOf(file, e), e);
    }
    const manifest = this.manifest;
    if (text === undefined) {
      if (manifest?.listed(file)) {
        this.damage = {
          file,
          kind: 'missing',
          aside: undefined,
          why: `it was written before (listed in ${manifest.file}) and is not there now`,
          kept: [],
          lost: ['everything'],
        };
        this.options.onDamage?.(this.damage);
        // Told once: off the list until it is written again (a restart before that has nothing new to tell).
        void manifest.remove(file).catch(() => undefined);
      }
      return undefined;
    }
    // Written by a version before the manifest, or listed when it could not be: listed now.
    if (manifest && !manifest.listed(file)) void manifest.add(file, this.kind).catch(() => undefined);
    const read = readState(text);
    if (read.damage === undefined) return read.value as T | undefined;
    this.damage = {
      file,
      kind: 'damaged',
      aside: copyAside(file),
      why: read.damage,
      kept: read.kept,
      lost: read.lost,
    };
    this.options.onDamage?.(this.damage);
    // Written back now (not only at the next save): a restart before that would copy and report it again.
    this.value = (read.value ?? {}) as T;
    void this.saver?.attempt().catch(() => undefined);
    return read.value as T | undefined;
  }

  private async write(file: string): Promise<void> {
    const text = stateText((this.value ?? {}) as object, { items: this.options.lineItems !== false });
    // The directory is made (and narrowed to 0700) before the first write and after a write that failed (it may
    // have been removed): not twice per save.
    if (!this.dirReady) await privateDir(path.dirname(file));
    this.dirReady = true;
    try {
      await writeFileAtomic(file, text);
    } catch (e) {
      this.dirReady = false;
      throw e;
    }
    if (this.manifest && !this.manifest.listed(file))
      await this.manifest.add(file, this.kind).catch(() => undefined);
  }

  save(value: T): Promise<void> {
    this.value = value;
    return this.saver?.attempt() ?? Promise.resolve();
  }

  durable(value: T): Promise<void> {
    this.value = value;
    return this.saver?.durable() ?? Promise.resolve();
  }

  retryNow(): Promise<void> {
    this.readRetry?.();
    return this.saver?.retryNow() ?? Promise.resolve();
  }

  flush(): Promise<void> {
    return this.saver?.flush() ?? Promise.resolve();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.readRetry?.();
    await this.saver?.close();
  }

  async remove(): Promise<void> {
    const file = this.file;
    this.closed = true;
    await this.saver?.close().catch(() => undefined);
    if (!file) return;
    await removeFile(file);
    await this.manifest?.remove(file);
  }
}
