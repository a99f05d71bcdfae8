/**
 * The service hands each inbound SMS and each new HLR result out once: two triggers polling the same queue
 * through one gateway configuration each get only some of them. Both keep working (a flow may mean it), but the
 * second one started warns in the log at deploy time, naming the other (issue 14 §5). The dialog warns too.
 */
import type { Node, NodeAPI } from 'node-red';
import { sharedKey } from '../common/status';

/** Config node id + queue -> the trigger nodes reading it now. */
const readers = new Map<string, Map<string, string>>();

/** Registers `node` as a reader of `queue` ('inbound' or 'hlr') of the config node `configId`. */
export function claimQueue(RED: NodeAPI, node: Node, configId: string | undefined, queue: string): void {
  if (!configId) return;
  const key = `${configId}\u0000${queue}`;
  let nodes = readers.get(key);
  if (!nodes) readers.set(key, (nodes = new Map()));
  const others = [...nodes].map(([id, label]) => label || id);
  nodes.set(node.id, node.name || '');
  if (others.length > 0)
    node.warn(RED._(sharedKey(`warn.sharedQueue.${queue}`), { others: others.join(', ') }));
  node.on('close', () => {
    nodes.delete(node.id);
    if (nodes.size === 0) readers.delete(key);
  });
}
