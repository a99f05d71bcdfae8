import type { FlowNode } from './helpers';

/**
 * A `smsgw-send-sms` node "n1" on the config node "cfg" of flowWith: msg.payload to one fixed number, with
 * msg.topic as the caption, its output wired to the helper node "out".
 */
export const sendSmsNode = (extra: Record<string, unknown> = {}): FlowNode => ({
  id: 'n1',
  type: 'smsgw-send-sms',
  gateway: 'cfg',
  operation: 'SendSMS',
  recipient: '+4917000000001',
  recipientType: 'str',
  text: 'payload',
  textType: 'msg',
  caption: 'topic',
  captionType: 'msg',
  wires: [['out']],
  ...extra,
});

/** A `smsgw-send-udh` node "n1" like sendSmsNode: msg.payload as the data (Buffer, hex or base64) to one number. */
export const sendUdhNode = (extra: Record<string, unknown> = {}): FlowNode => ({
  id: 'n1',
  type: 'smsgw-send-udh',
  gateway: 'cfg',
  recipient: '+4917044444444',
  recipientType: 'str',
  data: 'payload',
  dataType: 'msg',
  dataFormat: 'auto',
  caption: 'topic',
  captionType: 'msg',
  wires: [['out']],
  ...extra,
});
