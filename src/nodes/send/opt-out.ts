/**
 * The send gate's opt-out check (gate.ts, step 2): numbers on the configuration's opt-out list (they replied STOP,
 * or were put there by an import or a flow) are refused before the spending guard counts anything.
 *
 * Called once per message of every operation that costs (catalogue `costs`) but HLR lookups (they send nothing to
 * the phone: they ask the network about the number), from every node, with the message's recipients split as the
 * guard counts them. It reads no text of the message and changes nothing in it; the gate takes the refused
 * recipients out of the parameters (gate-params.ts withoutRecipients) and sends to the others, or refuses the
 * whole message when none is left (OPTED_OUT, `ambiguous: false`: nothing was counted, stored or sent).
 * `msg.priority = "critical"` changes nothing here: a person's STOP wins over an alarm.
 *
 * The list's own answers to a keyword (the STOP confirmation goes to a number that is now on the list, and HELP is
 * answered whoever asks) are the one exception: the list sends them with `exempt`.
 */
import type { OperationDef } from '../../catalogue';
import { GatewayError } from '../../errors';
import type { SmsgwConfigNode } from '../config/config-node';
import type { RefusedRecipient } from '../config/types';

export interface OptOutRequest {
  /** The configuration the message goes out on (the list is per configuration). */
  config: SmsgwConfigNode;
  op: OperationDef;
  /** Each recipient entry as the flow wrote it (trimmed; not yet in international form). */
  recipients: readonly string[];
}

type Refused = RefusedRecipient;

/** The recipients refused by the configuration's list (none when the list is off or the operation is exempt). */
export async function optOutCheck(request: OptOutRequest): Promise<Refused[]> {
  const gate = request.config.optOut;
  // An HLR lookup (catalogue `lookup`) reaches the network, not the person.
  if (!gate || request.op.lookup === true || request.recipients.length === 0) return [];
  return gate.refused(request.recipients);
}

/** The refusal of a message's refused recipients (all of them, or the ones left out of a partial send). */
export function optedOutError(
  op: OperationDef,
  refused: readonly Refused[],
  recipients: readonly string[],
): GatewayError {
  const shown = refused.slice(0, 10).map((r) => r.shown);
  const more = refused.length > 10 ? ` and ${refused.length - 10} more` : '';
  const all = refused.length === recipients.length;
  return new GatewayError(
    'OPTED_OUT',
    `${all ? 'not sent' : 'not sent to these recipients (the others were sent)'}: on the opt-out list: ${shown.join(', ')}${more}`,
    {
      operation: op.name,
      service: op.service,
      ambiguous: false,
      // For a Catch node's flow: the numbers as the flow wrote them (the message text masks them).
      detail: { optedOut: refused.map((r) => recipients[r.index]), sent: !all },
    },
  );
}
