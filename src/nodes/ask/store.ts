/**
 * Where the open questions of one gateway configuration live: a state file under the user directory (one
 * instance), or Redis when the configuration coordinates instances (store-redis.ts). Only the holder (the one
 * instance that reads the gateway's inbound messages) changes a question; any instance may hand in a new question
 * or a cancellation (the inbox), which the holder takes from there.
 */
import type { Hold } from '../../coordination/lease';
import { StateFile, type RetryTimers, type StateDamage, type StoreProblem } from '../../store';
import { isQuestion } from './check';
import { recentlyFreed } from './codes';
import type { CancelRequest, Question } from './question';

export type { Hold };

export interface AskState {
  questions: Question[];
  /** Codes of closed questions and when they were freed (codes.ts). */
  freed: Record<string, number>;
}

export interface Inbox {
  questions: Question[];
  cancels: CancelRequest[];
}

export interface AskStore {
  /** Human-readable place, for logs. */
  readonly where: string;
  load(): Promise<AskState>;
  /**
   * Writes a question; `taken`: it came from the inbox, which drops it. False: this instance is not the holder.
   * Resolves once it is durable: a file that cannot be written is tried again until it can (see `problem`).
   */
  put(hold: Hold, q: Question, taken?: boolean): Promise<boolean>;
  /** Drops a closed question (and from the inbox) and notes its code as freed at `freedAt`; durable as put(). */
  remove(hold: Hold, q: Question, freedAt: number): Promise<boolean>;
  /** Hands in a new question (any instance). Resolves once it is durable; rejects when it cannot be stored. */
  submit(q: Question): Promise<void>;
  requestCancel(c: CancelRequest): Promise<void>;
  inbox(): Promise<Inbox>;
  /** A cancellation was applied: it leaves the inbox. */
  cancelDone(hold: Hold, key: string): Promise<boolean>;
  /** Waits for writes under way. */
  flush(): Promise<void>;
  /** Why the questions cannot be saved now (nothing follows from a change until they can), or undefined. */
  readonly problem?: StoreProblem | undefined;
  /** Tells `listener` when saving starts failing and when it works again. */
  watch?(listener: (problem: StoreProblem | undefined) => void): () => void;
  /** Tries a failing write again now. */
  retryNow?(): Promise<void>;
  /** One last write of what is unsaved; no more retries. */
  close?(): Promise<void>;
}

interface FileShape {
  questions: Record<string, Question>;
  inbox: Record<string, Question>;
  cancels: Record<string, CancelRequest>;
  freed: Record<string, number>;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The kept questions of a file, each checked (a damaged entry is left out and counted). */
function readShape(raw: unknown): { shape: FileShape; dropped: number } {
  const shape: FileShape = { questions: {}, inbox: {}, cancels: {}, freed: {} };
  let dropped = 0;
  if (!isRecord(raw)) return { shape, dropped };
  for (const part of ['questions', 'inbox'] as const) {
    const map = raw[part];
    if (!isRecord(map)) continue;
    for (const [id, q] of Object.entries(map)) {
      if (isQuestion(q) && q.id === id) shape[part][id] = q;
      else dropped++;
    }
  }
  if (isRecord(raw.cancels))
    for (const [k, c] of Object.entries(raw.cancels))
      if (isRecord(c) && typeof c.node === 'string' && typeof c.at === 'number')
        shape.cancels[k] = c as unknown as CancelRequest;
  if (isRecord(raw.freed))
    for (const [code, at] of Object.entries(raw.freed)) if (typeof at === 'number') shape.freed[code] = at;
  return { shape, dropped };
}

export interface FileAskStoreOptions {
  /** The file could not be read whole (copied aside, what could be read is used), or is missing. */
  onDamaged?: (damage: StateDamage) => void;
  /** So many questions in it could not be used (left out). */
  onDropped?: (count: number) => void;
  /** It cannot be read or saved (told once), or can again (undefined). */
  onProblem?: (problem: StoreProblem | undefined) => void;
  /** The file's retry timers (tests drive them by hand). */
  timers?: RetryTimers;
}

/**
 * One instance: `<userDir>/smsgw-state/smsgw-ask.<config id>.json`, written through the store (src/store) before
 * anything is sent or output for a change. A change the file cannot take (disk full, a directory in its place)
 * stays in memory and the engine waits for it (put and remove resolve once it is on disk, tried again on their own);
 * a new question or cancellation that cannot be stored is refused (its msg fails) and not kept. Without a user
 * directory: memory only.
 */
export class FileAskStore implements AskStore {
  private readonly file: StateFile<FileShape>;
  readonly where: string;
  private opened: Promise<FileShape> | undefined;
  private readonly listeners = new Set<(problem: StoreProblem | undefined) => void>();

  constructor(
    userDir: string | undefined,
    configId: string,
    private readonly options: FileAskStoreOptions = {},
  ) {
    this.file = new StateFile<FileShape>(userDir, `smsgw-ask.${configId}`, {
      kind: 'ask',
      onDamage: (d) => options.onDamaged?.(d),
      onProblem: (p) => {
        options.onProblem?.(p);
        for (const l of this.listeners) l(p);
      },
      ...(options.timers ? { timers: options.timers } : {}),
    });
    this.where = this.file.where;
  }

  get problem(): StoreProblem | undefined {
    return this.file.problem;
  }

  watch(listener: (problem: StoreProblem | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tries a failing write again now (tests; it is tried again on its own). */
  retryNow(): Promise<void> {
    return this.file.retryNow();
  }

  private shape(): Promise<FileShape> {
    this.opened ??= this.file.open().then((raw) => {
      const read = readShape(raw);
      if (read.dropped > 0) this.options.onDropped?.(read.dropped);
      return read.shape;
    });
    return this.opened;
  }

  async load(): Promise<AskState> {
    const s = await this.shape();
    return { questions: Object.values(s.questions).map((q) => structuredClone(q)), freed: { ...s.freed } };
  }

  async put(_hold: Hold, q: Question, taken = false): Promise<boolean> {
    const s = await this.shape();
    s.questions[q.id] = structuredClone(q);
    if (taken) delete s.inbox[q.id];
    await this.file.durable(s);
    return true;
  }

  async remove(_hold: Hold, q: Question, freedAt: number): Promise<boolean> {
    const s = await this.shape();
    delete s.questions[q.id];
    delete s.inbox[q.id];
    if (q.code) s.freed = { ...recentlyFreed(s.freed, freedAt), [q.code]: freedAt };
    await this.file.durable(s);
    return true;
  }

  async submit(q: Question): Promise<void> {
    const s = await this.shape();
    s.inbox[q.id] = structuredClone(q);
    try {
      await this.file.save(s);
    } catch (e) {
      // Not stored, not accepted: it must not come back with the next write that works.
      delete s.inbox[q.id];
      throw e;
    }
  }

  async requestCancel(c: CancelRequest): Promise<void> {
    const s = await this.shape();
    s.cancels[c.key] = c;
    try {
      await this.file.save(s);
    } catch (e) {
      delete s.cancels[c.key];
      throw e;
    }
  }

  async inbox(): Promise<Inbox> {
    const s = await this.shape();
    return {
      questions: Object.values(s.inbox).map((q) => structuredClone(q)),
      cancels: Object.values(s.cancels),
    };
  }

  async cancelDone(_hold: Hold, key: string): Promise<boolean> {
    const s = await this.shape();
    delete s.cancels[key];
    await this.file.durable(s);
    return true;
  }

  flush(): Promise<void> {
    return this.file.flush();
  }

  close(): Promise<void> {
    return this.file.close();
  }
}
