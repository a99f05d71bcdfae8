import type { GatewayClient } from '../client/client';
import type { CallOptions } from '../client/options';
import { methodName } from '../client/names';
import { findOperation } from '../catalogue';
import type { OperationDef } from '../catalogue/types';
import { GatewayError } from '../errors';
import type { OutboxSender } from './outbox';

/** The client's method name of each operation, made once (methodName splits the name with a regular expression). */
const methods = new WeakMap<OperationDef, string>();

function methodOf(op: OperationDef): string {
  let name = methods.get(op);
  if (name === undefined) {
    name = methodName(op);
    methods.set(op, name);
  }
  return name;
}

type TypedMethod = (params: unknown, options?: CallOptions) => Promise<unknown>;

/**
 * An outbox sender that calls the client's typed send method with the entry's reference. A gateway that
 * cannot be reached fails the attempt at once (`failFast`): the outbox keeps the message instead of the client
 * retrying it; lost answers are still looked up (and retried) by the client's safe retries.
 */
export function clientSender(client: GatewayClient): OutboxSender {
  return (entry, options) => {
    const op = findOperation(entry.service, entry.operation);
    const group = (client as unknown as Record<string, Record<string, unknown> | undefined>)[entry.service];
    const fn = op ? group?.[methodOf(op)] : undefined;
    if (typeof fn !== 'function') {
      return Promise.reject(
        new GatewayError('CONFIG', `the client offers no ${entry.service}/${entry.operation}`, {
          ambiguous: false,
        }),
      );
    }
    return (fn as TypedMethod).call(group, entry.params, {
      reference: options.reference,
      lookupFirst: options.lookupFirst,
      since: options.since,
      signal: options.signal,
      failFast: true,
    });
  };
}
