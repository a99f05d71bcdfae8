/**
 * The older string-result service (/soap/send.asmx). Sends answer `OK <jobId>` or `Error <text>`; queries
 * answer delimited records (see legacy-text.ts for the date form and field cleaning).
 */
import { ENUMS } from '../../catalogue';
import { formatDouble } from '../../soap/values';
import { decodeBase64Text } from './binary-data';
import { bytes, dateMs, list, num, str, type AccountHandler, type OpEnv } from './env';
import { cleanField, formatLegacyDate, parseLegacyDate, recordSeparator } from './legacy-text';
import type { AccountState, InboundRecord } from './model';
import { recipientList, splitRecipients } from './numbers';
import {
  SENDER_CODES,
  SMS_TYPE_TO_JOB_TYPE,
  jobTypeOfCode,
  submitBinary,
  submitText,
  type CreateStatus,
  type SendResult,
} from './send-rules';

const ERROR_TEXT: Readonly<Record<CreateStatus, string>> = {
  Ok: '',
  JobIsQueuedInsufficientCredits: '',
  NoTextFound: 'No text found',
  NoDataFound: 'No data found',
  NoUrlFound: 'No URL found',
  NoRecipientFound: 'No recipient found',
  SMSTypeError: 'SMS type error',
  DuplicateSMSJobFound: 'Duplicate SMS job found',
  ShortIDAsSenderFound: 'Short ID as sender not allowed',
  MsgTextBlacklistFound: 'Message text blacklisted',
};

/** A job queued for credit exists and will be sent: it answers `OK <id>` like an accepted one. */
function answer(r: SendResult): string {
  if (r.status === 'Ok' || r.status === 'JobIsQueuedInsufficientCredits') return `OK ${r.jobId}`;
  if (r.status === 'DuplicateSMSJobFound') return `Error ${ERROR_TEXT[r.status]}: ${r.jobId}`;
  return `Error ${ERROR_TEXT[r.status]}`;
}

const JOB_TYPES = ENUMS['JobType']!.values;
const BIN_TYPES = ENUMS['BinDataType']!.values;

/** SmsTyp as text: a number (legacy code), a typed SmsType name or a JobType name; empty = 0. */
function codeOfText(text: string | undefined): number {
  const s = (text ?? '').trim();
  if (s === '') return 0;
  if (/^\d+$/.test(s)) return Number(s);
  const typ = SMS_TYPE_TO_JOB_TYPE[s] ?? s;
  const i = JOB_TYPES.indexOf(typ);
  return i < 0 ? -1 : i + 1;
}

function submitLegacyText(
  env: OpEnv,
  state: AccountState,
  f: {
    caption?: string | undefined;
    sender?: string | undefined;
    recipients: string[];
    text: string | undefined;
    code: number;
    at: number | null | undefined;
  },
): string {
  const typ = jobTypeOfCode(f.code);
  if (!typ) return `Error ${ERROR_TEXT.SMSTypeError}`;
  if (f.at === undefined) return 'Error Invalid date';
  return answer(
    submitText(env, state, {
      caption: f.caption ?? '',
      sender: SENDER_CODES.has(f.code) ? (f.sender ?? '') : '',
      recipients: f.recipients,
      text: f.text,
      typ,
      favoredAt: f.at,
    }),
  );
}

const textDate = (env: OpEnv, text: string | undefined) =>
  parseLegacyDate(text, env.opts.legacyTextOffsetMinutes);

export const sendText: AccountHandler = (env, state, p) =>
  submitLegacyText(env, state, {
    caption: str(p, 'Caption'),
    sender: str(p, 'Sender'),
    recipients: splitRecipients(str(p, 'Recipient')),
    text: str(p, 'SMSText'),
    code: codeOfText(str(p, 'SmsTyp')),
    at: textDate(env, str(p, 'SendDate')),
  });

/** SendText2: the document-style twin of SendText. */
export const sendText2 = sendText;

export const sendSms: AccountHandler = (env, state, p) =>
  submitLegacyText(env, state, {
    caption: str(p, 'Caption'),
    sender: str(p, 'Sender'),
    recipients: recipientList(list(p, 'Recipient')),
    text: str(p, 'SMSText'),
    code: num(p, 'SmsTyp'),
    at: dateMs(p, 'SendDate'),
  });

/** SendSMS2: the document-style twin of SendSMS. */
export const sendSms2 = sendSms;

export const sendSimpleSms: AccountHandler = (env, state, p) =>
  submitLegacyText(env, state, {
    recipients: splitRecipients(str(p, 'Recipient')),
    text: str(p, 'SMSText'),
    code: 0,
    at: null,
  });

/** bRecipient holds the UTF-8 text of the recipient list (separated by `,`, `;` or line breaks). */
export const smscr: AccountHandler = (env, state, p) =>
  submitLegacyText(env, state, {
    caption: str(p, 'caption'),
    sender: str(p, 'Sender'),
    recipients: splitRecipients(bytes(p, 'bRecipient')?.toString('utf8')),
    text: str(p, 'Msg'),
    code: num(p, 'SmsTyp'),
    at: dateMs(p, 'SendDate'),
  });

/** MsgType: legacy code (1-based JobType, 0 = UDH); binTyp: 0-based BinDataType (out of range = None). */
function binaryTypes(p: Parameters<AccountHandler>[2]): { typ: string | undefined; binDataTyp: string } {
  const code = num(p, 'MsgType');
  const bin = num(p, 'binTyp');
  return { typ: code === 0 ? 'UDH' : JOB_TYPES[code - 1], binDataTyp: BIN_TYPES[bin] ?? 'None' };
}

