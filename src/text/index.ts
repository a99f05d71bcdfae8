export { analyzeText } from './analyze';
export { CONTENT_PARAMS, MAX_CONTENT_LENGTH, contentCapProblem, overCap, overContentCap } from './cap';
export type { TextAnalysis, TextEncoding } from './analyze';
export { GSM7_BASIC_TABLE, GSM7_EXTENSION_TABLE, gsm7Septets, isGsm7 } from './gsm7';
export {
  checkSegments,
  DEFAULT_SEGMENT_LIMITS,
  legacySmsTypeInfo,
  lengthMessage,
  sendTypeInfo,
  smsTypeInfo,
} from './limits';
export type { LengthProblem, SegmentLimits, SmsTypeInfo } from './limits';
export { oneLine, safeText, SHOWN_MAX } from './untrusted';
export { GSM7_LOOKALIKES, lookalikeSwaps, replaceLookalikes, ucs2Chars, UCS2_LISTED_MAX } from './lookalikes';
export type { Replaced, Swap, Ucs2Char } from './lookalikes';
