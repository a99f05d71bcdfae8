/**
 * What a poll hands over and how records fetched but not yet emitted are persisted. Shared by the poll node
 * (poll-node.ts) and coordinated polling (coordinated.ts), which import it and not each other.
 */
import type { NodeAPI, NodeMessage, NodeMessageInFlow, NodeStatus } from 'node-red';
import { idle, sharedKey } from '../common/status';
import type { GatewayWarning } from '../../client';
import type { Unusable } from './odd-records';
import { isDate, timeOf } from '../../shape';

export interface PollContext<S> {
  signal: AbortSignal;
  /** Pass as the call's `onWarning`: warns once per operation and field (tolerant decoding). */
  onWarning: (warning: GatewayWarning) => void;
  /** The state loaded at start (or after the last successful poll). */
  state: S;
  /** The msg that triggered the poll in "poll on input" mode. */
  trigger?: NodeMessageInFlow;
}

/** What one poll found: the messages to emit and the state to persist once they were handed on. */
export interface PollResult<S> {
  messages: NodeMessage[];
  state: S;
  /** Records the node cannot track: each goes to node.error with its msg (a Catch node gets it), once. */
  unusable?: Unusable[];
  /** Of `messages`, how many a recovery read found after a lost answer (shown in the status). */
  recovered?: number;
  /**
   * The poll failed after reading something worth keeping (a recovery, the note to recover at the next poll):
   * the messages are handed on and the state saved as usual, then the poll counts as failed with this error.
   */
  failure?: unknown;
}

/** JSON with Dates kept as { $date } so records read back after a restart look as they did. */
export function encodePending(messages: NodeMessage[]): unknown[] {
  return JSON.parse(
    JSON.stringify(messages, function (this: Record<string, unknown>, key: string, value: unknown) {
      const raw = this[key];
      if (!isDate(raw)) return value;
      const t = timeOf(raw);
      return { $date: Number.isNaN(t) ? null : new Date(t).toISOString() };
    }),
  ) as unknown[];
}

export function decodePending(pending: unknown[]): NodeMessage[] {
  return JSON.parse(JSON.stringify(pending), (_key: string, value: unknown) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const keys = Object.keys(value);
      if (keys.length === 1 && keys[0] === '$date') {
        const d = (value as { $date: unknown }).$date;
        return typeof d === 'string' ? new Date(d) : new Date(NaN);
      }
    }
    return value;
  }) as NodeMessage[];
}

/** The status after a poll: how many came (and how many of them a recovery read found), or nothing new. */
export function receivedStatus(RED: NodeAPI, count: number, recovered: number): NodeStatus {
  const time = new Date().toLocaleTimeString();
  if (count === 0) return idle(RED._(sharedKey('status.nothing'), { time }));
  const key = recovered > 0 ? 'status.receivedRecovered' : 'status.received';
  return { fill: 'green', shape: 'dot', text: RED._(sharedKey(key), { count, recovered, time }) };
}
