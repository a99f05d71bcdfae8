/**
 * Which state files should exist: `<userDir>/smsgw-state.manifest.json`, kept beside the state directories (not
 * in them), so a file, or a whole directory, removed while Node-RED was down is noticed. A store lists its file
 * once it has written it the first time (one write of the manifest then, never one per save); a deliberate
 * removal (a deleted configuration's counts, an emptied outbox) takes it off. A file listed here and not found is
 * "missing" and told as loudly as a damaged one; a file not listed and not found is a first start.
 *
 * A manifest that is missing itself (the first start of a version that keeps one, or removed along with the
 * state) knows nothing: every store lists its file again as it finds or writes it. Its own damage is told by the
 * first store that reads it.
 */
import * as path from 'node:path';
import { counted } from '../count';
import type { StateDamage } from './damage';
import { copyAside, readIfExistsSync, writeFileAtomic } from './durable';
import type { StoreKind } from './kinds';
import { readState, stateText } from './state-text';

export const MANIFEST_NAME = 'smsgw-state.manifest.json';

interface Entry {
  kind: StoreKind;
  /** When it was first written (ms). */
  since: number;
}

const isEntry = (v: unknown): v is Entry =>
  typeof v === 'object' && v !== null && typeof (v as Entry).kind === 'string';

export class Manifest {
  private static readonly byDir = new Map<string, Manifest>();

  /** The one manifest of a user directory in this process. */
  static of(userDir: string): Manifest {
    const dir = path.resolve(userDir);
    let m = Manifest.byDir.get(dir);
    if (!m) Manifest.byDir.set(dir, (m = new Manifest(dir)));
    return m;
  }

  /** Tests: forgets every manifest read (a restart of the process reads them again). */
  static forgetAll(): void {
    Manifest.byDir.clear();
  }

  readonly file: string;
  private entries: Record<string, Entry> | undefined;
  /** The manifest itself was damaged when read (told once, by the first store that asks). */
  private damage: StateDamage | undefined;
  private chain: Promise<void> = Promise.resolve();

  private constructor(private readonly userDir: string) {
    this.file = path.join(userDir, MANIFEST_NAME);
  }

  /** The name a file is listed under: relative to the user directory (which may move), or a context key. */
  nameOf(file: string): string {
    return path.isAbsolute(file) ? path.relative(this.userDir, file) : file;
  }

  private read(): Record<string, Entry> {
    if (this.entries) return this.entries;
    const entries: Record<string, Entry> = {};
    let text: string | undefined;
    try {
      text = readIfExistsSync(this.file);
    } catch (e) {
      this.damage = {
        file: this.file,
        kind: 'damaged',
        aside: undefined,
        why: e instanceof Error ? e.message : String(e),
        kept: [],
        lost: ['the list of state files written before: a file removed since is not noticed'],
      };
    }
    if (text !== undefined) {
      const read = readState(text);
      const files = read.value?.files;
      if (files && typeof files === 'object')
        for (const [name, e] of Object.entries(files as Record<string, unknown>))
          if (isEntry(e)) entries[name] = { kind: e.kind, since: Number(e.since) || 0 };
      if (read.damage !== undefined)
        this.damage = {
          file: this.file,
          kind: 'damaged',
          aside: copyAside(this.file),
          why: read.damage,
          kept: [counted(Object.keys(entries).length, 'listed file')],
          lost: [...read.lost, 'a file listed there and removed since is not noticed'],
        };
    }
    this.entries = entries;
    return entries;
  }

  /** The manifest's own damage, once (the first caller tells it). */
  takeDamage(): StateDamage | undefined {
    this.read();
    const d = this.damage;
    this.damage = undefined;
    return d;
  }

  /** True when the file (or context key) was written before and not removed on purpose since. */
  listed(file: string): boolean {
    return this.read()[this.nameOf(file)] !== undefined;
  }

  /** Lists a file once it exists; resolves once the manifest holding it is on disk (a write only when new). */
  add(file: string, kind: StoreKind, now = Date.now()): Promise<void> {
    const name = this.nameOf(file);
    const entries = this.read();
    if (entries[name]) return this.chain;
    const entry = { kind, since: now };
    entries[name] = entry;
    return this.write().catch((e: unknown) => {
      // Not on disk: not listed either, so the next save of the file lists it again.
      if (entries[name] === entry) delete entries[name];
      throw e;
    });
  }

  /** Takes a file off the list: it was removed on purpose. */
  remove(file: string): Promise<void> {
    const name = this.nameOf(file);
    if (!this.read()[name]) return this.chain;
    delete this.read()[name];
    return this.write();
  }

  private write(): Promise<void> {
    const next = this.chain.then(() =>
      writeFileAtomic(this.file, stateText({ version: 1, files: this.read() })),
    );
    this.chain = next.catch(() => undefined);
    return next;
  }
}
