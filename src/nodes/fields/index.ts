/**
 * Every node type's fields, declared once: the editor's `defaults` and validators (resources/fields.js), the check
 * at deploy and for each msg (common/fields.ts, common/override-table.ts), the help's field lists and the table of
 * docs/nodes.md come from here (`npm run generate`). test/nodes/fields.test.ts fails when a node's dialog has a
 * field this table does not declare.
 */
import { ASK_FIELDS } from './ask';
import { CONFIG_FIELDS } from './config';
import { HEARTBEAT_FIELDS } from './heartbeat';
import { BALANCE_FIELDS, CALL_FIELDS, CUSTOMER_FIELDS, QUERY_JOBS_FIELDS } from './query';
import { OPTOUT_FIELDS } from './optout';
import type { FieldTable } from './rule';
import { LEGACY_SEND_FIELDS, SEND_HLR_FIELDS, SEND_SMS_FIELDS, SEND_UDH_FIELDS } from './send';
import { BUDGET_FIELDS, DLR_FIELDS, HLR_RESULTS_FIELDS, INBOUND_FIELDS } from './triggers';

export const FIELDS: Readonly<Record<string, FieldTable>> = {
  'smsgw-config': CONFIG_FIELDS,
  'smsgw-send-sms': SEND_SMS_FIELDS,
  'smsgw-send-hlr': SEND_HLR_FIELDS,
  'smsgw-send-udh': SEND_UDH_FIELDS,
  'smsgw-legacy-send-text': LEGACY_SEND_FIELDS,
  'smsgw-balance': BALANCE_FIELDS,
  'smsgw-query-jobs': QUERY_JOBS_FIELDS,
  'smsgw-customer': CUSTOMER_FIELDS,
  'smsgw-call': CALL_FIELDS,
  'smsgw-inbound': INBOUND_FIELDS,
  'smsgw-dlr': DLR_FIELDS,
  'smsgw-hlr-results': HLR_RESULTS_FIELDS,
  'smsgw-budget': BUDGET_FIELDS,
  'smsgw-ask': ASK_FIELDS,
  'smsgw-heartbeat': HEARTBEAT_FIELDS,
  'smsgw-optout': OPTOUT_FIELDS,
};

/** A node type's table; throws for a type without one (every node type of the package has one). */
export function fieldsOf(nodeType: string): FieldTable {
  const table = FIELDS[nodeType];
  if (table === undefined) throw new Error(`no field table for ${nodeType}`);
  return table;
}
