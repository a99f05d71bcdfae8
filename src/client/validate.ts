import type { OperationDef, ParamDef } from '../catalogue/types';
import { GatewayError } from '../errors';
import { isBytes, isDate, timeOf } from '../shape';
import { checkSegments, contentCapProblem, lengthMessage, sendTypeInfo, type SegmentLimits } from '../text';
import { checkRecipientValue, type RecipientRules } from './recipients';

/** Parameters that name who receives a message: an empty value is always a mistake. */
const RECIPIENT_PARAMS = new Set(['Recipient', 'bRecipient']);
/** Parameters holding the message text: an empty text is refused before sending. */
const TEXT_PARAMS = new Set(['SMSText', 'Msg']);

export interface ValidationLimits {
  maxRecipients: number;
  /** Segments per SMS type (text/limits.ts); undefined = not checked. */
  segments?: Readonly<SegmentLimits> | undefined;
  /** How recipients are checked and normalised (recipients.ts); undefined = not checked. */
  recipients?: Readonly<RecipientRules> | undefined;
}

function invalid(op: OperationDef, message: string): never {
  throw new GatewayError('VALIDATION', message, {
    service: op.service,
    operation: op.name,
    ambiguous: false,
  });
}

const isBlank = (v: unknown): boolean =>
  (typeof v === 'string' && v.trim() === '') || v === undefined || v === null;

function checkOne(op: OperationDef, p: ParamDef, v: unknown, limits: ValidationLimits): void {
  const recipient = RECIPIENT_PARAMS.has(p.name);
  if (v === undefined || (v === null && !(p.type.kind === 'primitive' && p.type.name === 'dateTime'))) {
    if (p.optional) return;
    invalid(
      op,
      recipient
        ? 'missing recipient'
        : TEXT_PARAMS.has(p.name)
          ? 'empty text'
          : `missing parameter ${p.name}`,
    );
  }
  if (p.type.kind === 'list') {
    const items = Array.isArray(v) ? v : [v];
    if (items.length === 0) invalid(op, recipient ? 'missing recipient' : `parameter ${p.name}: empty list`);
    if (recipient && items.length > limits.maxRecipients) {
      invalid(op, `too many recipients: ${items.length} (at most ${limits.maxRecipients})`);
    }
    for (const item of items) {
      if (typeof item !== 'string' && typeof item !== 'number')
        invalid(op, `parameter ${p.name}: expected strings`);
      if (recipient && isBlank(item)) invalid(op, 'missing recipient (empty entry in the list)');
    }
    return;
  }
  if (recipient) {
    const empty = isBlank(v) || (isBytes(v) && v.length === 0) || (Array.isArray(v) && v.length === 0);
    if (empty) invalid(op, 'missing recipient');
  }
  if (TEXT_PARAMS.has(p.name) && (typeof v !== 'string' || v === '')) {
    invalid(op, typeof v === 'string' ? 'empty text' : `parameter ${p.name}: expected a string`);
  }
  if (p.type.kind === 'primitive') {
    if (p.type.name === 'dateTime' && isDate(v) && Number.isNaN(timeOf(v))) {
      invalid(op, `parameter ${p.name}: invalid date`);
    }
    if (p.max !== undefined && typeof v === 'number' && v > p.max) {
      invalid(op, `parameter ${p.name}: at most ${p.max}`);
    }
  }
}

/** A text longer than its SMS type takes would be refused by the service (SMSTypeError) and maybe charged. */
function checkLength(
  op: OperationDef,
  values: Record<string, unknown>,
  segments: Readonly<SegmentLimits>,
): void {
  const text = values.SMSText ?? values.Msg;
  if (typeof text !== 'string') return;
  const problem = checkSegments(text, sendTypeInfo(op, values), segments);
  if (problem) invalid(op, lengthMessage(problem));
}

/** Recipients that are no phone number are refused; with a default country the rest made international. */
function checkRecipients(
  op: OperationDef,
  values: Record<string, unknown>,
  rules: Readonly<RecipientRules>,
): Record<string, unknown> {
  let out = values;
  for (const name of RECIPIENT_PARAMS) {
    const v = values[name];
    if (v === undefined) continue;
    const checked = checkRecipientValue(v, rules, (message) => invalid(op, message));
    // The caller's object is left as it is: the outbox and the lookups keep what the flow gave.
    if (checked !== v) out = { ...out, [name]: checked };
  }
  return out;
}

const names = new WeakMap<OperationDef, ReadonlySet<string>>();
function namesOf(op: OperationDef): ReadonlySet<string> {
  let set = names.get(op);
  if (!set) {
    set = new Set(op.params.map((p) => p.name));
    names.set(op, set);
  }
  return set;
}

/**
 * Checks what the wire codec cannot know is wrong: a text or data over the hard cap (text/cap.ts, whatever the
 * segment checks say), missing recipients, recipients that are no phone number, empty texts, texts too long for
 * their SMS type, list and range limits. Returns the values to send (a copy
 * where a default country made a recipient international).
 * Types, enums, date syntax and unknown names are checked again by the request builder.
 */
export function validateParams(
  op: OperationDef,
  params: unknown,
  limits: ValidationLimits,
): Record<string, unknown> {
  if (params === undefined || params === null) params = {};
  if (typeof params !== 'object' || Array.isArray(params)) invalid(op, 'parameters must be an object');
  const values = params as Record<string, unknown>;
  // First and in O(1): a text or data no SMS can carry is refused before anything reads it.
  const tooLarge = contentCapProblem(values);
  if (tooLarge !== undefined) invalid(op, tooLarge);
  const known = namesOf(op);
  for (const k in values) {
    if (!known.has(k) && values[k] !== undefined) {
      const hint = op.params.find((p) => p.name.toLowerCase() === k.toLowerCase());
      invalid(op, `unknown parameter ${k}${hint ? ` (did you mean ${hint.name}?)` : ''}`);
    }
  }
  for (const p of op.params) {
    if (p.credential) continue;
    checkOne(op, p, values[p.name], limits);
  }
  if (limits.segments && op.sends === true) checkLength(op, values, limits.segments);
  return limits.recipients ? checkRecipients(op, values, limits.recipients) : values;
}
