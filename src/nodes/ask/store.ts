/**
 * Where the open questions of one gateway configuration live: a state file under the user directory (one
 * instance), or Redis when the configuration coordinates instances (store-redis.ts). Only the holder (the one
 * instance that reads the gateway's inbound messages) changes a question; any instance may hand in a new question
 * or a cancellation (the inbox), which the holder takes from there.
 */
import type { Hold } from '../../coordination/lease';
import { StateFile, type StateDamage } from '../polling/state-file';
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
  /** Writes a question; `taken`: it came from the inbox, which drops it. False: this instance is not the holder. */
  put(hold: Hold, q: Question, taken?: boolean): Promise<boolean>;
  /** Drops a closed question (and from the inbox) and notes its code as freed at `freedAt`. */
  remove(hold: Hold, q: Question, freedAt: number): Promise<boolean>;
  /** Hands in a new question (any instance). Resolves once it is durable. */
  submit(q: Question): Promise<void>;
  requestCancel(c: CancelRequest): Promise<void>;
  inbox(): Promise<Inbox>;
  /** A cancellation was applied: it leaves the inbox. */
  cancelDone(hold: Hold, key: string): Promise<boolean>;
  /** Waits for writes under way. */
  flush(): Promise<void>;
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

/**
 * One instance: `<userDir>/smsgw-state/smsgw-ask.<config id>.json`, written as every state file is (temp file,
 * fsync, rename; state-file.ts), before anything is sent for a change. Without a user directory: memory only.
 */
export class FileAskStore implements AskStore {
  private readonly file: StateFile<FileShape>;
  readonly where: string;
  private shape: FileShape | undefined;

  /**
   * `onDamaged`: the file could not be read whole (copied aside, what could be read is used); `onDropped`: so many
   * questions in it could not be used (left out).
   */
  constructor(
    userDir: string | undefined,
    configId: string,
    private readonly onDamaged?: (damage: StateDamage) => void,
    private readonly onDropped?: (count: number) => void,
  ) {
    this.file = new StateFile<FileShape>(userDir, 'smsgw-ask', configId);
    this.where = this.file.file ?? 'memory';
  }

  private get state(): FileShape {
    if (!this.shape) {
      const read = readShape(this.file.load());
      this.shape = read.shape;
      if (this.file.damage) this.onDamaged?.(this.file.damage);
      if (read.dropped > 0) this.onDropped?.(read.dropped);
    }
    return this.shape;
  }

  private save(): Promise<void> {
    return this.file.save(this.state);
  }

  load(): Promise<AskState> {
    const s = this.state;
    return Promise.resolve({ questions: Object.values(s.questions), freed: { ...s.freed } });
  }

  async put(_hold: Hold, q: Question, taken = false): Promise<boolean> {
    const s = this.state;
    s.questions[q.id] = structuredClone(q);
    if (taken) delete s.inbox[q.id];
    await this.save();
    return true;
  }

  async remove(_hold: Hold, q: Question, freedAt: number): Promise<boolean> {
    const s = this.state;
    delete s.questions[q.id];
    delete s.inbox[q.id];
    if (q.code) s.freed = { ...recentlyFreed(s.freed, freedAt), [q.code]: freedAt };
    await this.save();
    return true;
  }

  async submit(q: Question): Promise<void> {
    this.state.inbox[q.id] = structuredClone(q);
    await this.save();
  }

  async requestCancel(c: CancelRequest): Promise<void> {
    this.state.cancels[c.key] = c;
    await this.save();
  }

  inbox(): Promise<Inbox> {
    const s = this.state;
    return Promise.resolve({ questions: Object.values(s.inbox), cancels: Object.values(s.cancels) });
  }

  async cancelDone(_hold: Hold, key: string): Promise<boolean> {
    delete this.state.cancels[key];
    await this.save();
    return true;
  }

  flush(): Promise<void> {
    return this.file.flush();
  }
}
