/**
 * Handing a poll's msgs to the flow a batch per turn of the event loop. A delivery-report page is 5,000 msgs:
 * sent in one loop, the sends and then their 5,000 deliveries (Node-RED delivers each on setImmediate, all in
 * one check phase) held the event loop for tens of ms (bench/anchor.ts, "DLR page"); a batch per turn keeps
 * each block to a few ms and lets timers and sockets of other flows run in between.
 */
import type { NodeMessage } from 'node-red';

/** Msgs sent per turn of the event loop. */
export const EMIT_BATCH = 250;

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Sends `messages` in order, EMIT_BATCH per turn. Resolves true when all were sent, false when `stopped()` said
 * stop between two batches (the flow is closing: the caller then keeps its state unsaved, so what was not
 * handed on is read again; a repeat, never a loss).
 */
export async function emitInBatches(
  send: (msg: NodeMessage) => void,
  messages: readonly NodeMessage[],
  stopped: () => boolean,
): Promise<boolean> {
  for (let i = 0; i < messages.length; i += EMIT_BATCH) {
    if (i > 0) {
      await turn();
      if (stopped()) return false;
    }
    const end = Math.min(messages.length, i + EMIT_BATCH);
    for (let k = i; k < end; k++) send(messages[k]!);
  }
  return true;
}
