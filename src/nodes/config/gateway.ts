import type { OperationDef } from '../../catalogue';
import type { GatewayClient, GatewayWarning } from '../../client';
import { GatewayError } from '../../errors';
import { methodName } from '../../client';
import type { ServiceKind } from './types';

type Method = (
  params: Record<string, unknown>,
  options?: { signal?: AbortSignal; onWarning?: (warning: GatewayWarning) => void },
) => Promise<unknown>;

/** The client's method name of each operation (methodName splits the name with a regular expression). */
const methods = new WeakMap<OperationDef, string>();

function methodOf(op: OperationDef): string {
  let name = methods.get(op);
  if (name === undefined) {
    name = methodName(op);
    methods.set(op, name);
  }
  return name;
}

/**
 * Runs one catalogue operation through the client's typed method (which checks LoginStatus, CreateStatus
 * and friends and rejects with a GatewayError), so every node gets the same error semantics. An operation that
 * costs (catalogue `costs`) is refused: those go through the send gate (send/gate.ts), which looks their methods
 * up itself, so a name built from the catalogue cannot send one around it.
 */
export function callOperation(
  client: GatewayClient,
  op: OperationDef,
  params: Record<string, unknown>,
  signal: AbortSignal,
  onWarning?: (warning: GatewayWarning) => void,
): Promise<unknown> {
  if (op.costs === true) {
    return Promise.reject(
      new GatewayError('CONFIG', `${op.name} costs money: it is sent only through the send gate`, {
        service: op.service,
        operation: op.name,
      }),
    );
  }
  const group = (client as unknown as Record<string, Record<string, unknown> | undefined>)[op.service];
  const fn = group?.[methodOf(op)];
  if (typeof fn !== 'function') {
    return Promise.reject(new GatewayError('CONFIG', `the client offers no ${op.service}.${methodOf(op)}()`));
  }
  return (fn as Method).call(group, params, { signal, ...(onWarning ? { onWarning } : {}) });
}

/** Balance in credits from QueryAccountBalance, or QueryBalance2 of the older service. */
export async function queryBalance(
  client: GatewayClient,
  service: ServiceKind,
  signal: AbortSignal,
): Promise<number> {
  const n =
    service === 'legacy'
      ? (await client.legacy.queryBalance2({}, { signal })).balance
      : await client.information.queryAccountBalance({}, { signal });
  if (!Number.isFinite(n)) {
    throw new GatewayError('PARSE', `the balance "${String(n)}" is not a number`, {
      operation: service === 'legacy' ? 'QueryBalance2' : 'QueryAccountBalance',
    });
  }
  return n;
}
