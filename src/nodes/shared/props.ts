import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { GatewayError } from '../../errors';

/**
 * Evaluates one typedInput field (msg, flow, global, env, str, num, json, jsonata, date...). A blank text
 * field means "not set" (undefined), so the gateway's own default applies. JSONata is asynchronous since
 * Node-RED 4, hence the callback form.
 */
export function evaluateProperty(
  RED: NodeAPI,
  node: Node,
  msg: NodeMessage,
  value: string | undefined,
  type: string | undefined,
): Promise<unknown> {
  const t = type || 'str';
  if (value === undefined || value === null) return Promise.resolve(undefined);
  if ((t === 'str' || t === 'num') && String(value).trim() === '') return Promise.resolve(undefined);
  const fail = (err: unknown): GatewayError =>
    new GatewayError(
      'VALIDATION',
      `cannot evaluate ${t} "${String(value)}": ${err instanceof Error ? err.message : String(err)}`,
    );
  return new Promise((resolve, reject) => {
    try {
      RED.util.evaluateNodeProperty(String(value), t, node, msg, (err: Error | null, result: unknown) => {
        if (err) reject(fail(err));
        else resolve(result);
      });
    } catch (err) {
      // json and bin values are parsed synchronously and throw instead of calling back.
      reject(fail(err));
    }
  });
}

/** The msg property a flow sets to override a field, if present (undefined and null count as absent). */
export function msgOverride(msg: NodeMessage, prop: string): unknown {
  const v = (msg as Record<string, unknown>)[prop];
  return v === undefined || v === null ? undefined : v;
}

/** Reads msg[prop] if set, else evaluates the typedInput field. */
export async function resolveField(
  RED: NodeAPI,
  node: Node,
  msg: NodeMessage,
  prop: string | undefined,
  value: string | undefined,
  type: string | undefined,
): Promise<unknown> {
  if (prop) {
    const o = msgOverride(msg, prop);
    if (o !== undefined) return o;
  }
  return evaluateProperty(RED, node, msg, value, type);
}

export function toInt(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'number' ? value : Number(String(value).trim());
  if (!Number.isInteger(n))
    throw new GatewayError('VALIDATION', `${name} must be a whole number, got "${String(value)}"`);
  return n;
}

/** Dates from a Date, epoch milliseconds, or any text Date can parse (ISO 8601 recommended). */
export function toDate(value: unknown, name: string): Date | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const d =
    value instanceof Date ? value : new Date(typeof value === 'number' ? value : String(value).trim());
  if (Number.isNaN(d.getTime()))
    throw new GatewayError('VALIDATION', `${name} is not a date: "${String(value)}"`);
  return d;
}

export function toText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** One recipient, a comma/semicolon/newline separated list, or an array of either. Blanks are dropped. */
export function toRecipients(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : [value];
  return items
    .flatMap((v) => String(v).split(/[,;\n]/))
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Reads `def[name]` and `def[name + "Type"]` (the typedInput pair) and resolves it for this msg. */
export function fieldOf(
  RED: NodeAPI,
  node: Node,
  def: Record<string, unknown>,
  msg: NodeMessage,
  name: string,
  msgProp?: string,
): Promise<unknown> {
  const value = def[name];
  const type = def[`${name}Type`];
  return resolveField(
    RED,
    node,
    msg,
    msgProp,
    value === undefined || value === null ? undefined : String(value),
    typeof type === 'string' ? type : 'str',
  );
}
