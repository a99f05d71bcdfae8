/**
 * Whether a value read back from a state file or from Redis is a question this version can carry on with. A
 * damaged or foreign entry is left out (and reported) rather than half used.
 */
import type { AskSms, Question } from './question';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function isSms(v: unknown): v is AskSms {
  return (
    isRecord(v) &&
    ['ask', 'tell', 'cancel', 'answer', 'resolve', 'update'].includes(v.kind as string) &&
    typeof v.to === 'string' &&
    typeof v.text === 'string' &&
    typeof v.reference === 'string' &&
    (v.state === 'planned' || v.state === 'sent' || v.state === 'failed') &&
    isNumber(v.at)
  );
}

function isResolution(v: unknown): boolean {
  return (
    isRecord(v) &&
    typeof v.text === 'string' &&
    typeof v.by === 'string' &&
    isNumber(v.at) &&
    (v.was === 'open' || v.was === 'answered')
  );
}

export function isQuestion(v: unknown): v is Question {
  if (!isRecord(v)) return false;
  const s = v.settings;
  return (
    typeof v.id === 'string' &&
    typeof v.node === 'string' &&
    typeof v.question === 'string' &&
    isStrings(v.numbers) &&
    v.numbers.length > 0 &&
    isStrings(v.keys) &&
    v.keys.length === v.numbers.length &&
    isRecord(s) &&
    isNumber(s.waitMs) &&
    isNumber(s.rounds) &&
    isStrings(s.ack) &&
    isStrings(s.pass) &&
    isRecord(s.texts) &&
    isRecord(v.msg) &&
    isNumber(v.createdAt) &&
    ['new', 'open', 'answered', 'unanswered', 'cancelled', 'resolved'].includes(v.state as string) &&
    (s.resolve === undefined || isStrings(s.resolve)) &&
    (v.state !== 'resolved' || isResolution(v.resolution)) &&
    isNumber(v.step) &&
    isNumber(v.stepAt) &&
    Array.isArray(v.sms) &&
    v.sms.every(isSms)
  );
}
