/**
 * A state kept in a store the user named instead of a file (a Node-RED context store, e.g. a Redis-backed one
 * shared by several instances), with as much of the store contract as such a store allows:
 *   - written before anything follows from it: a save resolves once the context store called back;
 *   - a write that fails: kept in memory, told once, tried again (saver.ts), told again when it works;
 *   - missing: once written, the key is listed in the manifest of the user directory (when there is one), and a
 *     listed key that is gone (a memory store after a restart, a store emptied) is told as loudly as a damaged file.
 * What it cannot give: fsync and the atomic rename (the context store writes when and how it does: Node-RED's
 * file store every 30 s by default), file modes, and the checksum (the store keeps a JSON value, no text of ours:
 * a damaged value is whatever its module makes of it). docs/reliability.md, "State files".
 */
import type { StateDamage } from './damage';
import { Manifest } from './manifest';
import { Saver, codeOf } from './saver';
import type { StoreOptions, StoreProblem, ValueStore } from './state-file';
import { StoreReadError } from './state-file';

/** What the context store must do: the async get and set of Node-RED's context API. */
export interface ContextBackend {
  get(): Promise<unknown>;
  set(value: unknown): Promise<void>;
}

export class ContextValueStore<T> implements ValueStore<T> {
  readonly kind = 'context' as const;
  private value: T | undefined;
  private readonly saver: Saver;
  private readonly manifest: Manifest | undefined;

  constructor(
    /** `context store "<name>", global key <key>` */
    readonly where: string,
    /** Its name in the manifest: `context:<store>:<key>`. */
    private readonly name: string,
    private readonly backend: ContextBackend,
    userDir: string | undefined,
    private readonly options: Omit<StoreOptions, 'kind'>,
  ) {
    this.manifest = userDir ? Manifest.of(userDir) : undefined;
    this.saver = new Saver({
      file: where,
      write: async () => {
        // A plain JSON copy: an in-memory store never shares objects with the node.
        await backend.set(JSON.parse(JSON.stringify(this.value ?? null)) as unknown);
        if (this.manifest && !this.manifest.listed(this.name))
          await this.manifest.add(this.name, 'context').catch(() => undefined);
      },
      onProblem: (p) => options.onProblem?.(p ? { ...p, op: 'save' } : undefined),
      ...(options.timers ? { timers: options.timers } : {}),
    });
  }

  get problem(): StoreProblem | undefined {
    const p = this.saver.problem;
    return p ? { ...p, op: 'save' } : undefined;
  }

  async open(): Promise<T | undefined> {
    let value: unknown;
    try {
      value = await this.backend.get();
    } catch (e) {
      const problem: StoreProblem = {
        file: this.where,
        op: 'read',
        code: codeOf(e),
        message: e instanceof Error ? e.message : String(e),
        since: Date.now(),
      };
      this.options.onProblem?.(problem);
      throw new StoreReadError(problem, e);
    }
    if (value === undefined || value === null) {
      if (this.manifest?.listed(this.name)) {
        const damage: StateDamage = {
          file: this.where,
          kind: 'missing',
          aside: undefined,
          why: `it was written before (listed in ${this.manifest.file}) and the context store does not have it now`,
          kept: [],
          lost: ['everything'],
        };
        this.options.onDamage?.(damage);
        // Told once: off the list until it is written again.
        void this.manifest.remove(this.name).catch(() => undefined);
      }
      return undefined;
    }
    return value as T;
  }

  save(value: T): Promise<void> {
    this.value = value;
    return this.saver.attempt();
  }

  durable(value: T): Promise<void> {
    this.value = value;
    return this.saver.durable();
  }

  retryNow(): Promise<void> {
    return this.saver.retryNow();
  }

  flush(): Promise<void> {
    return this.saver.flush();
  }

  close(): Promise<void> {
    return this.saver.close();
  }

  async remove(): Promise<void> {
    await this.saver.close().catch(() => undefined);
    await this.backend.set(undefined);
    await this.manifest?.remove(this.name);
  }
}
