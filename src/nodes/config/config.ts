import type { Node, NodeAPI } from 'node-red';
import { GatewayError } from '../../errors';
import { sharedKey } from '../common/status';
import type { SmsgwConfigNode } from './config-node';

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
  nameUnnamed(RED, node);
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

/**
 * The config node of a node's message, or a CONFIG error before anything is sent: none selected, or (unless
 * `account` is false: the any-operation node sending no credentials) no user or password in it.
 */
export function requireConfig(config: SmsgwConfigNode | undefined, account = true): SmsgwConfigNode {
  if (!config) throw new GatewayError('CONFIG', 'no gateway configuration selected');
  if (account && config.accountError) throw config.accountError;
  return config;
}

const MODULE = '@smsgw/node-red-sms-gateway';

/**
 * A node without a name goes by its type's label, as the editor draws it ("HLR results"): Node-RED names a node
 * in the log and the debug sidebar by its name, else by its id (`node: f764d6af353c3fde`). The label also
 * stands in `source.name` of Catch and Status messages.
 */
export function nameUnnamed(RED: NodeAPI, node: Node): void {
  if (node.name) return;
  const key = `${MODULE}/${node.type}:${node.type}.label.${node.type === 'smsgw-call' ? 'palette' : 'default'}`;
  const label = RED._(key);
  if (typeof label === 'string' && label !== '' && label !== key) node.name = label;
}
