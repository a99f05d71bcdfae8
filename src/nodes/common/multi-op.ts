import type { Node, NodeAPI, NodeDef } from 'node-red';
import { attachConfig, requireConfig } from '../config/config';
import { callOperation } from '../config/gateway';
import { warnOnce } from '../polling/odd-records';
import { emitRestored } from '../send/restored';
import { sendMessage, sentFields } from '../send/send-path';
import { onInput, type InputResult } from './input';
import { nodeOutput } from './output';
import { NODE_OPERATIONS, operationOf, selectOperation } from './operations';
import { resolveParams } from './params';
import { overridesOf } from './override-table';
import type { TypedValue } from '../config/types';
import type { OperationDef } from '../../catalogue';
import { deployFields } from './fields';
import { replaceLookalikes } from '../../text';
import { cachedText, sharedKey } from './status';

export interface MultiOpDef extends NodeDef {
  gateway: string;
  operation: string;
  params?: Record<string, TypedValue>;
  /** The Output property (common/output.ts). */
  output?: string;
}

/**
 * The nodes that offer several catalogue operations with one typedInput row per parameter (legacy send,
 * query jobs, customer): msg.operation picks another offered operation, msg.params.<Name> overrides a row.
 */
export function setupMultiOperation(
  RED: NodeAPI,
  node: Node,
  nodeType: 'smsgw-legacy-send-text' | 'smsgw-query-jobs' | 'smsgw-customer',
  def: MultiOpDef,
  present: (op: OperationDef, value: unknown) => InputResult,
): void {
  // Every setting judged by its rule (src/nodes/fields); a refused one: the node only says why.
  const values = deployFields(RED, node, nodeType, def);
  if (!values) return;
  const operation = values.operation as string;
  const config = attachConfig(RED, node, def.gateway);
  const output = nodeOutput(RED, def);
  // Legacy sends go through the outbox: their outcomes after a restart come back here.
  if ((NODE_OPERATIONS[nodeType] ?? []).some((key) => operationOf(key).costs === true))
    emitRestored(RED, node, config, output);
  // Odd values in an answer (kept as text, tolerant decoding): one node.warn per operation and field.
  const onWarning = warnOnce(RED, node);
  const o = overridesOf(RED, node, nodeType, def as unknown as Record<string, unknown>);
  onInput(
    RED,
    node,
    output,
    async (msg, signal, ctx) => {
      const cfg = requireConfig(config);
      const op = o.msg(msg, 'operation') ?? selectOperation(nodeType, operation, undefined);
      const params = await resolveParams(
        RED,
        node,
        nodeType,
        msg,
        op,
        def.params,
        o.msg(msg, 'params') ?? {},
      );
      if (op.costs !== true)
        return present(op, await callOperation(cfg.getClient(), op, params, signal, onWarning));
      // Replaced before the gate: the spending guard, the outbox and the gateway see the text that is sent.
      const replaced = values.replaceLookalikes === true ? replaceTexts(params) : undefined;
      // What costs (the older service's sends) goes through the send gate: reference, guard, outbox.
      const sent = await sendMessage(cfg, op, params, signal, ctx);
      const result = present(op, sent.value);
      const payload = result.payload;
      const status =
        replaced === undefined || replaced === 0
          ? result.status
          : {
              ...result.status,
              text: `${String(result.status.text ?? '')}, ${cachedText(RED, sharedKey('status.replaced'), { count: replaced })}`,
            };
      return typeof payload === 'object' && payload !== null && !Array.isArray(payload)
        ? {
            ...result,
            status,
            payload: { ...payload, ...(replaced !== undefined ? { replaced } : {}), ...sentFields(sent) },
          }
        : { ...result, status };
    },
    { quiet: nodeType === 'smsgw-legacy-send-text' && values.quietHours !== 'off' },
  );
}

/** The text parameters of the older service's sends (binary data, strMsg of SendBinData, is never changed). */
const TEXT_PARAMS = ['SMSText', 'Msg'] as const;

/**
 * "Replace with GSM-7 look-alikes" on the text parameters, in place: how many characters were replaced. Never
 * more segments than before (replaceLookalikes keeps an ellipsis that would add one).
 */
function replaceTexts(params: Record<string, unknown>): number {
  let replaced = 0;
  for (const name of TEXT_PARAMS) {
    const text = params[name];
    if (typeof text !== 'string') continue;
    const swap = replaceLookalikes(text);
    params[name] = swap.text;
    replaced += swap.replaced;
  }
  return replaced;
}
