/**
 * A trigger node as a listener of its config node's reader of a queue (queue-reader.ts): the inbound SMS trigger
 * and the HLR results trigger. The reader reads; the trigger turns the records given to it into msgs, hands them on
 * and shows what happened. It keeps the keys of the records it handed on in its own state (a file under the user
 * directory, or the context store named in its settings), so a record offered again (after a crash, or recovered
 * after a lost answer) is not emitted twice; under Redis coordination the reader keeps them in Redis for it.
 */
import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow, NodeStatus } from 'node-red';
import { NodeGatewayError, statusTextOf, toGatewayError } from '../common/errors';
import { failed, idle, sharedKey } from '../common/status';
import { GatewayError } from '../../errors';
import type { SmsgwConfigNode } from '../config/config-node';
import { EMIT_BATCH } from './emit';
import type { Unusable } from './odd-records';
import { MIN_INTERVAL_S, type PollDef } from './poll-node';
import { StoreWatch, isStoreError, reportStoreProblem, stateStoreFor, storeStatus } from '../common/state';
import { decodePending, receivedStatus } from './pending';
import type { QueueKind } from './queue-kinds';
import type { ListenerHandle, ReaderEvent, RecordMarks } from './queue-reader';
import { ownsReaders } from './reader-host';
import { SeenIds } from './seen-ids';

/** What a listening trigger keeps: the keys it handed on; `pending` only as left by earlier versions (before one reader per configuration). */
interface ListenerState {
  seen?: string[];
  pending?: unknown[];
}

