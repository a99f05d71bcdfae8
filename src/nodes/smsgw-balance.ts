/**
 * smsgw-balance: QueryAccountBalance (typed service) or QueryBalance2 (older service).
 * Out 1: msg.payload (or the node's Output property) = { balance, operation, low }. Out 2 (when a threshold
 * is set): the same msg when the balance is below the threshold. msg.threshold overrides the dialog's
 * threshold.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { attachConfig, requireConfig } from './config/config';
import { queryBalance } from './config/gateway';
import { onInput } from './common/input';
import { nodeOutput } from './common/output';
import { fieldOf } from './common/props';
import { ok, sharedKey, warn } from './common/status';

interface BalanceDef extends NodeDef {
  gateway: string;
  /** The Output property (common/output.ts). */
  output?: string;
  /** auto = whatever service the config node talks to. */
  operation?: 'auto' | 'QueryAccountBalance' | 'QueryBalance2';
  [field: string]: unknown;
}

export default (RED: NodeAPI): void => {
  function SmsgwBalance(this: Node, def: BalanceDef): void {
    RED.nodes.createNode(this, def);
    start(this, def);
  }

  function start(node: Node, def: BalanceDef): void {
    const config = attachConfig(RED, node, def.gateway);

    onInput(RED, node, nodeOutput(RED, def), async (msg, signal) => {
      const cfg = requireConfig(config);
      const service =
        def.operation === 'QueryBalance2'
          ? 'legacy'
          : def.operation === 'QueryAccountBalance'
            ? 'gateway'
            : cfg.service;
      const balance = await queryBalance(cfg.getClient(), service, signal);
      const rawThreshold = await fieldOf(
        RED,
        node,
        def as Record<string, unknown>,
        msg,
        'threshold',
        'threshold',
      );
      const threshold = rawThreshold === undefined || rawThreshold === '' ? undefined : Number(rawThreshold);
      const low = threshold !== undefined && Number.isFinite(threshold) && balance < threshold;
      const text = RED._(sharedKey(low ? 'status.low' : 'status.balance'), { balance: String(balance) });
      return {
        payload: {
          balance,
          operation: service === 'legacy' ? 'QueryBalance2' : 'QueryAccountBalance',
          low,
          ...(threshold !== undefined ? { threshold } : {}),
        },
        status: low ? warn(text) : ok(text),
        more: [low ? msg : null],
      };
    });
  }

  RED.nodes.registerType('smsgw-balance', SmsgwBalance);
};
