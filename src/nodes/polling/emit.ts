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
 * Sends `messages` in order, EMIT_BATCH per turn. Resolves true when all were sent and reached the next nodes,
 * false when `stopped()` said stop between two batches or the last batch may not have reached them (the caller
 * then keeps its state unsaved, so what was not handed on is read again; a repeat, never a loss).
 *
 * Reached: Node-RED hands a sent msg to the next node on a later turn (setImmediate), and a node stopped before
 * that turn drops it (its input handlers are gone). A page whose answer was decoded in the check phase sends its
 * msgs there, so their delivery waits for the next loop iteration, after the timers: a redeploy or stop in
 * between dropped the whole page while the saved state counted it as handed on (lost delivery reports). So after
 * the last send one turn passes (queued behind Node-RED's deliveries) and `reached()` says whether the next nodes
 * are still the ones the msgs were sent to (see wiredTargets); without it, `stopped()` is asked again.
 */
export async function emitInBatches(
  send: (msg: NodeMessage) => void,
  messages: readonly NodeMessage[],
  stopped: () => boolean,
  reached?: () => boolean,
): Promise<boolean> {
  for (let i = 0; i < messages.length; i += EMIT_BATCH) {
    if (i > 0) {
      await turn();
      if (stopped()) return false;
    }
    const end = Math.min(messages.length, i + EMIT_BATCH);
    for (let k = i; k < end; k++) send(messages[k]!);
  }
  if (messages.length === 0) return true;
  await turn();
  return reached ? reached() : !stopped();
}

/**
 * The nodes `node` is wired to, as the runtime knows them now, and a check that they are still those very nodes
 * (none stopped or replaced since). A trigger stopped alone by a "modified nodes" deploy still reached its next
 * nodes (its msgs count as handed on); a stop of the next nodes did not. A wired id the runtime cannot find now
 * (no such node) is left out, so it can never hold a poll's state back for good.
 */
export function wiredTargets(getNode: (id: string) => unknown, node: object): () => boolean {
  const wires = (node as { wires?: unknown }).wires;
  const targets: [string, unknown][] = [];
  if (Array.isArray(wires))
    for (const port of wires as unknown[])
      if (Array.isArray(port))
        for (const id of port as unknown[])
          if (typeof id === 'string') {
            const target = getNode(id);
            if (target) targets.push([id, target]);
          }
  return () => targets.every(([id, target]) => getNode(id) === target);
}
