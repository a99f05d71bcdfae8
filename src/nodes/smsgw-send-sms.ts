/**
 * smsgw-send-sms: SendSMS, SendSimpleSMS or SendMobileOrFixlineSMS of the typed service.
 * In: msg.payload (text, by default), msg.topic (caption, by default); the msg overrides of its table
 * (common/override-table.ts: recipient(s), sender, caption, smsType, sendDate, jobPriority, operation, track,
 * trackTimeout, priority) replace the dialog's settings for one message.
 * Out: msg.payload (or the node's Output property) = { operation, JobId, CreateStatus, queued, segments,
 * encoding, ucs2, replaced? (with "Replace with GSM-7 look-alikes"), recipients, results?, caption (as sent, with the reference), reference, recovered, outbox? }
 * (send/send-path.ts).
 * With "track delivery": output 2 gets the job's final reports, output 3 the jobs whose reports did not come in
 * time (send/tracking.ts: one poll per config node).
 */
import type { Node, NodeAPI, NodeDef, NodeStatus } from 'node-red';
import { GatewayError } from '../errors';
import { analyzeText, replaceLookalikes, ucs2Chars } from '../text';
import { attachConfig, requireConfig } from './config/config';
import { onInput } from './common/input';
import { nodeOutput } from './common/output';
import { coerceParams, selectOperation } from './common/operations';
import { fieldNow } from './common/props';
import { overridesOf } from './common/override-table';
import { sendOutcome } from './send/results';
import { messageText, sendMessage, sentFields } from './send/send-path';
import { cachedText, jobStatus, sharedKey } from './common/status';
import { emitRestored } from './send/restored';
import { setupTracking, trackingOf } from './send/tracking';
import { deployFields } from './common/fields';

interface SendSmsDef extends NodeDef {
  gateway: string;
  /** The Output property (common/output.ts). */
  output?: string;
  operation: string;
  [field: string]: unknown;
}

export default (RED: NodeAPI): void => {
  function SmsgwSendSms(this: Node, def: SendSmsDef): void {
    RED.nodes.createNode(this, def);
    // Every setting judged by its rule (src/nodes/fields/send.ts); a refused one: the node only says why.
    const values = deployFields(RED, this, 'smsgw-send-sms', def);
    if (values) start(this, def, values);
  }

  function start(node: Node, def: SendSmsDef, values: Record<string, unknown>): void {
    const config = attachConfig(RED, node, def.gateway);
    const d = def as Record<string, unknown>;
    const output = nodeOutput(RED, def);
    emitRestored(RED, node, config, output);
    const o = overridesOf(RED, node, 'smsgw-send-sms', d);

    // The handler runs on a msg, after setupTracking below has given it `tracking`.
    const input = onInput(
      RED,
      node,
      output,
      async (msg, signal, ctx) => {
        const cfg = requireConfig(config);
        const op =
          o.msg(msg, 'operation') ?? selectOperation('smsgw-send-sms', values.operation as string, undefined);
        // Tracking asked for by the msg is refused here, before anything is sent, when the node cannot give it.
        const trackMs = trackingOf(tracking, o.msg(msg, 'track'), o.msg(msg, 'trackTimeout'));
        // The value itself for most field types (a promise only for context stores and JSONata).
        const given = messageText(await fieldNow(RED, node, d, msg, 'text'), op.name);
        // Replaced before the params are built: the gate (guard, outbox) and the result see the text that is sent.
        const swap = values.replaceLookalikes === true ? replaceLookalikes(given) : undefined;
        const text = swap ? swap.text : given;
        const recipients = await o.field(msg, 'recipient');
        if (recipients.length === 0)
          throw new GatewayError('VALIDATION', 'no recipient', { operation: op.name });
        if (recipients.length > 1 && op.name === 'SendSimpleSMS') {
          throw new GatewayError('VALIDATION', 'SendSimpleSMS takes one recipient; use SendSMS for several', {
            operation: op.name,
          });
        }
        const smsType = await o.field(msg, 'smsType');
        // Checked for every operation (SendSimpleSMS takes the date as text and would pass any text on).
        const sendDate = await o.field(msg, 'sendDate');
        const raw: Record<string, unknown> = {
          Caption: (await o.field(msg, 'caption')) ?? '',
          Sender: (await o.field(msg, 'sender')) ?? '',
          Recipient: op.name === 'SendSMS' ? recipients : recipients.join(','),
          SMSText: text,
          // Blank = now: .NET's "no date" for a dateTime, empty text for the string-typed SendDate.
          SendDate: sendDate ?? (op.name === 'SendSMS' ? null : ''),
          JobPriority: await o.field(msg, 'jobPriority'),
        };
        if (op.name === 'SendMobileOrFixlineSMS') {
          if (smsType === 'HighQuality' || smsType === 'HighQualityLong') raw.MobileSMSType = smsType;
        } else {
          raw.SmsTyp = smsType || 'Standard';
        }
        const params = coerceParams(op, raw);
        // Reports read while the send is under way are kept for its job (tracked late after a lost answer).
        const release = trackMs !== undefined ? tracking?.expect() : undefined;
        let outcome: ReturnType<typeof sendOutcome>;
        let sent: Awaited<ReturnType<typeof sendMessage>>;
        try {
          sent = await sendMessage(cfg, op, params, signal, ctx);
          outcome = sendOutcome(sent.value);
          // The reports of the numbers it went to (not of those the opt-out list left out).
          const sentTo =
            sent.skipped.length > 0 ? recipients.filter((r) => !sent.skipped.includes(r)) : recipients;
          if (trackMs !== undefined) tracking?.track(msg, outcome, sentTo, trackMs);
        } finally {
          release?.();
        }
        const analysis = analyzeText(text);
        return {
          payload: {
            operation: op.name,
            ...outcome,
            segments: analysis.segments,
            encoding: analysis.encoding,
            // The characters that made the text UCS-2 (empty for GSM-7), as sent.
            ucs2: ucs2Chars(text),
            ...(swap ? { replaced: swap.replaced } : {}),
            recipients,
            ...sentFields(sent),
          },
          status: withReplaced(jobStatus(RED, outcome.JobId, outcome.queued), swap?.replaced ?? 0),
        };
      },
      { quiet: values.quietHours !== 'off' },
    );
    const tracking = setupTracking(
      RED,
      node,
      config,
      { id: def.id, track: values.track as boolean, trackTimeout: values.trackTimeout as number | undefined },
      output,
      input,
    );
  }

  /** Never silent: the status says how many characters the look-alike replacement changed. */
  function withReplaced(status: NodeStatus, replaced: number): NodeStatus {
    if (replaced === 0) return status;
    const more = cachedText(RED, sharedKey('status.replaced'), { count: replaced });
    return { ...status, text: `${String(status.text ?? '')}, ${more}` };
  }

  RED.nodes.registerType('smsgw-send-sms', SmsgwSendSms);
};
