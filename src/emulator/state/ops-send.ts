/** Typed send operations (/gateway/Send.asmx). Each returns the Value of its envelope. */
import type { ParamValues } from '../contract';
import { dateMs, list, num, str, type AccountHandler, type OpEnv } from './env';
import type { AccountState, LogPriority } from './model';
import { parseLegacyDate } from './legacy-text';
import { isMobile, recipientList, splitRecipients } from './numbers';
import { decodeBinaryText } from './binary-data';
import { SMS_TYPE_TO_JOB_TYPE, priceOf, submitBinary, submitText, type SendResult } from './send-rules';

const jobInfo = (r: SendResult) => ({ Status: r.status, JobId: r.jobId });

/** Priority only where the account has it enabled; otherwise ignored with a Warn log entry. */
function priorityOf(state: AccountState, requested: number, notes: Array<[LogPriority, string]>): number {
  if (requested === 0) return 0;
  if (state.account.priorityEnabled) return requested;
  notes.push(['Warn', `JobPriority ${requested} ignored: priority is not enabled for this account`]);
  return 0;
}

/** A SendDate passed as text: empty = now; text that is no date is read as now, with a Warn log entry. */
function textDate(env: OpEnv, text: string | undefined, notes: Array<[LogPriority, string]>): number | null {
  const at = parseLegacyDate(text, env.opts.legacyTextOffsetMinutes);
  if (at !== undefined) return at;
  notes.push(['Warn', `SendDate '${text ?? ''}' is not a date: sent now`]);
  return null;
}

export const sendSms: AccountHandler = (env, state, p) => {
  const notes: Array<[LogPriority, string]> = [];
  const typ = SMS_TYPE_TO_JOB_TYPE[str(p, 'SmsTyp') ?? 'Standard'] ?? '';
  return jobInfo(
    submitText(env, state, {
      caption: str(p, 'Caption') ?? '',
      sender: str(p, 'Sender') ?? '',
      recipients: recipientList(list(p, 'Recipient')),
      text: str(p, 'SMSText'),
      typ,
      favoredAt: dateMs(p, 'SendDate'),
      priority: priorityOf(state, num(p, 'JobPriority'), notes),
      notes,
    }),
  );
};

export const sendSimpleSms: AccountHandler = (env, state, p) => {
  const notes: Array<[LogPriority, string]> = [];
  return jobInfo(
    submitText(env, state, {
      caption: str(p, 'Caption') ?? '',
      sender: str(p, 'Sender') ?? '',
      recipients: splitRecipients(str(p, 'Recipient')),
      text: str(p, 'SMSText'),
      typ: SMS_TYPE_TO_JOB_TYPE[str(p, 'SmsTyp') ?? 'Standard'] ?? '',
      favoredAt: textDate(env, str(p, 'SendDate'), notes),
      notes,
    }),
  );
};

/**
 * Mobile numbers (by prefix) go as HighQuality (or MobileSMSType) and every other number as PSTNFixedLine:
 * one job per group, one envelope per job (mobile first). Rejections return a single envelope.
 */
export function sendMobileOrFixlineSms(
  env: OpEnv,
  state: AccountState,
  p: ParamValues,
): Array<{ StatusCode: string; Value: unknown }> {
  const recipients = splitRecipients(str(p, 'Recipient'));
  const mobileType = str(p, 'MobileSMSType') === 'HighQualityLong' ? 'HighQualityLong' : 'HighQuality';
  const { mobilePrefixes, defaultCountryCode } = env.opts;
  const mobile = new Set(recipients.filter((r) => isMobile(r, mobilePrefixes, defaultCountryCode)));
  const notes: Array<[LogPriority, string]> = [];
  const base = {
    caption: str(p, 'Caption') ?? '',
    sender: str(p, 'Sender') ?? '',
    text: str(p, 'SMSText'),
    favoredAt: textDate(env, str(p, 'SendDate'), notes),
    notes,
  };
  const groups: Array<[string, string[]]> = [
    [mobileType, recipients.filter((r) => mobile.has(r))],
    ['Festnetz', recipients.filter((r) => !mobile.has(r))],
  ];
  // No recipient at all still answers one envelope (NoRecipientFound).
  const used =
    recipients.length === 0 ? groups.slice(0, 1) : groups.filter(([, numbers]) => numbers.length > 0);
  const results = used.map(([typ, numbers]) => submitText(env, state, { ...base, typ, recipients: numbers }));
  return results.map((r) => ({ StatusCode: 'Ok', Value: jobInfo(r) }));
}

export const sendHlr: AccountHandler = (env, state, p) => {
  const recipients = splitRecipients(str(p, 'Recipient'));
  if (recipients.length === 0) return { Status: 'NoRecipientFound', JobId: 0 };
  const job = env.engine.create(
    state,
    {
      typ: 'HLR',
      sender: '',
      caption: str(p, 'Caption') ?? '',
      text: '',
      recipients,
      segments: 1,
      unitPrice: priceOf(env, 'HLR'),
      favoredAt: null,
    },
    env.now,
  );
  return { Status: job.phase === 'credit' ? 'JobIsQueuedInsufficientCredits' : 'Ok', JobId: job.id };
};

/** Data is hex (or base64) of UDH + payload; no data or recipient: MMSSubjectORDataNotFound; bad data: MMSInvalidData. */
export const sendUdh: AccountHandler = (env, state, p) => {
  const text = str(p, 'Data') ?? '';
  const recipients = splitRecipients(str(p, 'Recipient'));
  if (text.trim() === '' || recipients.length === 0) return { ParseStatus: 'MMSSubjectORDataNotFound' };
  const data = decodeBinaryText(text);
  if (!data) return { ParseStatus: 'MMSInvalidData' };
  const notes: Array<[LogPriority, string]> = [];
  const r = submitBinary(env, state, {
    caption: str(p, 'Caption') ?? '',
    sender: str(p, 'Sender') ?? '',
    recipients,
    data,
    binData: data.toString('hex').toUpperCase(),
    text: '',
    typ: 'UDH',
    binDataTyp: 'Normal',
    favoredAt: textDate(env, str(p, 'SendDate'), notes),
    notes,
  });
  return {
    ParseStatus: r.status === 'Ok' || r.status === 'JobIsQueuedInsufficientCredits' ? 'Ok' : 'MMSInvalidData',
  };
};
