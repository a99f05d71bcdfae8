/**
 * What the send gate reads from a message's parameters: its recipients (for the opt-out check), and the typed
 * client's form of parameters written for invoke() (the any-operation node).
 */
import type { OperationDef } from '../../catalogue';
import { recipientEntries } from '../../recipient-text';
import { bytesOf, isBytes, isPlainObject } from '../../shape';

/** How deep nested lists of a recipient value are read (a msg cannot make this recurse forever). */
const MAX_DEPTH = 8;

/**
 * Every recipient of a message, split as the spending guard counts them (recipient-text.ts): Recipient (text or
 * list), Recipients, SMSCR's bRecipient (UTF-8 bytes, or their base64 text as invoke() and the outbox hold them).
 */
export function recipientsOf(params: Record<string, unknown>): string[] {
  const out: string[] = [];
  collect(params.Recipient ?? params.Recipients, false, 0, out);
  collect(params.bRecipient, true, 0, out);
  return out;
}

function collect(value: unknown, base64: boolean, depth: number, out: string[]): void {
  if (isBytes(value)) out.push(...recipientEntries(bytesOf(value).toString('utf8')));
  else if (typeof value === 'string')
    out.push(...recipientEntries(base64 ? Buffer.from(value, 'base64').toString('utf8') : value));
  else if (typeof value === 'number' && Number.isFinite(value)) out.push(String(value));
  else if (depth >= MAX_DEPTH) return;
  else if (Array.isArray(value)) for (const item of value) collect(item, false, depth + 1, out);
  else if (isPlainObject(value)) for (const key in value) collect(value[key], false, depth + 1, out);
}

/**
 * The parameters without the recipients at `refused` (positions in recipientsOf's list): the opt-out check's
 * refusal of some recipients of a message while the others are sent. The recipient parameter keeps its kind: a
 * list stays a list (of the entries left), a text becomes the entries left separated by commas, SMSCR's bytes stay
 * bytes and their base64 text stays base64. Everything else is the same object's.
 */
export function withoutRecipients(
  params: Record<string, unknown>,
  refused: ReadonlySet<number>,
): Record<string, unknown> {
  if (refused.size === 0) return params;
  const name = params.Recipient !== undefined ? 'Recipient' : 'Recipients';
  const first: string[] = [];
  collect(params[name], false, 0, first);
  const second: string[] = [];
  collect(params.bRecipient, true, 0, second);
  const keep = (list: string[], offset: number): string[] => list.filter((_, i) => !refused.has(i + offset));
  const out = { ...params };
  if (params[name] !== undefined) {
    const left = keep(first, 0);
    out[name] = Array.isArray(params[name]) ? left : left.join(',');
  }
  if (params.bRecipient !== undefined) {
    const left = keep(second, first.length).join(',');
    out.bRecipient = isBytes(params.bRecipient)
      ? Buffer.from(left, 'utf8')
      : Buffer.from(left, 'utf8').toString('base64');
  }
  return out;
}

/**
 * Parameters written for invoke() as the typed client takes them: a list written as its child elements
 * (`Recipient: { string: [...] }`, the SOAP form) becomes the list itself. Everything else is the same in both.
 */
export function typedParams(op: OperationDef, params: Record<string, unknown>): Record<string, unknown> {
  let out = params;
  for (const p of op.params) {
    if (p.type.kind !== 'list') continue;
    const v = params[p.name];
    if (!isPlainObject(v)) continue;
    const keys = Object.keys(v);
    if (keys.length !== 1 || keys[0] !== p.type.itemElement) continue;
    const items = v[p.type.itemElement];
    out = { ...out, [p.name]: Array.isArray(items) ? items : [items] };
  }
  return out;
}
