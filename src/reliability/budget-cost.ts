/**
 * What one send costs the spending guard (budget.ts): segments x recipients, known before anything is sent.
 * The price of each SMS type is not shown in the spec, so every segment counts 1 whatever its type
 * (docs/assumptions.md, "Spending guard"):
 * - a text: its segments as a handset would send it (GSM-7 160/153, UCS-2 70/67; text/analyze.ts), at least 1;
 * - binary data (SendUDH, SendBinData, SendBinData2): 140 bytes in one SMS, 134 per part beyond that;
 * - a binary message from a URL (SendBinURL): its size is not known before the gateway fetches it: 1;
 * - an HLR lookup (SendHLR): no SMS, but it is charged: 1 per number.
 * Recipients are the entries of the recipient text or list, split on every separator the gateway might honour
 * (recipient-text.ts: comma, semicolon, line breaks CR and LF among them, tab, `|`), as the recipient check splits
 * them; SMSCR's bytes as UTF-8 text; a list written as invoke() takes it (`{ string: [...] }`) by its items; at
 * least 1.
 */
import type { OperationDef } from '../catalogue/types';
import { recipientEntryCount } from '../recipient-text';
import { isPlainObject } from '../shape';
import { analyzeText } from '../text';

const HEX = /^(?:[0-9a-fA-F]{2})*$/;
/** How deep a recipient value's nested lists and objects are read (a msg cannot make the count recurse forever). */
const MAX_DEPTH = 8;

const entriesOf = recipientEntryCount;

/** Shape, not class: a Buffer made in another realm (a function node) counts the same. */
const isBytes = (v: unknown): v is Uint8Array =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as Uint8Array).byteLength === 'number' &&
  ArrayBuffer.isView(v);

/** Recipients of a recipient parameter's value. */
export function recipientCount(value: unknown, bytesAreText = false): number {
  return Math.max(1, entriesIn(value, bytesAreText, 0));
}

function entriesIn(value: unknown, bytesAreText: boolean, depth: number): number {
  if (isBytes(value))
    return entriesOf(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8'));
  // SMSCR's bRecipient as text is its base64 form (as the outbox stores it and the request builder sends it).
  if (typeof value === 'string')
    return entriesOf(bytesAreText ? Buffer.from(value, 'base64').toString('utf8') : value);
  if (typeof value === 'number') return 1;
  if (depth >= MAX_DEPTH) return 1;
  let n = 0;
  if (Array.isArray(value)) for (const item of value) n += entriesIn(item, false, depth + 1);
  // A list as a child element per item (`{ string: [...] }`): every value counts.
  else if (isPlainObject(value)) for (const key in value) n += entriesIn(value[key], false, depth + 1);
  return n;
}

/** SMS a binary message of `bytes` takes: 140 bytes in one, 134 per part when a concatenation header is needed. */
export const binarySegments = (bytes: number): number => (bytes <= 140 ? 1 : Math.ceil(bytes / 134));

function dataBytes(value: unknown, hex: boolean): number {
  if (isBytes(value)) return value.byteLength;
  if (typeof value !== 'string') return 0;
  const text = value.replace(/\s+/g, '');
  if (hex && HEX.test(text)) return text.length / 2;
  return Buffer.from(text, 'base64').length;
}

/** Segments of one copy of the message (before recipients). */
function segmentsOf(op: OperationDef, params: Record<string, unknown>): number {
  const text = params.SMSText ?? params.Msg;
  if (typeof text === 'string') return Math.max(1, analyzeText(text).segments);
  if (op.lookup === true) return 1;
  if ('Data' in params) return binarySegments(dataBytes(params.Data, op.name === 'SendUDH'));
  return 1;
}

/** Units one send counts against the limits: segments x recipients. */
export function sendCost(op: OperationDef, params: Record<string, unknown>): number {
  const recipients =
    params.bRecipient !== undefined
      ? recipientCount(params.bRecipient, true)
      : recipientCount(params.Recipient ?? params.Recipients);
  return segmentsOf(op, params) * recipients;
}
