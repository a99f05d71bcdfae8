/**
 * The texts an ask sends. Each has a setting; a blank one takes the automatic text below (English: the language
 * of the people asked is not Node-RED's; write your own in theirs). Placeholders in braces:
 *   {question} the question, {code} its code, {ack} / {pass} / {resolve} the first acknowledging / passing /
 *   resolving answer, {resolution} the resolving msg's text (the question when it had none),
 *   {from} who answered (tell), the number asked before (passed on), or the one who passed it on (passed on by),
 *   {answer} the answer, {step} / {steps}; in the answers to a person's reply {time} (when it was taken, HH:MM in
 *   Node-RED's time zone) and {choices} ("1a or 1b").
 * An unknown placeholder stays as written.
 */
import type { AskTexts, Question } from './question';

export interface TextSettings {
  hint?: string | undefined;
  passed?: string | undefined;
  passedBy?: string | undefined;
  tell?: string | undefined;
  cancel?: string | undefined;
  resolved?: string | undefined;
  update?: string | undefined;
}

/**
 * The automatic hint for the accepted answers, one short line: "Reply 1a=ok 2a=busy 3a=done" (the first word of
 * each list with the code), or "Reply a to acknowledge." when any reply acknowledges.
 */
export function automaticHint(
  ack: readonly string[],
  pass: readonly string[],
  resolve: readonly string[] = [],
): string {
  if (ack.length === 0) return 'Reply {code} to acknowledge.';
  const done = resolve.length > 0 ? ' {resolve}{code}=done' : '';
  if (pass.length === 0) return `Reply {ack}{code}=ok${done}`;
  return `Reply {ack}{code}=ok {pass}{code}=busy${done}`;
}

/** One SMS segment (GSM 7-bit); the first SMS drops the resolve word from its hint rather than take two. */
export const SEGMENT = 160;

export const AUTOMATIC = {
  passed: 'Passed on, no reply from {from}:',
  passedBy: 'Passed on by {from}:',
  tell: 'Answered by {from}: {question}',
  cancel: 'Cancelled: {question}',
  resolved: 'Resolved: {resolution}',
  update: 'Update ({code}): {question}',
  /** To a late acknowledger (short: one segment whatever the question). */
  late: 'Already taken by {from} at {time} ({code})',
  /** To a reply without a code from a number with several open questions. */
  which: 'Which one? Reply {choices}',
} as const;

/** Codes named in one "Which one?" answer at most (it stays one segment). */
export const MAX_CHOICES = 6;

const given = (v: string | undefined): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v : undefined;

export function resolveTexts(
  t: TextSettings,
  ack: readonly string[],
  pass: readonly string[],
  resolve: readonly string[] = [],
): AskTexts {
  const own = given(t.hint);
  const short = automaticHint(ack, pass);
  const hint = own ?? automaticHint(ack, pass, resolve);
  return {
    hint,
    ...(own === undefined && hint !== short ? { hintShort: short } : {}),
    passed: given(t.passed) ?? AUTOMATIC.passed,
    passedBy: given(t.passedBy) ?? AUTOMATIC.passedBy,
    tell: given(t.tell) ?? AUTOMATIC.tell,
    cancel: given(t.cancel) ?? AUTOMATIC.cancel,
    resolved: given(t.resolved) ?? AUTOMATIC.resolved,
    update: given(t.update) ?? AUTOMATIC.update,
  };
}

export function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(values, name) ? values[name]! : whole,
  );
}

function values(q: Question, extra: Record<string, string> = {}): Record<string, string> {
  return {
    question: q.question,
    code: q.code ?? '',
    ack: q.settings.ack[0] ?? '',
    pass: q.settings.pass[0] ?? '',
    resolve: q.settings.resolve?.[0] ?? '',
    steps: String(q.numbers.length * Math.max(1, q.settings.rounds)),
    ...extra,
  };
}

/** Why a step after the first is asked: the wait for `from` ended, or `from` passed it on by a reply. */
export interface StepReason {
  why: 'wait' | 'pass';
  from: string;
}

/** The SMS of a step: the question and the hint; from the second step on, why it comes first. */
export function stepText(q: Question, step: number, reason: StepReason | undefined): string {
  const v = values(q, { step: String(step + 1), from: reason?.from ?? '' });
  let body = `${q.question}\n${fill(q.settings.texts.hint, v)}`;
  // The resolve word only when the first SMS still fits one segment with it.
  const short = q.settings.texts.hintShort;
  if (short !== undefined && body.length > SEGMENT) body = `${q.question}\n${fill(short, v)}`;
  if (step === 0) return body;
  // A question kept by a version without the "passed on by" text: the automatic one.
  const lead =
    reason?.why === 'pass' ? (q.settings.texts.passedBy ?? AUTOMATIC.passedBy) : q.settings.texts.passed;
  return `${fill(lead, v)} ${body}`;
}

export function tellText(q: Question, from: string, answer: string): string {
  return fill(q.settings.texts.tell, values(q, { from, answer }));
}

export function cancelText(q: Question): string {
  return fill(q.settings.texts.cancel, values(q));
}

/** To those told of a resolve: `resolution` the resolving msg's text ('' : the question), `from` who resolved. */
export function resolvedText(q: Question, resolution: string, from: string): string {
  return fill(
    q.settings.texts.resolved ?? AUTOMATIC.resolved,
    values(q, { resolution: resolution || q.question, from }),
  );
}

/** To whoever holds a question whose text a msg with its dedupe key changed. */
export function updateText(q: Question): string {
  return fill(q.settings.texts.update ?? AUTOMATIC.update, values(q));
}

/** HH:MM of a time, in Node-RED's time zone. */
export function clockTime(at: number): string {
  const d = new Date(at);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

/** To `q`'s late acknowledger: who took it, when. */
export function lateText(q: Question): string {
  return fill(AUTOMATIC.late, values(q, { from: q.result?.from ?? '', time: clockTime(q.closedAt ?? 0) }));
}

/** "Which one?" with the answer word and code of each open question ("1a or 1b"; at most MAX_CHOICES). */
export function whichText(word: string, codes: readonly string[]): string {
  const named = codes.slice(0, MAX_CHOICES).map((c) => `${word}${c}`);
  if (codes.length > MAX_CHOICES) named.push('...');
  const choices =
    named.length > 1 ? `${named.slice(0, -1).join(', ')} or ${named[named.length - 1]!}` : (named[0] ?? '');
  return fill(AUTOMATIC.which, { choices });
}
