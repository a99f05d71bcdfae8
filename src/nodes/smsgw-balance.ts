/**
 * smsgw-balance: QueryAccountBalance (typed service) or QueryBalance2 (older service).
 * Out 1: msg.payload (or the node's Output property) = { balance, operation, low }. Out 2 (when a threshold
 * is set): the same msg when the balance is below the threshold. msg.threshold and msg.operation override the
 * dialog (common/override-table.ts).
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { attachConfig, requireConfig } from './config/config';
import { queryBalance } from './config/gateway';
import { onInput } from './common/input';
import { nodeOutput } from './common/output';
import { overridesOf } from './common/override-table';
import { ok, sharedKey, warn } from './common/status';
import { deployFields } from './common/fields';

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
    // Every setting judged by its rule (src/nodes/fields/query.ts); a refused one: the node only says why.
    const values = deployFields(RED, this, 'smsgw-balance', def);
    if (values) start(this, def, values);
  }

  function start(node: Node, def: BalanceDef, values: Record<string, unknown>): void {
    const config = attachConfig(RED, node, def.gateway);
    const o = overridesOf(RED, node, 'smsgw-balance', def as unknown as Record<string, unknown>);

    onInput(RED, node, nodeOutput(RED, def), async (msg, signal) => {
      const cfg = requireConfig(config);
      const operation = o.msg(msg, 'operation') ?? values.operation;
      // Before the query: a threshold that is no number is refused without costing a request.
      const threshold = await o.field(msg, 'threshold');
      const service =
        operation === 'QueryBalance2'
          ? 'legacy'
          : operation === 'QueryAccountBalance'
            ? 'gateway'
            : cfg.service;
      const balance = await queryBalance(cfg.getClient(), service, signal);
      const low = threshold !== undefined && balance < threshold;
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
