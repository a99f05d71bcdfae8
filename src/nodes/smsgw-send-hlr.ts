/**
 * smsgw-send-hlr: SendHLR (is this number live, and on which network?).
 * In: msg.recipient(s) and msg.topic (caption) by default; the msg overrides of its table
 * (common/override-table.ts: recipient(s), caption, wait, waitTimeout, priority). Option: wait for the result
 * (QueryHLRJobsByJobID) and emit it with the msg. Out: msg.payload (or the node's Output property) = { JobId, CreateStatus, queued,
 * recipients, hlr? }.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { GatewayError } from '../errors';
import { attachConfig, requireConfig } from './config/config';
import { onInput } from './common/input';
import { nodeOutput } from './common/output';
import { overridesOf } from './common/override-table';
import { operationOf } from './common/operations';
import { sendOutcome } from './send/results';
import { emitRestored } from './send/restored';
import { sendMessage, sentFields } from './send/send-path';
import { jobStatus, ok, sharedKey } from './common/status';
import { deployFields } from './common/fields';

interface SendHlrDef extends NodeDef {
  gateway: string;
  /** The Output property (common/output.ts). */
  output?: string;
  wait?: boolean;
  waitTimeout?: number | string;
  [field: string]: unknown;
}

/** Resolves after ms, or rejects when the signal aborts; leaves no listener behind (input.ts reuses signals). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(t);
      reject(new GatewayError('TIMEOUT', 'aborted while waiting for the HLR result'));
    };
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export default (RED: NodeAPI): void => {
  function SmsgwSendHlr(this: Node, def: SendHlrDef): void {
    RED.nodes.createNode(this, def);
    // Every setting judged by its rule (src/nodes/fields/send.ts); a refused one: the node only says why.
    const values = deployFields(RED, this, 'smsgw-send-hlr', def);
    if (values) start(this, def, values);
  }

  function start(node: Node, def: SendHlrDef, values: Record<string, unknown>): void {
    const config = attachConfig(RED, node, def.gateway);
    const d = def as Record<string, unknown>;
    // Above 0 and within a timer's reach, as msg.waitTimeout (their rule).
    const waitS = values.waitTimeout as number;
    const pollMs = Math.max(
      100,
      Number((RED.settings as unknown as Record<string, unknown>).smsgwSendHlrPollInterval) || 2000,
    );

    const output = nodeOutput(RED, def);
    emitRestored(RED, node, config, output);
    const o = overridesOf(RED, node, 'smsgw-send-hlr', d);

    onInput(RED, node, output, async (msg, signal, ctx) => {
      const cfg = requireConfig(config);
      const wait = o.msg(msg, 'wait') ?? (values.wait as boolean);
      const waitMs = (o.msg(msg, 'waitTimeout') ?? waitS) * 1000;
      const recipients = await o.field(msg, 'recipient');
      if (recipients.length === 0)
        throw new GatewayError('VALIDATION', 'no recipient', { operation: 'SendHLR' });
      const Caption = (await o.field(msg, 'caption')) ?? '';
      const params = { Caption, Recipient: recipients.join(',') };
      const sent = await sendMessage(cfg, operationOf('send/SendHLR'), params, signal, ctx);
      const outcome = sendOutcome(sent.value);
      const client = cfg.getClient();
      const payload: Record<string, unknown> = {
        operation: 'SendHLR',
        ...outcome,
        recipients,
        ...sentFields(sent),
      };
      if (!wait || outcome.queued) return { payload, status: jobStatus(RED, outcome.JobId, outcome.queued) };

      const deadline = Date.now() + waitMs;
      for (;;) {
        const hlr = await client.information.queryHlrJobsByJobId(
          { JobID: Number(outcome.JobId) },
          { signal },
        );
        if (hlr.length >= recipients.length) {
          payload.hlr = hlr;
          const first = hlr[0];
          return {
            payload,
            status: ok(first ? `${first.Number}: ${first.NecValue}` : String(outcome.JobId)),
          };
        }
        if (Date.now() >= deadline) {
          // The JobId reaches the Catch node, at the same place a result would have.
          output.write(msg, payload);
          throw new GatewayError('TIMEOUT', RED._(sharedKey('errors.hlrWait'), { s: waitMs / 1000 }), {
            operation: 'QueryHLRJobsByJobID',
          });
        }
        await sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())), signal);
      }
    });
  }

  RED.nodes.registerType('smsgw-send-hlr', SmsgwSendHlr);
};
