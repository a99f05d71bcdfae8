/**
 * What a polling trigger does with what the client read past (tolerant decoding, docs/assumptions.md): warn once
 * per operation and field, and hand a record it cannot track to the error path instead of stalling the poller.
 */
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import type { GatewayWarning } from '../../client';
import type { ServiceName } from '../../catalogue/types';
import { GatewayError } from '../../errors';
import { NodeGatewayError } from '../common/errors';
import { sharedKey } from '../common/status';
import { safeText } from '../../text/untrusted';

/** Distinct warnings a node remembers (a gateway inventing new fields forever cannot grow it without bound). */
const MAX_WARNED = 500;

const KEYS: Record<GatewayWarning['kind'], string> = {
  value: 'errors.oddValue',
  element: 'errors.unknownElement',
  record: 'errors.oddRecord',
};

/** A `node.warn` per operation and field, the first time only, naming the operation, the field and the value. */
export function warnOnce(RED: NodeAPI, node: Node): (warning: GatewayWarning) => void {
  const warned = new Set<string>();
  return (w) => {
    const key = `${w.operation}\u0000${w.kind}\u0000${w.field}`;
    if (warned.has(key) || warned.size >= MAX_WARNED) return;
    warned.add(key);
    const slash = w.field.lastIndexOf('/');
    // Names and the value come from the gateway: one short line each (JSON leaves U+2028 and C1 as they are).
    node.warn(
      RED._(sharedKey(KEYS[w.kind]), {
        operation: safeText(w.operation),
        field: safeText(w.field),
        where: safeText(slash < 0 ? w.field : w.field.slice(0, slash)),
        value: safeText(JSON.stringify(w.value) ?? String(w.value)),
        type: safeText(w.type ?? ''),
      }),
    );
  };
}

/** A record the node cannot tell apart from others (the id it keeps is not an integer), for the error path. */
export interface Unusable {
  error: NodeGatewayError;
  msg: NodeMessage;
}

export function unusable(
  service: ServiceName,
  operation: string,
  field: string,
  raw: unknown,
  msg: NodeMessage,
): Unusable {
  const text = JSON.stringify(raw) ?? String(raw);
  const error = new GatewayError(
    'PARSE',
    `a record whose ${field} is not an integer (${safeText(text)}) cannot be told apart from others: it is passed here, ` +
      'not to the output; polling goes on',
    { service, operation, body: `${field}: ${text}`, ambiguous: false },
  );
  return { error: new NodeGatewayError(error), msg };
}
