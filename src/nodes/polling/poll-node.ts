import type { Node, NodeAPI, NodeMessageInFlow, NodeStatus } from 'node-red';
import { configOf } from '../config/config';
import { NodeGatewayError, statusTextOf, toGatewayError } from '../common/errors';
import { Poller } from './poller';
import { failed, sharedKey } from '../common/status';
import { StoreWatch, isStoreError, stateStoreFor } from '../common/state';
import { warnOnce } from './odd-records';
import { CoordinationUnavailable, coordinatedPolling } from './coordinated';
import { emitInBatches, wiredTargets } from './emit';
import { receivedStatus } from './pending';
import type { PollContext, PollResult } from './pending';

export type { PollContext, PollResult } from './pending';

/** Smallest poll interval accepted, in seconds (a gateway is not a message bus). */
export const MIN_INTERVAL_S = 1;

export interface PollDef {
  id: string;
  type: string;
  interval?: number | string;
  /** 1 = "poll on input" mode (the editor sets it together with the checkbox). */
  inputs?: number | string;
  /** A Node-RED context store name to keep the state in; blank = a file in the user directory. */
  store?: string;
}

/**
 * How long a read that collects (QueryReceivedNewSMS, GetNewRecivedSMS2, QueryNewHLRJobs), in flight when the flow
 * began to stop, may finish (its records are kept): the config node's readers (queue-reader.ts) give it this.
 */
export const READ_GRACE_MS = 5000;

/** Resolves when `signal` aborts (a wait for something slow that a stopping flow must not sit out). */
export const whenAborted = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });

/**
 * A polling trigger that reads by itself (the delivery-reports trigger; the inbound and HLR results triggers listen
 * to their config node's reader instead, listen.ts): interval or "poll on input" mode, statuses, logging,
 * back-off, abort on close, and state persisted AFTER the messages were sent (so a crash between the two
 * can only repeat, never skip, and the de-duplication state covers every message that left the node).
 * The state lives in a file under the user directory or in the context store named by def.store. While it
 * cannot be saved the trigger reads nothing more (what it emitted is kept in memory and saved once it can be:
 * a red ring "cannot save <file>: <code>" meanwhile, one error a Catch node hears); it polls again once it can.
 */
export function setupPolling<S extends object>(
  RED: NodeAPI,
  node: Node,
  def: PollDef,
  initial: S,
  poll: (ctx: PollContext<S>) => Promise<PollResult<S>>,
): void {
  const watch = new StoreWatch(RED, node, (problem) => {
    const ring = watch.status();
    if (ring) node.status(ring);
    // Saved again: the polls that waited for it go on at once.
    else if (!problem && !onInputMode) poller.now();
  });
  const store = stateStoreFor<S>(RED, node, def, def.store?.trim() ? 'context' : 'cursor', watch);
  let state: S = initial;
  const ready = store.open().then(
    (loaded) => {
      // What a damaged file did not keep starts afresh.
      if (loaded) state = { ...initial, ...loaded };
    },
    (err: unknown) => {
      node.warn(RED._(sharedKey('errors.stateLoad'), { where: store.where, message: String(err) }));
    },
  );
  const onInputMode = Number(def.inputs) === 1;
  let trigger: NodeMessageInFlow | undefined;
  const onWarning = warnOnce(RED, node);

  /** False (and the ring shown) while the state cannot be saved: nothing more is read until it is. */
  const saved = async (): Promise<boolean> => {
    try {
      await store.save(state);
      return true;
    } catch (e) {
      if (!isStoreError(e)) throw e;
      node.status(watch.status() ?? failed(e.message));
      return false;
    }
  };

  const runOnce = async (signal: AbortSignal): Promise<void> => {
    await Promise.race([ready, whenAborted(signal)]);
    if (signal.aborted) return;
    if (store.problem && !(await saved())) return;
    node.status({ fill: 'blue', shape: 'dot', text: sharedKey('status.polling') });
    const result = await poll({ signal, state, onWarning, ...(trigger ? { trigger } : {}) });
    if (signal.aborted) return;
    if (
      !(await emitInBatches(
        (m) => node.send(m),
        result.messages,
        () => signal.aborted,
        wiredTargets((id) => RED.nodes.getNode(id), node),
      ))
    )
      return;
    // The poll still advances past them: they are in the state as seen and reported this once.
    for (const u of result.unusable ?? []) node.error(u.error, u.msg);
    state = result.state;
    if (!(await saved())) return;
    host?.report(undefined);
    lastOwnStatus = receivedStatus(RED, result.messages.length, 0);
    node.status(lastOwnStatus);
  };

  let lastError: unknown;
  /** What the node showed last for its own polls, but not an AUTH failure (stale once the account works). */
  let lastOwnStatus: NodeStatus = {};
  const config = configOf(node);
  const host = config?.reliability;
  // With "Coordinate instances through Redis" only the lease holder polls, on state kept in Redis.
  const coordinated = config?.coordination
    ? coordinatedPolling(RED, node, config.coordination, () => ready.then(() => state), poll)
    : undefined;
  const runCoordinated = async (signal: AbortSignal): Promise<void> => {
    try {
      await coordinated!.run(signal, trigger, onWarning);
      host?.report(undefined);
    } catch (e) {
      // Redis, not the gateway: no back-off, the lease or the next interval brings the poller back.
      if (!(e instanceof CoordinationUnavailable)) throw e;
      node.status(failed(RED._(sharedKey('status.redisDown'), { message: e.message.split('\n')[0] })));
    }
  };
  const poller = new Poller({
    intervalMs: Number(def.interval ?? 60) * 1000,
    minIntervalMs: MIN_INTERVAL_S * 1000,
    poll: coordinated ? runCoordinated : runOnce,
    onError: (err, failures, retryInMs) => {
      lastError = err;
      const e = toGatewayError(err);
      // A poller is often the only node that calls regularly: its AUTH failure turns the others red too.
      host?.report(e);
      const retry = Math.round(retryInMs / 1000);
      if (onInputMode) {
        const status = failed(statusTextOf(e));
        if (e.code !== 'AUTH') lastOwnStatus = status;
        node.status(status);
        return;
      }
      node.status(failed(RED._(sharedKey('status.retry'), { text: statusTextOf(e), s: retry })));
      node.warn(RED._(sharedKey('errors.poll'), { message: e.message, failures, s: retry }));
    },
  });

  // Another node's call succeeded after an AUTH failure (the account works again): this poller's red status
  // (its own AUTH failure, or the config's "auth failed") is stale. An interval poller polls at once (out of
  // its back-off) and shows what it finds; a poller on input shows its last status from before.
  const offRecovered = host?.onAuthRecovered(() => {
    if (onInputMode) node.status(lastOwnStatus);
    else poller.now();
  });

  if (onInputMode) {
    node.on('input', (msg: NodeMessageInFlow, _send, done) => {
      trigger = msg;
      const before = poller.consecutiveFailures;
      // A failed triggered poll goes to done(err), so a Catch node gets it with the trigger msg.
      void poller.trigger().then(() => {
        trigger = undefined;
        if (poller.consecutiveFailures > before) done(new NodeGatewayError(toGatewayError(lastError)));
        else done();
      });
    });
  } else {
    poller.start();
    // Taking over the lease polls at once: the failover time is the lease's lapse, not an interval more.
    coordinated?.onAcquired(() => poller.now());
  }

  node.on('close', (_removed: boolean, done: () => void) => {
    offRecovered?.();
    void poller
      .stop()
      .then(() => coordinated?.close())
      .then(() => store.close())
      .catch(() => undefined)
      .then(() => {
        node.status({});
        done();
      });
  });
}
