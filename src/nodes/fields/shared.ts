/** Fields several node types have, declared once (rule.ts says what a field declares). */
import type { Field } from './rule';

const SHARED = 'smsgw-config';

/** The typedInput types every field offers after its own (editor.js COMMON). */
export const COMMON_TYPES = ['msg', 'flow', 'global', 'env', 'jsonata'] as const;
/** The same without msg (for fields whose first type is msg). */
const MORE_TYPES = COMMON_TYPES.slice(1);

export const NAME: Field = { kind: 'text', label: `${SHARED}.label.name`, value: '' };

export const GATEWAY: Field = {
  kind: 'config',
  label: `${SHARED}.common.gateway`,
  value: '',
  blank: 'required',
  configType: 'smsgw-config',
};

/** The Output property of an action node (common/output.ts): blank writes msg.payload. */
export const OUTPUT: Field = {
  kind: 'property',
  label: `${SHARED}.common.output`,
  value: 'payload',
  blank: 'payload',
};

/** Recipients: one number, a comma/semicolon/newline separated list, or an array; blank: msg.recipient(s). */
export const RECIPIENT: Field = {
  kind: 'typed',
  label: `${SHARED}.common.recipient`,
  value: '',
  types: ['str', 'json', ...COMMON_TYPES],
  of: 'text',
  format: 'recipients',
  blank: 'fromMsg',
};

export const CAPTION: Field = {
  kind: 'typed',
  label: `${SHARED}.common.caption`,
  value: 'topic',
  types: ['msg', 'str', ...MORE_TYPES],
  of: 'text',
};

export const SENDER: Field = {
  kind: 'typed',
  label: `${SHARED}.common.sender`,
  value: '',
  types: ['str', ...COMMON_TYPES],
  of: 'text',
  blank: 'gatewayDefault',
};

export const SEND_DATE: Field = {
  kind: 'typed',
  label: `${SHARED}.common.sendDate`,
  value: '',
  types: ['str', 'date', ...COMMON_TYPES],
  of: 'text',
  format: 'date',
  blank: 'now',
};

/**
 * Whether the configuration's quiet hours hold this node's sends (`config`, the default) or the node sends at
 * any hour (`off`: an alarm node; msg.priority "critical" does the same for one message).
 */
export const QUIET_HOURS: Field = {
  kind: 'choice',
  label: `${SHARED}.common.quietHours`,
  value: 'config',
  options: ['config', 'off'],
  blank: 'default',
};

/**
 * "Replace with GSM-7 look-alikes" of the nodes that send a text (send SMS, legacy send). Off by default: a flow's
 * text is changed only when the user chose it (the status and the result say how many were replaced). Its words
 * are the send SMS node's.
 */
export const REPLACE_LOOKALIKES: Field = {
  kind: 'flag',
  label: 'smsgw-send-sms.label.replaceLookalikes',
  value: false,
  blank: 'default',
};

/** An operation among the node's menu (the catalogue's; test/nodes/fields.test.ts holds the lists to it). */
export const operation = (options: readonly string[], value: string): Field => ({
  kind: 'choice',
  label: `${SHARED}.common.operation`,
  value,
  options,
  blank: 'default',
});

/** One typedInput row per parameter of the operation (an object): each is checked with the msg. */
export const PARAMS: Field = { kind: 'internal', label: `${SHARED}.common.parameters`, value: {} };

/** The dialog sets it with Track delivery (1 or 3 outputs) or the threshold (1 or 2). */
export const OUTPUTS: Field = { kind: 'internal', label: `${SHARED}.common.output`, value: 1 };

// ---- polling triggers ----

/** Seconds between polls; not read (nor judged) while the trigger polls only when a message arrives. */
export const INTERVAL: Field = {
  kind: 'number',
  label: `${SHARED}.common.interval`,
  value: 60,
  min: 1,
  unit: 'seconds',
  timer: 1000,
  blank: 'default',
  when: { field: 'inputs', is: [0, '', undefined, null], words: 'polling' },
};

/** 1: "poll only when a message arrives" (the dialog sets it with its checkbox). */
export const INPUTS: Field = { kind: 'internal', label: `${SHARED}.common.pollOnInput`, value: 0 };

/** A context store for the trigger's state; blank: a file in the user directory. */
export const store = (nodeType: string): Field => ({
  kind: 'text',
  label: `${nodeType}.label.store`,
  value: '',
  blank: 'file',
});
