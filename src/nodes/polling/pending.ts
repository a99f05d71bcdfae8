/**
 * What a poll hands over and how records fetched but not yet emitted are persisted. Shared by the poll node
 * (poll-node.ts) and coordinated polling (coordinated.ts), which import it and not each other.
 */
import type { NodeMessage, NodeMessageInFlow } from 'node-red';
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
