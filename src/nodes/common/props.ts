import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { GatewayError } from '../../errors';
import { RECIPIENT_SEPARATOR, recipientEntries } from '../../recipient-text';
import { bytesOf, isBytes, isDate, timeOf } from '../../shape';

/**
 * `now` for callers that want a promise: its value (or the promise it gives), and what it throws as a
 * rejection.
 */
function promised<A extends unknown[]>(now: (...args: A) => unknown): (...args: A) => Promise<unknown> {
  return (...args) => {
    try {
      return Promise.resolve(now(...args));
    } catch (err) {
      return Promise.reject(err);
    }
  };
}

/**
 * Evaluates one typedInput field (msg, flow, global, env, str, num, json, jsonata, date...). A blank text
 * field means "not set" (undefined), so the gateway's own default applies. JSONata is asynchronous since
 * Node-RED 4, hence the callback form.
 */
export const evaluateProperty = promised(evaluateNow);

const PLAIN_NAME = /^[A-Za-z_$][\w$]*$/;
const SPECIAL = new Set(['__proto__', 'constructor', 'prototype']);

/** The reason in an error: JSONata throws plain objects ({ code, position, message }), not Errors. */
function reasonOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(err);
}

const cannotEvaluate = (t: string, value: string, err: unknown): GatewayError =>
  new GatewayError('VALIDATION', `cannot evaluate ${t} "${value}": ${reasonOf(err)}`);

/**
 * evaluateProperty without a promise where Node-RED answers at once (every type but context stores and
 * JSONata, which call back later): the value itself, or a promise of it. Errors are thrown (or rejected)
 * as the same VALIDATION GatewayError. A send node evaluates several fields per msg: a promise and its
 * closures each cost more than the evaluation.
 */
export function evaluateNow(
  RED: NodeAPI,
  node: Node,
  msg: NodeMessage,
  value: string | undefined,
  type: string | undefined,
): unknown {
  const t = type || 'str';
  if (value === undefined || value === null) return undefined;
  const text = String(value);
  if ((t === 'str' || t === 'num') && text.trim() === '') return undefined;
  // msg.payload, msg.topic: what RED.util.getMessageProperty gives after parsing the path every time.
  if (t === 'msg' && PLAIN_NAME.test(text) && !SPECIAL.has(text))
    return (msg as Record<string, unknown>)[text];
  let done = false;
  let failure: unknown;
  let result: unknown;
  let later: ((err: Error | null, res: unknown) => void) | undefined;
  try {
    RED.util.evaluateNodeProperty(text, t, node, msg, (err: Error | null, res: unknown) => {
      if (later) return later(err, res);
      done = true;
      failure = err;
      result = res;
    });
  } catch (err) {
    // json and bin values are parsed synchronously and throw instead of calling back.
    throw cannotEvaluate(t, text, err);
  }
  if (done) {
    if (failure) throw cannotEvaluate(t, text, failure);
    return result;
  }
  return new Promise((resolve, reject) => {
    later = (err, res) => (err ? reject(cannotEvaluate(t, text, err)) : resolve(res));
  });
}

/** The msg property a flow sets to override a field, if present (undefined and null count as absent). */
export function msgOverride(msg: NodeMessage, prop: string): unknown {
  const v = (msg as Record<string, unknown>)[prop];
  return v === undefined || v === null ? undefined : v;
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
  const d = isDate(value)
    ? new Date(timeOf(value))
    : new Date(typeof value === 'number' ? value : String(value).trim());
  if (Number.isNaN(d.getTime()))
    throw new GatewayError('VALIDATION', `${name} is not a date: "${String(value)}"`);
  return d;
}

export function toText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (isBytes(value)) return bytesOf(value).toString('utf8');
  if (isDate(value)) return new Date(timeOf(value)).toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Split as the recipient check and the spending guard split (recipient-text.ts). */
const splitRecipients = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).flatMap((v) => recipientEntries(String(v)));

/** The last recipient text split (a send node's dialog usually gives the same text for every msg). */
let lastText: string | undefined;
let lastList: readonly string[] = [];

/** A list of single, trimmed, non-blank numbers: what a node's own recipient list already is. */
function isCleanList(value: unknown[]): value is string[] {
  for (const v of value) {
    if (typeof v !== 'string' || v === '' || RECIPIENT_SEPARATOR.test(v) || v.trim() !== v) return false;
  }
  return true;
}

/** One recipient, a comma/semicolon/newline separated list, or an array of either. Blanks are dropped. */
export function toRecipients(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return isCleanList(value) ? value.slice() : splitRecipients(value);
  if (typeof value !== 'string') return splitRecipients(value);
  if (value !== lastText) {
    lastList = splitRecipients(value);
    lastText = value;
  }
  // A fresh array: it ends up in msg.payload, where the flow may change it.
  return lastList.slice();
}

/**
 * Reads `def[name]` and `def[name + "Type"]` (the typedInput pair) and evaluates it for this msg, without a
 * promise when the field is evaluated at once (see evaluateNow): `await` it anyway. A msg property that
 * overrides a field is read through the node's override table (overrides.ts), not here.
 */
export function fieldNow(
  RED: NodeAPI,
  node: Node,
  def: Readonly<Record<string, unknown>>,
  msg: NodeMessage,
  name: string,
): unknown {
  const [value, type] = typedField(def, name);
  return evaluateNow(RED, node, msg, value, type);
}

/** fieldNow, always as a promise. */
export const fieldOf = promised(fieldNow);

/** The typedInput pairs of each node's settings, read once (a send node reads seven per msg). */
const typedFields = new WeakMap<object, Map<string, readonly [string | undefined, string]>>();

function typedField(
  def: Readonly<Record<string, unknown>>,
  name: string,
): readonly [string | undefined, string] {
  let fields = typedFields.get(def);
  if (fields === undefined) {
    fields = new Map();
    typedFields.set(def, fields);
  }
  let field = fields.get(name);
  if (field === undefined) {
    const value = def[name];
    const type = def[`${name}Type`];
    field = [
      value === undefined || value === null ? undefined : String(value),
      typeof type === 'string' ? type : 'str',
    ];
    fields.set(name, field);
  }
  return field;
}
