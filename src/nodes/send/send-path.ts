/**
 * What the send nodes add around the send gate (gate.ts, the one door of every operation that costs): the text
 * of a message, msg.priority, and the fields of its outcome every send node outputs. `sendMessage` is the gate's.
 */
import { GatewayError } from '../../errors';
import { overContentCap } from '../../text';
import { bytesOf, isBytes } from '../../shape';
import { kindOf } from '../../value-kind';
import type { SendDone } from './gate';

export { sendDone, sendMessage, type SendContext, type SendDone } from './gate';

/** msg.priority as the send path takes it: "critical" (any case, trimmed) or normal. */
export function priorityOf(value: unknown): 'critical' | undefined {
  return typeof value === 'string' && value.trim().toLowerCase() === 'critical' ? 'critical' : undefined;
}

/**
 * What every send node adds to msg.payload: the caption as sent, the reference, recovered, outbox, and `skipped`:
 * the recipients the opt-out list left out (as the flow wrote them), when there were any.
 */
export function sentFields(sent: SendDone): Record<string, unknown> {
  const out: Record<string, unknown> = { recovered: sent.recovered };
  if (sent.caption !== undefined) out.caption = sent.caption;
  if (sent.reference !== undefined) out.reference = sent.reference;
  if (sent.outbox) out.outbox = true;
  if (sent.skipped.length > 0) out.skipped = [...sent.skipped];
  return out;
}

/**
 * The text of a message: a string, a number or a Buffer. Anything else (an object, an array, a boolean) is
 * most likely a flow that forgot to pick the text out of its payload: refused before anything is sent.
 */
export function messageText(value: unknown, operation: string): string {
  if (value === undefined || value === null) return '';
  // Before the bytes are decoded or anything reads the text.
  const tooLarge = overContentCap('the message text', value);
  if (tooLarge !== undefined) {
    throw new GatewayError('VALIDATION', tooLarge, { operation, ambiguous: false });
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (isBytes(value)) return bytesOf(value).toString('utf8');
  throw new GatewayError('VALIDATION', `the message text must be a string, got ${kindOf(value)}`, {
    operation,
    ambiguous: false,
  });
}
