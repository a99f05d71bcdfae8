import type { Node, NodeAPI, NodeMessage } from 'node-red';
import type { OperationDef } from '../../catalogue';
import { blankValue, coerceParam, PARAM_DEFAULTS, userParams } from './operations';
import { evaluateProperty } from './props';
import type { TypedValue } from '../config/types';

/**
 * Parameters of a catalogue operation for one message: `overrides` (msg.params, read through the node's override
 * table) wins, then the dialog's typedInput row for that parameter, then the node type's default source (e.g.
 * SMSText from msg.payload).
 */
export async function resolveParams(
  RED: NodeAPI,
  node: Node,
  nodeType: string,
  msg: NodeMessage,
  op: OperationDef,
  configured: Readonly<Record<string, TypedValue>> | undefined,
  overrides: Readonly<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const p of userParams(op)) {
    let raw: unknown = overrides[p.name];
    if (raw === undefined) {
      const row = configured?.[p.name] ?? PARAM_DEFAULTS[nodeType]?.[p.name];
      if (row) raw = await evaluateProperty(RED, node, msg, row.value, row.type);
    }
    const v = raw === undefined ? blankValue(p) : coerceParam(p, raw);
    if (v !== undefined) out[p.name] = v;
  }
  return out;
}
