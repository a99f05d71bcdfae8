import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow } from 'node-red';
import { NodeGatewayError, statusTextOf, toGatewayError } from './errors';
import { Poller } from './poller';
import { StateFile } from './state-file';
import { failed, idle, sharedKey } from './status';

/** Smallest poll interval accepted, in seconds (a gateway is not a message bus). */
export const MIN_INTERVAL_S = 1;

export interface PollDef {
  id: string;
  type: string;
  interval?: number | string;
  /** 1 = "poll on input" mode (the editor sets it together with the checkbox). */
  inputs?: number | string;
}

export interface PollContext<S> {
  signal: AbortSignal;
  /** The state loaded at start (or after the last successful poll). */
  state: S;
  /** The msg that triggered the poll in "poll on input" mode. */
  trigger?: NodeMessageInFlow;
}

/** What one poll found: the messages to emit and the state to persist once they were handed on. */
export interface PollResult<S> {
  messages: NodeMessage[];
  state: S;
}

/**
 * The common part of the polling trigger nodes: interval or "poll on input" mode, statuses, logging,
 * back-off, abort on close, and state persisted AFTER the messages were sent (so a crash between the two
 * can only repeat, never skip, and the de-duplication state covers every message that left the node).
 */
export function setupPolling<S>(
  RED: NodeAPI,
  node: Node,
  def: PollDef,
  initial: S,
  poll: (ctx: PollContext<S>) => Promise<PollResult<S>>,
): void {
  const store = new StateFile<S>(RED.settings.userDir as string | undefined, def.type, def.id);
  let state: S = store.load() ?? initial;
  const onInputMode = Number(def.inputs) === 1;
  let trigger: NodeMessageInFlow | undefined;

  const runOnce = async (signal: AbortSignal): Promise<void> => {
    node.status({ fill: 'blue', shape: 'dot', text: sharedKey('status.polling') });
    const result = await poll({ signal, state, ...(trigger ? { trigger } : {}) });
    if (signal.aborted) return;
    for (const m of result.messages) node.send(m);
    state = result.state;
    await store.save(state);
    const time = new Date().toLocaleTimeString();
    node.status(
      result.messages.length > 0
        ? {
            fill: 'green',
            shape: 'dot',
            text: RED._(sharedKey('status.received'), { count: result.messages.length, time }),
          }
        : idle(RED._(sharedKey('status.nothing'), { time })),
    );
  };

  let lastError: unknown;
  const poller = new Poller({
    intervalMs: Number(def.interval ?? 60) * 1000,
    minIntervalMs: MIN_INTERVAL_S * 1000,
    poll: runOnce,
    onError: (err, failures, retryInMs) => {
      lastError = err;
      const e = toGatewayError(err);
      const retry = Math.round(retryInMs / 1000);
      if (onInputMode) {
        node.status(failed(statusTextOf(e)));
        return;
      }
      node.status(failed(RED._(sharedKey('status.retry'), { text: statusTextOf(e), s: retry })));
      node.warn(RED._(sharedKey('errors.poll'), { message: e.message, failures, s: retry }));
    },
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
  }

  node.on('close', (_removed: boolean, done: () => void) => {
    void poller
      .stop()
      .then(() => store.flush())
      .catch(() => undefined)
      .then(() => {
        node.status({});
        done();
      });
  });
}
