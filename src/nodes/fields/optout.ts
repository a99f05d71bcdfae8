/** The opt-out node: a flow adds, removes or asks about numbers on a gateway configuration's opt-out list. */
import type { FieldTable } from './rule';
import { COMMON_TYPES, GATEWAY, NAME, OUTPUT } from './shared';

export const OPTOUT_FIELDS: FieldTable = {
  name: NAME,
  gateway: GATEWAY,
  output: OUTPUT,
  // What the node does with the numbers; msg.optOut does the same for one msg.
  action: {
    kind: 'choice',
    label: 'smsgw-optout.label.action',
    value: 'check',
    options: ['add', 'remove', 'check'],
    blank: 'default',
  },
  // One number, a comma/semicolon/newline separated list, or an array (msg.payload by default).
  numbers: {
    kind: 'typed',
    label: 'smsgw-optout.label.numbers',
    value: 'payload',
    types: ['msg', 'str', 'json', ...COMMON_TYPES.slice(1)],
    of: 'text',
    format: 'recipients',
    blank: 'required',
  },
};
