/**
 * The checks every text send goes through (typed and legacy alike), in this order: text, recipients,
 * short-code sender, length for the type, blacklist, duplicate; then the job is created (queued when the
 * available credit does not cover it).
 */
import { ENUMS } from '../../catalogue';
import { Duplicates } from './duplicates';
import type { OpEnv } from './env';
import type { AccountState, LogPriority } from './model';
import { isShortCodeSender } from './numbers';
import { countBinarySegments, countSegments } from './segments';

export type CreateStatus =
  | 'Ok'
  | 'NoTextFound'
  | 'NoDataFound'
  | 'NoUrlFound'
  | 'NoRecipientFound'
  | 'SMSTypeError'
  | 'DuplicateSMSJobFound'
  | 'ShortIDAsSenderFound'
  | 'MsgTextBlacklistFound'
  | 'JobIsQueuedInsufficientCredits';

export interface SendResult {
  readonly status: CreateStatus;
  /** The new job, the duplicate's original job, or 0 when nothing was created. */
  readonly jobId: number;
}

/** The typed service's SmsType mapped to the JobType recorded on the job. */
export const SMS_TYPE_TO_JOB_TYPE: Readonly<Record<string, string>> = {
  Flash: 'Flash',
  Standard: 'Standart',
  StandardDeliveryNotification: 'StandartDeliveryNotification',
  StandardLong: 'StandartLongSMS',
  HighQuality: 'HighQuality',
  HighQualityLong: 'HighQualityLong',
  PSTNFixedLine: 'Festnetz',
};

/** Job types whose text is split into concatenated segments; the others must fit one SMS. */
const LONG_TYPES = new Set(['StandartLongSMS', 'HighQualityLong', 'Festnetz']);
/** Job types a text send may use (the rest are binary, HLR, MMS or e-mail jobs). */
export const TEXT_TYPES = new Set([
  ...Object.values(SMS_TYPE_TO_JOB_TYPE),
  'AbsenderUeberAusland',
  'NoSenderAusland',
  'StandartClass0',
]);

const JOB_TYPES = ENUMS['JobType']!.values;
/** Legacy numeric type codes: the 1-based position in JobType (so 1 = AbsenderUeberAusland, 18 = HighQuality). */
export function jobTypeOfCode(code: number): string | undefined {
  return code === 0 ? 'Standart' : JOB_TYPES[code - 1];
}
/** Legacy codes whose Sender is used (the spec names 1 and 18); the others send without a sender. */
export const SENDER_CODES = new Set([1, 18]);

export function priceOf(env: OpEnv, typ: string): number {
  return env.opts.prices[typ] ?? env.opts.prices['default'] ?? 0;
}

export interface TextSend {
  caption: string;
  sender: string;
  recipients: string[];
  text: string | undefined;
  typ: string;
  favoredAt: number | null;
  priority?: number;
  notes?: Array<[LogPriority, string]>;
}

const fail = (status: CreateStatus): SendResult => ({ status, jobId: 0 });

export function submitText(env: OpEnv, state: AccountState, req: TextSend): SendResult {
  let text = req.text ?? '';
  if (text.trim() === '') return fail('NoTextFound');
  if (req.recipients.length === 0) return fail('NoRecipientFound');
  if (isShortCodeSender(req.sender)) return fail('ShortIDAsSenderFound');
  if (!TEXT_TYPES.has(req.typ)) return fail('SMSTypeError');
  let seg = countSegments(text);
  if (!LONG_TYPES.has(req.typ) && !seg.fitsSingle) {
    if (env.opts.tooLongText === 'reject') return fail('SMSTypeError');
    text = truncate(text);
    seg = countSegments(text);
  }
  const segments = LONG_TYPES.has(req.typ) ? seg.segments : 1;
  if (segments > env.opts.maxSegments) return fail('SMSTypeError');
  const lower = text.toLowerCase();
  if (env.opts.blacklist.some((w) => lower.includes(w))) return fail('MsgTextBlacklistFound');
  const key = env.duplicates.enabled
    ? Duplicates.key(state.account.user, req.sender, req.recipients, text, req.caption)
    : '';
  const original = env.duplicates.find(key, env.now);
  // A job forgotten under maxJobs is unknown, so it is no original either.
  if (original !== undefined && env.store.jobs.has(original))
    return { status: 'DuplicateSMSJobFound', jobId: original };
  const job = env.engine.create(
    state,
    {
      typ: req.typ,
      sender: req.sender,
      caption: req.caption,
      text,
      recipients: req.recipients,
      segments,
      unitPrice: priceOf(env, req.typ),
      priority: req.priority ?? 0,
      favoredAt: req.favoredAt,
      notes: req.notes ?? [],
    },
    env.now,
  );
  env.duplicates.remember(key, job.id, env.now);
  return { status: job.phase === 'credit' ? 'JobIsQueuedInsufficientCredits' : 'Ok', jobId: job.id };
}

/** Shortens a text to what one SMS holds in its encoding. */
function truncate(text: string): string {
  const chars = [...text];
  while (chars.length > 0 && !countSegments(chars.join('')).fitsSingle) chars.pop();
  return chars.join('');
}

export interface BinarySend {
  caption: string;
  sender: string;
  recipients: string[];
  data: Buffer | undefined;
  /** Stored in BinData: the hex of the bytes, or the URL for SendBinURL. */
  binData: string;
  text: string;
  typ: string;
  binDataTyp: string;
  favoredAt: number | null;
  notes?: Array<[LogPriority, string]>;
}

/** Binary jobs (UDH, files, URLs): 140 octets per SMS, 134 per part when concatenated. */
export function submitBinary(env: OpEnv, state: AccountState, req: BinarySend): SendResult {
  if (req.recipients.length === 0) return fail('NoRecipientFound');
  const segments = req.data ? countBinarySegments(req.data.length) : 1;
  if (segments > env.opts.maxSegments) return fail('SMSTypeError');
  const job = env.engine.create(
    state,
    {
      typ: req.typ,
      sender: req.sender,
      caption: req.caption,
      text: req.text,
      recipients: req.recipients,
      segments,
      unitPrice: priceOf(env, req.typ),
      binDataTyp: req.binDataTyp,
      binData: req.binData,
      favoredAt: req.favoredAt,
      notes: req.notes ?? [],
    },
    env.now,
  );
  return { status: job.phase === 'credit' ? 'JobIsQueuedInsufficientCredits' : 'Ok', jobId: job.id };
}
