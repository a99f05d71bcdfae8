/**
 * Outcomes of outbox entries that no msg waits for any more: accepted before a restart (or a redeploy of the
 * node), settled afterwards. The send node that accepted them emits them (output 1, or node.error for a
 * refusal so a Catch node gets it) with `restored: true`, so a flow accounts for every message it handed over.
 */
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { findOperation } from '../../catalogue';
import { captionParamOf } from '../../reliability/job-lookup';
import { NodeGatewayError, toGatewayError } from '../common/errors';
import type { NodeOutput } from '../common/output';
import type { SmsgwConfigNode } from '../config/config-node';
import { sendOutcome } from './results';
import { sendDone, sentFields } from './send-path';

export function emitRestored(
  _RED: NodeAPI,
  node: Node,
  config: SmsgwConfigNode | undefined,
  output: NodeOutput,
): void {
  const host = config?.reliability;
  if (!host) return;
  const unsubscribe = host.subscribeRestored(node.id, ({ entry, result, error }) => {
    const op = findOperation(entry.service, entry.operation);
    const captionParam = op ? captionParamOf(op) : undefined;
    const caption = captionParam ? entry.params[captionParam] : undefined;
    // Recipients an attempt left out (they went on the opt-out list meanwhile), for the flow.
    const skipped = config?.optOut?.skippedAtSend(entry.reference) ?? [];
    const sent = sendDone(result, caption, entry.reference, host.referenceOptions, true, skipped);
    // A new msg (the one that came in is gone): the result at the node's Output property, as usual.
    const msg: NodeMessage = {};
    output.write(msg, {
      operation: entry.operation,
      ...(error === undefined ? sendOutcome(result) : {}),
      ...sentFields(sent),
      restored: true,
    });
    if (error === undefined) node.send(msg);
    else node.error(new NodeGatewayError(toGatewayError(error)), msg);
  });
  node.on('close', (_removed: boolean, done: () => void) => {
    unsubscribe();
    done();
  });
}
