import type { Node, NodeAPI } from 'node-red';
import { GatewayError } from '../../errors';
import { sharedKey } from '../common/status';
import type { SmsgwConfigNode } from './types';

const configs = new WeakMap<Node, SmsgwConfigNode>();

/** The config node a node attached to (for the shared status: queue depth, outbox, auth state). */
export const configOf = (node: Node): SmsgwConfigNode | undefined => configs.get(node);

/**
 * Looks up the config node a node refers to and registers the node with it. Returns undefined (and shows a
 * red status) when the reference is missing, so the node can still be deployed and report on each input.
 */
export function attachConfig(
  RED: NodeAPI,
  node: Node,
  configId: string | undefined,
): SmsgwConfigNode | undefined {
  const config = configId ? (RED.nodes.getNode(configId) as SmsgwConfigNode | null) : null;
  if (!config || typeof config.getClient !== 'function') {
    node.status({ fill: 'red', shape: 'ring', text: sharedKey('status.missing') });
    return undefined;
  }
  config.register(node);
  configs.set(node, config);
  node.on('close', (_removed: boolean, done: () => void) => {
    config.deregister(node);
    done();
  });
  return config;
}

export function requireConfig(config: SmsgwConfigNode | undefined): SmsgwConfigNode {
  if (!config) throw new GatewayError('CONFIG', 'no gateway configuration selected');
  return config;
}
