/**
 * The delivery-reports trigger when its config coordinates instances through Redis (docs/scaling.md): only the
 * holder of the config's lease for this trigger kind polls; the state and the records read but not yet handed on
 * live in Redis, so whoever holds the lease next finishes what a killed holder started. (The readers of the queues
 * the gateway empties, for the inbound and HLR results triggers, do the same for all their listeners at once:
 * queue-reader.ts.)
 *
 * One poll of the holder:
 *   1. load the state and the pending records from Redis; hand the pending ones on first (a previous holder
 *      read them and may have stopped before handing them on);
 *   2. poll the gateway with that state;
 *   3. stage: the new state and the records just read, written together by a script that checks the lease
 *      token;
 *   4. for each record: check the lease still has time, hand it to the flow (node.send), let Node-RED run the
 *      next node(s) for it (one event-loop turn), then drop it from the pending hash (token checked).
 *
 * "Handed on" is the next node having received the msg. Between that and the drop reaching Redis lies the one
 * window of a kill -9: the next holder hands that one record on again (at least once, like the single-instance
 * file state). Nothing is dropped before it was handed on.
 */
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import type { Hold, Lease } from '../../coordination/lease';
import type { PendingEntry, RedisPollState } from '../../coordination/poll-state';
import type { CoordinationHost } from '../config/coordination-host';
import { idle, sharedKey } from '../common/status';
import type { PollContext, PollResult } from './pending';
import { decodePending, encodePending, receivedStatus } from './pending';

/** Resolves after Node-RED delivered what node.send() queued before (delivery runs on setImmediate). */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A new holder that finds records another holder staged but did not hand on waits this long and looks again
 * before handing them on: a holder cut off from Redis (not dead) notes the ones it did hand on as soon as it is
 * reconnected (its reconnect tries come at least every second, redis-link.ts), so they are not repeated.
 */
export const TAKEOVER_GRACE_MS = 2000;

/** An error of Redis (not of the gateway): the poller waits for Redis instead of backing off. */
export class CoordinationUnavailable extends Error {}

export interface CoordinatedPolling<S> {
  /** One poll (or nothing when another instance holds the lease). */
  run(
    signal: AbortSignal,
    trigger: PollContext<S>['trigger'],
    onWarning: PollContext<S>['onWarning'],
  ): Promise<void>;
  /** Called when this instance takes the lease: poll now. */
  onAcquired(listener: () => void): void;
  close(): Promise<void>;
}

