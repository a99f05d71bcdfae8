import type { Node } from 'node-red';
import { StateFile, type StateDamage } from './state-file';

/** Where a polling node keeps its cursor, seen ids and fetched-but-not-yet-emitted records. */
export interface StateStore<T> {
  /** Human-readable place, for logs. */
  readonly where: string;
  load(): Promise<T | undefined>;
  /** Writes one at a time, in call order. */
  save(state: T): Promise<void>;
  /** Waits for the writes already queued. */
  flush(): Promise<void>;
}

export class FileStateStore<T> implements StateStore<T> {
  private readonly file: StateFile<T>;
  readonly where: string;

  /** `onDamaged`: the file could not be read whole (it was copied aside; what could be read is loaded). */
  constructor(
    userDir: string | undefined,
    nodeType: string,
    nodeId: string,
    private readonly onDamaged?: (damage: StateDamage) => void,
  ) {
    this.file = new StateFile<T>(userDir, nodeType, nodeId);
    this.where = this.file.file ?? 'memory';
  }

  load(): Promise<T | undefined> {
    const state = this.file.load();
    if (this.file.damage) this.onDamaged?.(this.file.damage);
    return Promise.resolve(state);
  }

  save(state: T): Promise<void> {
    return this.file.save(state);
  }

  flush(): Promise<void> {
    return this.file.flush();
  }
}

/** The global context key of a node's state: dots would be read as a property path, so only word chars. */
export const contextKey = (nodeType: string, nodeId: string): string =>
  `smsgw_state_${nodeType}_${nodeId}`.replace(/[^A-Za-z0-9_]/g, '_');

/**
 * State in a Node-RED context store the user names (e.g. a Redis-backed one shared by several instances),
 * under the global context keyed by node type and id, through the asynchronous context API. Values are
 * stored as plain JSON copies so an in-memory store never shares objects with the node.
 */
export class ContextStateStore<T> implements StateStore<T> {
  readonly where: string;
  private readonly key: string;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly node: Node,
    private readonly store: string,
    nodeType: string,
  ) {
    this.key = contextKey(nodeType, node.id);
    this.where = `context store "${store}", global key ${this.key}`;
  }

  load(): Promise<T | undefined> {
    return new Promise((resolve, reject) => {
      this.node
        .context()
        .global.get(this.key, this.store, (err: Error | null | undefined, value: unknown) => {
          if (err) reject(err);
          else resolve(value === undefined || value === null ? undefined : (value as T));
        });
    });
  }

  save(state: T): Promise<void> {
    const copy = JSON.parse(JSON.stringify(state)) as unknown;
    const next = this.chain.then(
      () =>
        new Promise<void>((resolve, reject) => {
          this.node.context().global.set(this.key, copy, this.store, (err?: Error | null) => {
            if (err) reject(err);
            else resolve();
          });
        }),
    );
    this.chain = next.catch(() => undefined);
    return next;
  }

  flush(): Promise<void> {
    return this.chain;
  }
}
