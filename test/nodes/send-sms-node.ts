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
