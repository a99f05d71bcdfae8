/** The send nodes' fields: send SMS, send HLR, send UDH, legacy send. */
import type { FieldTable } from './rule';
import {
  CAPTION,
  COMMON_TYPES,
  GATEWAY,
  NAME,
  OUTPUT,
  OUTPUTS,
  PARAMS,
  RECIPIENT,
  SEND_DATE,
  SENDER,
  QUIET_HOURS,
  REPLACE_LOOKALIKES,
  operation,
} from './shared';

const MORE_TYPES = COMMON_TYPES.slice(1);

export const SEND_SMS_FIELDS: FieldTable = {
  name: NAME,
  gateway: GATEWAY,
  output: OUTPUT,
  operation: operation(['SendSMS', 'SendSimpleSMS', 'SendMobileOrFixlineSMS'], 'SendSMS'),
  recipient: RECIPIENT,
  text: {
    kind: 'typed',
    label: 'smsgw-send-sms.label.text',
    value: 'payload',
    types: ['msg', 'str', ...MORE_TYPES],
    of: 'text',
    blank: 'required',
  },
  sender: SENDER,
  caption: CAPTION,
  // The list of the operation's SMS types (its own typedInput type); checked against the operation with the msg.
  smsType: {
    kind: 'typed',
    label: 'smsgw-send-sms.label.smsType',
    value: 'Standard',
    types: ['smstype', ...COMMON_TYPES],
    of: 'text',
    blank: 'gatewayDefault',
  },
  sendDate: SEND_DATE,
  quietHours: QUIET_HOURS,
  replaceLookalikes: REPLACE_LOOKALIKES,
  jobPriority: {
    kind: 'typed',
    label: 'smsgw-send-sms.label.jobPriority',
    value: '',
    types: ['num', ...COMMON_TYPES],
    of: 'number',
    whole: true,
    min: -2_147_483_648,
    max: 2_147_483_647,
    blank: 'gatewayDefault',
  },
  track: { kind: 'flag', label: 'smsgw-send-sms.label.track', value: false, blank: 'default' },
  // A tracked job's deadline is a timer.
  trackTimeout: {
    kind: 'number',
    label: 'smsgw-send-sms.label.trackTimeout',
    value: 1440,
    min: 0,
    above: true,
    unit: 'minutes',
    timer: 60_000,
    blank: 'default',
    when: { field: 'track', is: [true, 'true'], words: 'tracking' },
  },
  outputs: OUTPUTS,
};

export const SEND_HLR_FIELDS: FieldTable = {
  name: NAME,
  gateway: GATEWAY,
  output: OUTPUT,
  recipient: RECIPIENT,
  caption: CAPTION,
  wait: { kind: 'flag', label: 'smsgw-send-hlr.label.wait', value: false, blank: 'default' },
  // Judged whether or not the node waits: msg.wait may make it wait.
  waitTimeout: {
    kind: 'number',
    label: 'smsgw-send-hlr.label.waitTimeout',
    value: 60,
    min: 0,
    above: true,
    unit: 'seconds',
    timer: 1000,
    blank: 'default',
  },
};

export const SEND_UDH_FIELDS: FieldTable = {
  name: NAME,
  gateway: GATEWAY,
  output: OUTPUT,
  recipient: RECIPIENT,
  data: {
    kind: 'typed',
    label: 'smsgw-send-udh.label.data',
    value: 'payload',
    types: ['msg', 'str', 'bin', ...MORE_TYPES],
    of: 'text',
    format: 'udhData',
    blank: 'required',
  },
  dataFormat: {
    kind: 'choice',
    label: 'smsgw-send-udh.label.dataFormat',
    value: 'auto',
    options: ['auto', 'hex', 'base64'],
    blank: 'default',
  },
  sender: SENDER,
  caption: CAPTION,
  sendDate: SEND_DATE,
  quietHours: QUIET_HOURS,
};

export const LEGACY_SEND_FIELDS: FieldTable = {
  name: NAME,
  gateway: GATEWAY,
  output: OUTPUT,
  operation: operation(
    [
      'SendText',
      'SendText2',
      'SendSMS',
      'SendSMS2',
      'SendSimpleSMS',
      'SMSCR',
      'SendBinURL',
      'SendBinData',
      'SendBinData2',
    ],
    'SendText',
  ),
  params: PARAMS,
  quietHours: QUIET_HOURS,
  // The text parameters (SMSText, Msg) only: binary data is never changed.
  replaceLookalikes: REPLACE_LOOKALIKES,
};
