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
import { deployFields } from './common/fields';
import { udhEncoding } from './fields/rule';

interface SendUdhDef extends NodeDef {
  gateway: string;
  /** The Output property (common/output.ts). */
  output?: string;
  /** How a string in the data field is read: auto (hex if it looks like hex, else base64), hex or base64. */
  dataFormat?: 'auto' | 'hex' | 'base64';
  [field: string]: unknown;
}

/** The bytes of the UDH message from a Buffer, byte array, hex or base64 text. */
export function udhBytes(value: unknown, format: 'auto' | 'hex' | 'base64' = 'auto'): Buffer {
  // Before the text is read as hex or base64; the bytes go out as hex, twice as many characters.
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
  // The rule the dialog and the deploy check judge a fixed text by (src/nodes/fields/rule.ts).
  const encoding = udhEncoding(text, format);
  if (encoding === undefined)
    throw new GatewayError(
      'VALIDATION',
      format === 'hex' ? 'the data is not hex' : 'the data is neither hex nor base64',
      { operation: 'SendUDH' },
    );
  return Buffer.from(text, encoding);
}

export default (RED: NodeAPI): void => {
  function SmsgwSendUdh(this: Node, def: SendUdhDef): void {
    RED.nodes.createNode(this, def);
    // Every setting judged by its rule (src/nodes/fields/send.ts); a refused one: the node only says why.
    const values = deployFields(RED, this, 'smsgw-send-udh', def);
    if (values) start(this, def, values);
  }

  function start(node: Node, def: SendUdhDef, values: Record<string, unknown>): void {
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
      const format = o.msg(msg, 'dataFormat') ?? (values.dataFormat as 'auto' | 'hex' | 'base64');
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
