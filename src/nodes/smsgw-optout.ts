/**
 * smsgw-optout: a flow adds numbers to a gateway configuration's opt-out list, removes them, or asks whether they
 * are on it (a CRM-side unsubscribe, a web form, a customer who asked by phone). In: the numbers from the Numbers
 * typedInput (msg.payload by default: one number, a comma/semicolon/newline separated list, or an array);
 * msg.optOut = "add" | "remove" | "check" replaces the Action setting. Out: msg.payload (or the node's Output
 * property) = { action, gateway, numbers: [{ number, key, optedOut, changed?, since?, source? }], changed }.
 * A change goes through the configuration's list (the one store, shared on Redis), durable before the msg goes on,
 * logged by the configuration like a STOP reply (source "flow"). Anything that is no phone number, or more than
 * MAX_NUMBERS numbers, is refused with VALIDATION before anything changes.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { GatewayError } from '../errors';
import { attachConfig, requireConfig } from './config/config';
import { onInput } from './common/input';
import { nodeOutput } from './common/output';
import { overridesOf } from './common/override-table';
import { fieldOf, toRecipients } from './common/props';
import { deployFields, msgValue } from './common/fields';
import { ok } from './common/status';

/** Numbers one msg may carry: a longer list is a file to import (the configuration's Opt-out tab). */
export const MAX_NUMBERS = 1000;

type Action = 'add' | 'remove' | 'check';

interface OptOutNodeDef extends NodeDef {
  gateway: string;
  output?: string;
  [field: string]: unknown;
}

export default (RED: NodeAPI): void => {
  function SmsgwOptOut(this: Node, def: OptOutNodeDef): void {
    RED.nodes.createNode(this, def);
    // Every setting judged by its rule (src/nodes/fields/optout.ts); a refused one: the node only says why.
    const values = deployFields(RED, this, 'smsgw-optout', def);
    if (values) start(this, def, values);
  }

  function start(node: Node, def: OptOutNodeDef, values: Record<string, unknown>): void {
    const config = attachConfig(RED, node, def.gateway);
    const o = overridesOf(RED, node, 'smsgw-optout', def as Record<string, unknown>);
    const by = `flow (opt-out node ${typeof def.name === 'string' && def.name !== '' ? def.name : node.id})`;

    onInput(RED, node, nodeOutput(RED, def), async (msg) => {
      // The msg judged first: a bad action or number changes nothing, whatever the configuration.
      const action = (o.msg(msg, 'optOut') ?? values.action) as Action;
      const raw = await fieldOf(RED, node, def as Record<string, unknown>, msg, 'numbers');
      const numbers = toRecipients(msgValue('smsgw-optout', 'numbers', raw));
      if (numbers.length === 0)
        throw new GatewayError('VALIDATION', 'no phone number given (msg.payload or the Numbers setting)', {
          ambiguous: false,
        });
      if (numbers.length > MAX_NUMBERS)
        throw new GatewayError(
          'VALIDATION',
          `${numbers.length} numbers in one msg, at most ${MAX_NUMBERS}: import a longer list as CSV in the gateway configuration's Opt-out tab`,
          { ambiguous: false },
        );
      const cfg = requireConfig(config, false);
      const list = cfg.optOut;
      if (!list)
        throw new GatewayError(
          'CONFIG',
          `gateway '${cfg.name || cfg.id}' has no opt-out list: switch it on in the configuration's Opt-out tab`,
          { ambiguous: false },
        );
      const answers =
        action === 'check' ? await list.check(numbers) : await list.flowChange(numbers, action === 'add', by);
      const changed = answers.filter((a) => a.changed === true).length;
      const onList = answers.filter((a) => a.optedOut).length;
      const text = RED._(`smsgw-optout.status.${action}`, { count: answers.length, changed, onList });
      return {
        payload: {
          action,
          gateway: cfg.name || cfg.id,
          numbers: answers,
          ...(action === 'check' ? { optedOut: onList } : { changed }),
        },
        status: ok(text),
      };
    });
  }

  RED.nodes.registerType('smsgw-optout', SmsgwOptOut);
};
