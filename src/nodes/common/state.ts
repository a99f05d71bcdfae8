/**
 * The nodes' side of the store (src/store): where a node's state lives (a state file, or the context store named
 * in its settings) and how a store's trouble is told: a damaged or missing file with one `node.error` naming it
 * and what was kept and lost; a file that cannot be read or saved with a red ring ("cannot save <file>: EISDIR"),
 * one `node.error` a Catch node hears (msg.topic "smsgw/store", msg.payload the file, operation and code) when it
 * starts and one log line when it works again.
 */
import * as path from 'node:path';
import type { Node, NodeAPI, NodeStatus } from 'node-red';
import {
  ContextValueStore,
  StateFile,
  StoreReadError,
  StoreWriteError,
  damageKey,
  damageParams,
  type StateDamage,
  type StoreKind,
  type StoreProblem,
  type ValueStore,
} from '../../store';
import { failed, sharedKey } from './status';
import { userDirOf } from './user-dir';

/** The global context key of a node's state: dots would be read as a property path, so only word chars. */
export const contextKey = (nodeType: string, nodeId: string): string =>
  `smsgw_state_${nodeType}_${nodeId}`.replace(/[^A-Za-z0-9_]/g, '_');

/** The file's name as a status shows it (the log names the whole path). */
const shortName = (file: string): string => (path.isAbsolute(file) ? path.basename(file) : file);

/** The red ring of a store that cannot read or save its file. */
export function storeStatus(RED: NodeAPI, p: StoreProblem): NodeStatus {
  return failed(
    RED._(sharedKey(p.op === 'read' ? 'status.cannotRead' : 'status.cannotSave'), {
      file: shortName(p.file),
      code: p.code,
    }),
  );
}

/** The error of a store problem, as a node's done(err) or a refusal carries it. */
export const storeError = (p: StoreProblem): StoreReadError | StoreWriteError =>
  p.op === 'read' ? new StoreReadError(p) : new StoreWriteError(p);

/** True for the errors a store throws when it cannot read or save (the store told it already, once). */
export const isStoreError = (e: unknown): e is StoreReadError | StoreWriteError =>
  e instanceof StoreReadError || e instanceof StoreWriteError;

/**
 * Tells a store problem once: node.error with a msg (a Catch node hears it), or, when it is over (undefined),
 * one log line. `last` is the problem told before (its file, for the line that says it is over).
 */
export function reportStoreProblem(
  RED: NodeAPI,
  node: Node,
  p: StoreProblem | undefined,
  last?: StoreProblem,
): void {
  if (!p) {
    if (last)
      node.log(
        RED._(sharedKey(last.op === 'read' ? 'log.storeReadable' : 'log.storeSaved'), { file: last.file }),
      );
    return;
  }
  const text = RED._(sharedKey(p.op === 'read' ? 'errors.cannotRead' : 'errors.cannotSave'), {
    file: p.file,
    code: p.code,
    message: p.message,
  });
  node.error(text, {
    topic: 'smsgw/store',
    payload: {
      file: p.file,
      op: p.op,
      code: p.code,
      message: p.message,
      since: new Date(p.since).toISOString(),
    },
  });
}

/** One node.error naming a damaged or missing file, what was kept and what was lost. */
export function reportDamage(RED: NodeAPI, node: Node, d: StateDamage): void {
  node.error(RED._(sharedKey(damageKey(d)), damageParams(d)));
}

/**
 * Remembers a store's problem for a node's status and tells it (above). `onChange` runs after each change, so the
 * node can show or clear the ring and carry on once it can save again.
 */
export class StoreWatch {
  problem: StoreProblem | undefined;

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
    private readonly onChange?: (problem: StoreProblem | undefined) => void,
  ) {}

  readonly report = (p: StoreProblem | undefined): void => {
    const last = this.problem;
    this.problem = p;
    reportStoreProblem(this.RED, this.node, p, last);
    this.onChange?.(p);
  };

  readonly damaged = (d: StateDamage): void => reportDamage(this.RED, this.node, d);

  /** The red ring while the store cannot read or save, else undefined. */
  status(): NodeStatus | undefined {
    return this.problem ? storeStatus(this.RED, this.problem) : undefined;
  }
}

/**
 * Where a trigger keeps its state: the context store named in its settings, or a state file
 * `<userDir>/smsgw-state/<type>.<node id>.json`.
 */
export function stateStoreFor<S>(
  RED: NodeAPI,
  node: Node,
  def: { id: string; type: string; store?: string },
  kind: StoreKind,
  watch: StoreWatch,
): ValueStore<S> {
  const name = typeof def.store === 'string' ? def.store.trim() : '';
  if (!name)
    return new StateFile<S>(userDirOf(RED), `${def.type}.${def.id}`, {
      kind,
      onDamage: watch.damaged,
      onProblem: watch.report,
    });
  const key = contextKey(def.type, node.id);
  return new ContextValueStore<S>(
    `context store "${name}", global key ${key}`,
    `context:${name}:${key}`,
    {
      get: () =>
        new Promise((resolve, reject) =>
          node.context().global.get(key, name, (err: Error | null | undefined, value: unknown) => {
            if (err) reject(err);
            else resolve(value);
          }),
        ),
      set: (value) =>
        new Promise<void>((resolve, reject) =>
          node.context().global.set(key, value, name, (err?: Error | null) => {
            if (err) reject(err);
            else resolve();
          }),
        ),
    },
    userDirOf(RED),
    { onDamage: watch.damaged, onProblem: watch.report },
  );
}