export interface ListenOptions<R> {
  /** HLR results: records per read (0 = all). */
  limit?: number;
  /**
   * The msg for a record not handed on before (none: left out), or the error path for one it cannot use.
   * `marks`: what the reader's first takers (the ask hub, the opt-out list) marked on it, if anything.
   */
  toMessage(record: R, marks: RecordMarks | undefined): { msg?: NodeMessage; unusable?: Unusable };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A msg kept in Redis by a trigger of an earlier version (it staged msgs; the reader stages records): handed on as
 * it is. Records have no `payload`.
 */
const isStagedMsg = (r: unknown): r is NodeMessage =>
  typeof r === 'object' && r !== null && 'payload' in r && ('sms' in r || 'topic' in r);

export function listenTo<R>(
  RED: NodeAPI,
  node: Node,
  def: PollDef,
  config: SmsgwConfigNode | undefined,
  kind: QueueKind<R>,
  options: ListenOptions<R>,
): void {
  const onInputMode = Number(def.inputs) === 1;
  if (!config || !ownsReaders(config)) {
    // No config: the status says so (attachConfig); a poll on input reports it to Catch.
    if (onInputMode)
      node.on('input', (_msg: NodeMessageInFlow, _send, done) =>
        done(new NodeGatewayError(new GatewayError('CONFIG', 'no gateway configuration selected'))),
      );
    return;
  }
  /** What the node showed last for the polls, but not an AUTH failure (stale once the account works). */
  let lastOwnStatus: NodeStatus = {};
  const watch = new StoreWatch(RED, node, (problem) => {
    const ring = watch.status();
    if (ring) node.status(ring);
    else if (!problem) node.status(lastOwnStatus);
  });
  const store = stateStoreFor<ListenerState>(
    RED,
    node,
    def,
    def.store?.trim() ? 'context' : 'listener',
    watch,
  );
  let seen = new SeenIds();
  let leftOver: NodeMessage[] = [];
  /** The state is read (or could not be): until then a poll cannot know whether msgs were left over. */
  let opened = false;
  const ready = store
    .open()
    .then(
      (loaded) => {
        seen = new SeenIds(Array.isArray(loaded?.seen) ? loaded.seen : []);
        leftOver = Array.isArray(loaded?.pending) ? decodePending(loaded.pending) : [];
      },
      (err: unknown) => {
        node.warn(RED._(sharedKey('errors.stateLoad'), { where: store.where, message: String(err) }));
      },
    )
    .finally(() => (opened = true));
  let closed = false;
  let emitted = 0;
  let chain: Promise<void> = Promise.resolve();
  // Under Redis coordination the reader keeps in Redis what this trigger got; the trigger keeps nothing.
  const coordinated = config.coordination !== undefined;

  /**
   * The keys handed on, on disk before the reader may drop the records: a save that fails rejects the take, so the
   * reader keeps them and offers them again (the keys in memory keep them from being emitted twice meanwhile).
   */
  const save = async (): Promise<void> => {
    if (coordinated) return;
    await store.save({ seen: seen.toJSON() });
  };

  const stopping = (signal: AbortSignal): boolean => signal.aborted || closed;

  /** Fetched by this trigger before it listened to its config's reader, and maybe never emitted: first. */
  const flushLeftOver = async (): Promise<void> => {
    await ready;
    if (leftOver.length === 0 || closed) return;
    for (const m of leftOver) node.send(m);
    emitted += leftOver.length;
    leftOver = [];
    await store.save({ seen: seen.toJSON() }).catch(() => undefined);
  };

  /** One delivery (or the left-over msgs) at a time, in order. */
  const serial = (work: () => Promise<void>): Promise<void> => {
    const next = chain.then(work);
    chain = next.catch(() => undefined);
    return next;
  };

  const take = async (
    records: readonly R[],
    signal: AbortSignal,
    marks: readonly (RecordMarks | undefined)[],
  ): Promise<void> => {
    if (closed) throw new Error('the node is stopping');
    await flushLeftOver();
    let done = 0;
    // EMIT_BATCH records per turn of the event loop (emit.ts says why); between two, a stopping flow ends it.
    for (const [i, record] of records.entries()) {
      if (done > 0 && done % EMIT_BATCH === 0) {
        await turn();
        if (stopping(signal)) {
          // What went out is noted; the rest is offered again.
          await save();
          throw new Error('the node is stopping');
        }
      }
      done += 1;
      if (isStagedMsg(record)) {
        node.send(record);
        emitted += 1;
        continue;
      }
      // Under coordination the reader gives each record once (it notes the keys in Redis); the keys this trigger
      // noted itself (before coordination was switched on) still hold.
      const key = kind.key(record);
      if (seen.has(key)) continue;
      seen.add(key);
      const out = options.toMessage(record, marks[i]);
      if (out.msg) {
        node.send(out.msg);
        emitted += 1;
      }
      // A record the node cannot tell apart: the error path, once (its key is noted like the others').
      if (out.unusable) node.error(out.unusable.error, out.unusable.msg);
    }
    await save();
  };

  const onEvent = (e: ReaderEvent): void => {
    if (closed) return;
    switch (e.type) {
      case 'polling':
        emitted = 0;
        node.status({ fill: 'blue', shape: 'dot', text: sharedKey('status.polling') });
        // A poll that starts before the state is read still hands on what was left over (after the read), even
        // when it brings nothing new: otherwise those msgs waited for the next poll that brings records.
        if (!opened || leftOver.length > 0) void serial(flushLeftOver);
        return;
      case 'polled':
        lastOwnStatus = receivedStatus(RED, emitted, Math.min(e.recovered, emitted));
        node.status(watch.status() ?? lastOwnStatus);
        emitted = 0;
        return;
      case 'authRecovered':
        // Polling on an interval, the reader polls at once and the status follows; on input, what it showed last.
        if (onInputMode) node.status(lastOwnStatus);
        return;
      case 'store':
        // The config's reader cannot save what it read: it reads and hands on nothing until it can.
        if (e.tell) reportStoreProblem(RED, node, e.problem, e.last);
        node.status(e.problem ? storeStatus(RED, e.problem) : (watch.status() ?? lastOwnStatus));
        return;
      case 'warn':
        node.warn(e.text);
        return;
      case 'standby':
        node.status(
          e.problem
            ? {
                fill: 'red',
                shape: 'ring',
                text: RED._(sharedKey('status.redisDown'), { message: short(e.problem) }),
              }
            : idle(RED._(sharedKey('status.standby'))),
        );
        return;
      case 'failed': {
        // This trigger's own state cannot be saved: its ring says so, and the store told it once.
        if (isStoreError(e.error)) {
          node.status(watch.status() ?? failed(e.error.message));
          return;
        }
        const err = toGatewayError(e.error);
        const retry = Math.round(e.retryInMs / 1000);
        if (onInputMode || e.retryInMs <= 0) {
          const status = failed(statusTextOf(err));
          if (err.code !== 'AUTH') lastOwnStatus = status;
          node.status(status);
          if (e.retryInMs <= 0 && !onInputMode) node.warn(err.message);
          return;
        }
        node.status(failed(RED._(sharedKey('status.retry'), { text: statusTextOf(err), s: retry })));
        node.warn(RED._(sharedKey('errors.poll'), { message: err.message, failures: e.failures, s: retry }));
        return;
      }
    }
  };

  const handle: ListenerHandle = config.queueReader(kind).listen({
    id: node.id,
    // An interval that is not a positive number is the smallest one, as for a trigger that polls by itself.
    intervalMs: onInputMode ? undefined : intervalOf(def),
    limit: options.limit,
    take: (records, signal, marks) => serial(() => take(records, signal, marks)),
    event: onEvent,
  });

  if (onInputMode) {
    node.on('input', (_msg: NodeMessageInFlow, _send, done) => {
      // A failed poll goes to done(err), so a Catch node gets it with the trigger msg.
      handle.pollNow().then(
        () => done(),
        (err: unknown) => done(new NodeGatewayError(toGatewayError(err))),
      );
    });
  }

  node.on('close', (removed: boolean, done: () => void) => {
    closed = true;
    void handle!
      .close(removed)
      .then(() => chain)
      .then(() => store.close())
      .catch(() => undefined)
      .then(() => {
        node.status({});
        done();
      });
  });
}

function intervalOf(def: PollDef): number {
  const seconds = Number(def.interval ?? 60);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : MIN_INTERVAL_S) * 1000;
}

/** The first line of a Redis error, short enough for a status. */
function short(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}
