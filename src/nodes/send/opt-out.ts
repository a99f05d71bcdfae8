/**
 * The send gate's opt-out check (gate.ts, step 2): the place where a list of numbers that asked not to be sent
 * to refuses a message before the spending guard counts it. There is no such list yet: every recipient passes.
 *
 * The contract for the list that fills this in: it is called once per message of every operation that costs
 * (catalogue `costs`), from every node, with the message's recipients split as the guard counts them; it resolves
 * to let the message through, or rejects with a GatewayError (code `OPTED_OUT`, `ambiguous: false`, naming the
 * refused numbers) so that nothing is counted, stored or sent and the node's Catch node hears why. It reads no
 * text of the message and changes nothing in it.
 */
import type { OperationDef } from '../../catalogue';
import type { SmsgwConfigNode } from '../config/config-node';

export interface OptOutRequest {
  /** The configuration the message goes out on (the list may be per configuration). */
  config: SmsgwConfigNode;
  op: OperationDef;
  /** Each recipient entry as the flow wrote it (trimmed; not yet in international form). */
  recipients: readonly string[];
}

/** Lets every recipient through: no opt-out list exists yet. */
export function optOutCheck(_request: OptOutRequest): Promise<void> {
  return Promise.resolve();
}