function sendBinary(
  env: OpEnv,
  state: AccountState,
  p: Parameters<AccountHandler>[2],
  data: Buffer | undefined,
  binData: string,
  at: number | null | undefined,
): string {
  const { typ, binDataTyp } = binaryTypes(p);
  if (!typ) return `Error ${ERROR_TEXT.SMSTypeError}`;
  if (at === undefined) return 'Error Invalid date';
  const recipients = splitRecipients(str(p, 'Recipient'));
  const text = str(p, 'strMsg') ?? '';
  return answer(
    submitBinary(env, state, {
      caption: '',
      sender: '',
      recipients,
      data,
      binData,
      text,
      typ,
      binDataTyp,
      favoredAt: at,
    }),
  );
}

/** The URL is checked for form only: the emulator never fetches anything. */
export const sendBinUrl: AccountHandler = (env, state, p) => {
  const url = (str(p, 'URL') ?? '').trim();
  if (url === '') return `Error ${ERROR_TEXT.NoUrlFound}`;
  if (!/^https?:\/\/[^\s/]+/i.test(url)) return 'Error Invalid URL';
  return sendBinary(env, state, p, undefined, url, dateMs(p, 'sendDate'));
};

export const sendBinData: AccountHandler = (env, state, p) => {
  const data = bytes(p, 'Data');
  if (!data || data.length === 0) return `Error ${ERROR_TEXT.NoDataFound}`;
  return sendBinary(env, state, p, data, data.toString('hex').toUpperCase(), dateMs(p, 'sendDate'));
};

export const sendBinData2: AccountHandler = (env, state, p) => {
  const text = str(p, 'Data') ?? '';
  if (text.trim() === '') return `Error ${ERROR_TEXT.NoDataFound}`;
  const data = decodeBase64Text(text);
  if (!data) return 'Error Invalid data';
  return sendBinary(
    env,
    state,
    p,
    data,
    data.toString('hex').toUpperCase(),
    textDate(env, str(p, 'sendDate')),
  );
};

// ---------- queries

function inboundSince(
  env: OpEnv,
  state: AccountState,
  text: string | undefined,
): InboundRecord[] | undefined {
  const since = textDate(env, text);
  if (since === undefined) return undefined;
  return state.inbound
    .filter((m) => since === null || m.at >= since)
    .sort((a, b) => a.at - b.at || a.id - b.id);
}

/** `ID,JobId;Sender;message;date\n` per message since SearchDate (empty: all). */
export const getRecivedSms2: AccountHandler = (env, state, p) => {
  const found = inboundSince(env, state, str(p, 'SearchDate'));
  if (!found) return 'Error Invalid date';
  const off = env.opts.legacyTextOffsetMinutes;
  return found
    .map(
      (m) =>
        `${m.id},${m.jobId};${cleanField(m.sender)};${cleanField(m.text)};${formatLegacyDate(m.at, off)}\n`,
    )
    .join('');
};

/** `Sender;date;message\n` per message since strLastDate (empty: all). */
export const recivedSms2: AccountHandler = (env, state, p) => {
  const found = inboundSince(env, state, str(p, 'strLastDate'));
  if (!found) return 'Error Invalid date';
  const off = env.opts.legacyTextOffsetMinutes;
  return found
    .map((m) => `${cleanField(m.sender)};${formatLegacyDate(m.at, off)};${cleanField(m.text)}\n`)
    .join('');
};

/** `Sender;message;date;isStatusReport\n` per message not yet collected; marks them collected. */
export const getNewRecivedSms2: AccountHandler = (env, state) => {
  const off = env.opts.legacyTextOffsetMinutes;
  const fresh = state.inbound.filter((m) => !m.collected);
  for (const m of fresh) m.collected = true;
  return fresh
    .map((m) => `${cleanField(m.sender)};${cleanField(m.text)};${formatLegacyDate(m.at, off)};${m.report}\n`)
    .join('');
};

export const queryBalance2: AccountHandler = (_env, state) => formatDouble(state.account.balance);

/** `JobId;Caption;cost;sendtime` + Trennzeichen per job created in the period (JobId: only these ids). */
export const getJobs1: AccountHandler = (env, state, p) => {
  const from = textDate(env, str(p, 'StartDate'));
  const to = textDate(env, str(p, 'EndDate'));
  if (from === undefined || to === undefined) return 'Error Invalid date';
  const idText = (str(p, 'JobId') ?? '').trim();
  const ids = idText === '' ? null : new Set(idText.split(/[,;\s]+/).map(Number));
  const sep = recordSeparator(str(p, 'Trennzeichen'));
  const off = env.opts.legacyTextOffsetMinutes;
  return state.jobs
    .filter(
      (j) =>
        (from === null || j.createdAt >= from) &&
        (to === null || j.createdAt <= to) &&
        (!ids || ids.has(j.id)),
    )
    .map((j) => {
      const time = formatLegacyDate(j.sentAt ?? j.favoredAt ?? j.createdAt, off);
      return `${j.id};${cleanField(j.caption, sep)};${formatDouble(j.amount)};${time}${sep}`;
    })
    .join('');
};

/** GetGetJobsWithStatusResult: the same answer as GetJobs1. */
export const getGetJobsWithStatusResult = getJobs1;