export function coordinatedPolling<S extends object>(
  RED: NodeAPI,
  node: Node,
  host: CoordinationHost,
  /** The state when Redis has none yet: this instance's own saved state (switching coordination on), else empty. */
  initial: () => Promise<S>,
  poll: (ctx: PollContext<S>) => Promise<PollResult<S>>,
): CoordinatedPolling<S> {
  const kind = node.type;
  const lease: Lease | undefined = host.lease(kind);
  const store: RedisPollState<S> | undefined = host.pollState<S>(kind, node.id);
  /** Handed on, but the drop from the pending hash did not reach Redis: dropped first on the next poll. */
  const unconfirmed = new Set<string>();
  /** The lease was just taken: records left by the previous holder get its grace (TAKEOVER_GRACE_MS). */
  let fresh = false;
  const settleLocal = async (): Promise<void> => {
    for (const key of [...unconfirmed]) {
      await store!.forget(key);
      unconfirmed.delete(key);
    }
  };
  // One at a time.
  let settling: Promise<void> = Promise.resolve();
  const catchUp = (): Promise<void> => {
    settling = settling.catch(() => undefined).then(settleLocal);
    return settling;
  };
  // Back from an outage: note what was handed on meanwhile, before anyone else can take the lease and repeat it.
  const onUp = (): void => void catchUp().catch(() => undefined);
  host.link?.on('up', onUp);
  const onTaken = (): void => {
    fresh = true;
  };
  lease?.on('acquired', onTaken);

  const showWaiting = (): void => {
    const problem = host.problem();
    node.status(
      problem
        ? {
            fill: 'red',
            shape: 'ring',
            text: RED._(sharedKey('status.redisDown'), { message: short(problem) }),
          }
        : idle(RED._(sharedKey('status.standby'))),
    );
  };

  const onLost = (): void => showWaiting();
  lease?.on('lost', onLost);
  host.link?.on('down', showWaiting);
  setImmediate(() => {
    if (!lease?.held) showWaiting();
  });

  const redis = async <T>(op: () => Promise<T>): Promise<T> => {
    try {
      return await op();
    } catch (e) {
      throw new CoordinationUnavailable(e instanceof Error ? e.message : String(e));
    }
  };

  /** Hands entries on one by one while the hold lasts; false when it stopped early. */
  const handOn = async (
    hold: Hold,
    entries: { key: string; msg: NodeMessage }[],
    signal: AbortSignal,
  ): Promise<boolean> => {
    for (const e of entries) {
      if (signal.aborted || !lease!.isCurrent(hold) || !host.link!.up) return false;
      node.send(e.msg);
      await nextTurn();
      try {
        if (await store!.done(hold, e.key)) continue;
        // The lease moved on meanwhile: the record was handed on all the same, so it goes.
        await store!.forget(e.key);
      } catch {
        unconfirmed.add(e.key);
      }
      return false;
    }
    return true;
  };

  const run = async (
    signal: AbortSignal,
    trigger: PollContext<S>['trigger'],
    onWarning: PollContext<S>['onWarning'],
  ): Promise<void> => {
    const hold = lease?.current();
    if (!hold || !store || host.problem()) {
      showWaiting();
      return;
    }
    node.status({ fill: 'blue', shape: 'dot', text: sharedKey('status.polling') });
    await redis(catchUp);
    let loaded = await redis(() => store.load());
    if (fresh && loaded.pending.length > 0) {
      await new Promise((resolve) => setTimeout(resolve, TAKEOVER_GRACE_MS));
      if (!lease!.isCurrent(hold)) return showWaiting();
      loaded = await redis(() => store.load());
    }
    fresh = false;
    const carried = loaded.pending.map((p: PendingEntry) => ({
      key: p.key,
      msg: decodePending([p.value])[0] as NodeMessage,
    }));
    if (carried.length > 0 && !(await handOn(hold, carried, signal))) return showWaiting();
    const state = loaded.state ?? (await initial());
    const result = await poll({ signal, state, onWarning, ...(trigger ? { trigger } : {}) });
    if (signal.aborted) return;
    const keys = store.nextKeys(result.messages.length);
    const encoded = encodePending(result.messages);
    const entries = result.messages.map((msg, i) => ({ key: keys[i]!, msg, value: encoded[i] }));
    const pending = entries.map((e) => ({ key: e.key, value: e.value }));
    const staged = await redis(() => store.stage(hold, result.state, pending, false));
    if (staged !== 'staged') return showWaiting();
    if (!(await handOn(hold, entries, signal))) return showWaiting();
    // Records the node cannot track: reported once, by the holder that read them (they are in the state as seen).
    for (const u of result.unusable ?? []) node.error(u.error, u.msg);
    node.status(receivedStatus(RED, carried.length + result.messages.length, 0));
  };

  const acquired: (() => void)[] = [];
  return {
    run,
    onAcquired(listener) {
      acquired.push(listener);
      lease?.on('acquired', listener);
    },
    async close() {
      for (const l of acquired) lease?.off('acquired', l);
      lease?.off('lost', onLost);
      lease?.off('acquired', onTaken);
      host.link?.off('up', onUp);
      host.link?.off('down', showWaiting);
      await host.releaseLease(kind);
    },
  };
}

/** The first line of a Redis error, short enough for a status. */
function short(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}
