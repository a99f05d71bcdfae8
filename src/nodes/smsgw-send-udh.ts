/**
 * smsgw-send-udh: SendUDH, a binary message with a user data header.
 * In: data from msg.payload by default: a Buffer, a hex string or a base64 string; msg.topic (caption) by
 * default; the msg overrides of its table (common/override-table.ts: recipient(s), sender, caption, sendDate,
 * dataFormat, priority). Out: msg.payload (or the node's Output
 * property) = { ParseStatus, queued, bytes }.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { GatewayError } from '../errors';
import { bytesOf, isBytes } from '../shape';
import { overCap, overContentCap } from '../text';
import { operationOf } from './common/operations';
import { attachConfig, requireConfig } from './config/config';
import { onInput } from './common/input';
import { nodeOutput } from './common/output';
import { fieldOf, toText } from './common/props';
import { overridesOf } from './common/override-table';
import { sendOutcome } from './send/results';
import { emitRestored } from './send/restored';
import { sendMessage, sentFields } from './send/send-path';
import { ok, sharedKey, warn } from './common/status';

interface SendUdhDef extends NodeDef {
  gateway: string;
  /** The Output property (common/output.ts). */
  output?: string;
  /** How a string in the data field is read: auto (hex if it looks like hex, else base64), hex or base64. */
  dataFormat?: 'auto' | 'hex' | 'base64';
  [field: string]: unknown;
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The bytes of the UDH message from a Buffer, byte array, hex or base64 text. */
export function udhBytes(value: unknown, format: 'auto' | 'hex' | 'base64' = 'auto'): Buffer {
  // Before the text is read as hex or base64 (issue 19 §6); the bytes go out as hex, twice as many characters.
  const tooLarge =
    isBytes(value) || Array.isArray(value)
      ? overCap('the data as hex', value.length * 2, 'characters')
      : overContentCap('the data', value);
  if (tooLarge !== undefined) {
    throw new GatewayError('VALIDATION', tooLarge, { operation: 'SendUDH', ambiguous: false });
  }
  if (isBytes(value)) return bytesOf(value);
  if (Array.isArray(value)) return Buffer.from(value as number[]);
  const text = (toText(value) ?? '').replace(/\s+/g, '');
  const hexOk = HEX.test(text);
  if (format === 'hex' || (format === 'auto' && hexOk)) {
    if (!hexOk) throw new GatewayError('VALIDATION', 'the data is not hex', { operation: 'SendUDH' });
    return Buffer.from(text, 'hex');
  }
  if (text.length % 4 !== 0 || !BASE64.test(text)) {
    throw new GatewayError('VALIDATION', 'the data is neither hex nor base64', { operation: 'SendUDH' });
  }
  return Buffer.from(text, 'base64');
}

export default (RED: NodeAPI): void => {
  function SmsgwSendUdh(this: Node, def: SendUdhDef): void {
    RED.nodes.createNode(this, def);
    start(this, def);
  }

  function start(node: Node, def: SendUdhDef): void {
    const config = attachConfig(RED, node, def.gateway);
    const d = def as Record<string, unknown>;
    const output = nodeOutput(RED, def);
    emitRestored(RED, node, config, output);
    const o = overridesOf(RED, node, 'smsgw-send-udh', d);

    onInput(RED, node, output, async (msg, signal, ctx) => {
      const cfg = requireConfig(config);
      const recipients = await o.field(msg, 'recipient');
      if (recipients.length === 0)
        throw new GatewayError('VALIDATION', 'no recipient', { operation: 'SendUDH' });
      const format = o.msg(msg, 'dataFormat') ?? def.dataFormat ?? 'auto';
      const bytes = udhBytes(await fieldOf(RED, node, d, msg, 'data'), format);
      if (bytes.length === 0) throw new GatewayError('VALIDATION', 'no data', { operation: 'SendUDH' });
      const params = {
        Caption: (await o.field(msg, 'caption')) ?? '',
        Sender: (await o.field(msg, 'sender')) ?? '',
        Recipient: recipients.join(','),
        // The wire format of Data is not shown: upper-case hex of UDH + payload (docs/assumptions.md).
        Data: bytes.toString('hex').toUpperCase(),
        SendDate: (await o.field(msg, 'sendDate')) ?? '',
      };
      const sent = await sendMessage(cfg, operationOf('send/SendUDH'), params, signal, ctx);
      const outcome = sendOutcome(sent.value);
      return {
        payload: { operation: 'SendUDH', ...outcome, bytes: bytes.length, recipients, ...sentFields(sent) },
        status: outcome.queued
          ? warn(RED._(sharedKey('status.queued'), { jobId: '' }))
          : ok(String(outcome.ParseStatus ?? 'Ok')),
      };
    });
  }

  RED.nodes.registerType('smsgw-send-udh', SmsgwSendUdh);
};
