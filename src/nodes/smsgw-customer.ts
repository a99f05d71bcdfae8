/**
 * smsgw-customer: GetCustomerList, GetCustomer, GetCustomerWithAuthUser, CreateCustomer.
 * In: one typedInput per parameter; msg.params.<Name> and msg.operation override.
 * Out: msg.payload (or the node's Output property) = the Customer list, the Customer, or CreateCustomerInfo.
 */
import type { Node, NodeAPI } from 'node-red';
import { setupMultiOperation, type MultiOpDef } from './common/multi-op';
import { queryPayload, queryStatus } from './common/present';

export default (RED: NodeAPI): void => {
  function SmsgwCustomer(this: Node, def: MultiOpDef): void {
    RED.nodes.createNode(this, def);
    setupMultiOperation(RED, this, 'smsgw-customer', def, (op, value) => {
      const payload = queryPayload(value);
      return { payload, status: queryStatus(op.name, payload) };
    });
  }

  RED.nodes.registerType('smsgw-customer', SmsgwCustomer);
};
