/**
 * How long a text each SMS type may be. The spec does not say: our assumption (docs/assumptions.md) is that
 * the long types (StandardLong, HighQualityLong, PSTNFixedLine) are sent as up to 10 concatenated segments and
 * every other type as one SMS, as the gateway's SMSTypeError for longer texts suggests. Both numbers are
 * settings (client option segmentLimits, config node "Messages" tab), 0 = no check.
 */
import { ENUMS, type OperationDef } from '../catalogue';
import { analyzeText, type TextEncoding } from './analyze';
import { count } from '../count';

export interface SegmentLimits {
  /** Segments a single-SMS type takes (Standard, Flash, HighQuality, ...); 0 = no check. */
  single: number;
  /** Segments a long type takes (StandardLong, HighQualityLong, PSTNFixedLine); 0 = no check. */
  long: number;
}

export const DEFAULT_SEGMENT_LIMITS: Readonly<SegmentLimits> = { single: 1, long: 10 };

export interface SmsTypeInfo {
  /** As a user names it: the SmsType value, or "SmsTyp 6 (Standart)" for a code of the older service. */
  name: string;
  long: boolean;
  /** The long type to suggest when the text does not fit this single-SMS type. */
  longer?: string;
}

/** The typed service's SmsType values. */
const TYPED: Readonly<Record<string, SmsTypeInfo>> = {
  Standard: { name: 'Standard', long: false, longer: 'StandardLong' },
  StandardDeliveryNotification: { name: 'StandardDeliveryNotification', long: false },
  Flash: { name: 'Flash', long: false },
  HighQuality: { name: 'HighQuality', long: false, longer: 'HighQualityLong' },
  StandardLong: { name: 'StandardLong', long: true },
  HighQualityLong: { name: 'HighQualityLong', long: true },
  PSTNFixedLine: { name: 'PSTNFixedLine', long: true },
};

/** JobType names (the older service's codes are their positions) of the concatenated types. */
const LONG_JOB_TYPES = new Set(['StandartLongSMS', 'HighQualityLong', 'Festnetz']);
/** The long JobType to suggest instead of a single one. */
const LONGER_JOB_TYPE: Readonly<Record<string, string>> = {
  Standart: 'StandartLongSMS',
  HighQuality: 'HighQualityLong',
};
/** JobTypes a text can be sent as (the others are binary, HLR, MMS or e-mail jobs: not checked). */
const TEXT_JOB_TYPES = new Set([
  'AbsenderUeberAusland',
  'Flash',
  'Standart',
  'StandartDeliveryNotification',
  'StandartLongSMS',
  'HighQuality',
  'HighQualityLong',
  'NoSenderAusland',
  'Festnetz',
  'StandartClass0',
]);

const JOB_TYPES = ENUMS['JobType']!.values;

/** The older service's code of a JobType: its 1-based position (our assumption, docs/assumptions.md). */
const codeOf = (jobType: string): number => JOB_TYPES.indexOf(jobType) + 1;

function legacyInfo(jobType: string): SmsTypeInfo | undefined {
  if (!TEXT_JOB_TYPES.has(jobType)) return undefined;
  const info: SmsTypeInfo = {
    name: `SmsTyp ${codeOf(jobType)} (${jobType})`,
    long: LONG_JOB_TYPES.has(jobType),
  };
  const longer = LONGER_JOB_TYPE[jobType];
  if (longer) info.longer = `SmsTyp ${codeOf(longer)} (${longer})`;
  return info;
}

/**
 * The older service's text SmsTyp codes as we read them (JobType positions, docs/assumptions.md), for the
 * legacy send dialog's list: the code and its JobType.
 */
export const legacySmsTypeCodes = (): { code: string; jobType: string }[] =>
  JOB_TYPES.filter((j) => TEXT_JOB_TYPES.has(j)).map((j) => ({ code: String(codeOf(j)), jobType: j }));

/** A typed SmsType value; undefined for anything else (not checked). */
export const smsTypeInfo = (value: unknown): SmsTypeInfo | undefined =>
  typeof value === 'string' ? TYPED[value] : undefined;

/**
 * An SmsTyp of the older service: a code (0 = Standart, else the JobType position), or a SmsType or JobType
 * name as SendText also takes. Undefined when unknown: a code we cannot place is passed on unchecked.
 */
export function legacySmsTypeInfo(value: unknown): SmsTypeInfo | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (/^\d+$/.test(text)) {
    const code = Number(text);
    return legacyInfo(code === 0 ? 'Standart' : (JOB_TYPES[code - 1] ?? ''));
  }
  const typed = TYPED[text];
  if (typed) return typed;
  return legacyInfo(text);
}

/**
 * The SMS type a send operation's parameters ask for, as far as it can be known before sending: SmsTyp
 * (default Standard), SendMobileOrFixlineSMS's type for mobile numbers (MobileSMSType, default HighQuality).
 * Undefined for operations without a text type (binary, HLR, the older SendSimpleSMS).
 */
export function sendTypeInfo(op: OperationDef, params: Record<string, unknown>): SmsTypeInfo | undefined {
  if (op.service === 'legacy') {
    return op.params.some((p) => p.name === 'SmsTyp') ? legacySmsTypeInfo(params.SmsTyp ?? 0) : undefined;
  }
  if (op.params.some((p) => p.name === 'MobileSMSType'))
    return smsTypeInfo(params.MobileSMSType || 'HighQuality');
  if (op.params.some((p) => p.name === 'SmsTyp')) return smsTypeInfo(params.SmsTyp || 'Standard');
  return undefined;
}

/** A text longer than its type allows: everything the messages about it say. */
export interface LengthProblem {
  characters: number;
  segments: number;
  encoding: TextEncoding;
  type: string;
  /** Segments the chosen type allows. */
  allowed: number;
  /** The long type that would take more segments (for a single-SMS type), and how many. */
  longer?: { type: string; allowed: number };
}

/** Undefined when the text fits its type (or the type or its limit is unknown or off). */
export function checkSegments(
  text: string,
  info: SmsTypeInfo | undefined,
  limits: Readonly<SegmentLimits>,
): LengthProblem | undefined {
  if (!info) return undefined;
  const allowed = info.long ? limits.long : limits.single;
  // Up to 70 UTF-16 units every text is one segment in either encoding: no analysis on the hot path.
  if (allowed <= 0 || text.length <= 70) return undefined;
  const analysis = analyzeText(text);
  if (analysis.segments <= allowed) return undefined;
  const problem: LengthProblem = {
    characters: [...text].length,
    segments: analysis.segments,
    encoding: analysis.encoding,
    type: info.name,
    allowed,
  };
  if (info.longer && limits.long > 0) problem.longer = { type: info.longer, allowed: limits.long };
  return problem;
}

const allows = (type: string, n: number): string =>
  n === 1 ? `${type} allows 1 segment` : `${type} allows up to ${count(n)}`;

/** "1,993 characters, 14 segments: Standard allows 1 segment; StandardLong allows up to 10". */
export function lengthMessage(p: LengthProblem): string {
  const longer = p.longer ? `; ${allows(p.longer.type, p.longer.allowed)}` : '';
  return `${count(p.characters)} characters, ${count(p.segments)} segments: ${allows(p.type, p.allowed)}${longer}`;
}
