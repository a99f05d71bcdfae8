/**
 * The texts an ask sends. Each has a setting; a blank one takes the automatic text below (English: the language
 * of the people asked is not Node-RED's; write your own in theirs). Placeholders in braces:
 *   {question} the question, {code} its code, {ack} / {pass} the first acknowledging / passing answer,
 *   {from} who answered (tell), or the number asked before (passed on), {answer} the answer, {step} / {steps}.
 * An unknown placeholder stays as written.
 */
import type { AskTexts, Question } from './question';

export interface TextSettings {
  hint?: string | undefined;
  passed?: string | undefined;
  tell?: string | undefined;
  cancel?: string | undefined;
}

/** The automatic hint for the accepted answers: any reply, a list, a list with pass-on answers. */
export function automaticHint(ack: readonly string[], pass: readonly string[]): string {
  if (ack.length === 0) return 'Reply {code} to acknowledge.';
  if (pass.length === 0) return 'Reply {ack}{code} to acknowledge.';
  return 'Reply {ack}{code} to acknowledge, {pass}{code} to pass on.';
}

export const AUTOMATIC = {
  passed: 'Passed on, no reply from {from}:',
  tell: 'Answered by {from}: {question}',
  cancel: 'Cancelled: {question}',
} as const;

const given = (v: string | undefined): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v : undefined;

export function resolveTexts(t: TextSettings, ack: readonly string[], pass: readonly string[]): AskTexts {
  return {
    hint: given(t.hint) ?? automaticHint(ack, pass),
    passed: given(t.passed) ?? AUTOMATIC.passed,
    tell: given(t.tell) ?? AUTOMATIC.tell,
    cancel: given(t.cancel) ?? AUTOMATIC.cancel,
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
    steps: String(q.numbers.length * Math.max(1, q.settings.rounds)),
    ...extra,
  };
}

/** The SMS of a step: the question and the hint; from the second step on, "passed on" first. */
export function stepText(q: Question, step: number, previous: string | undefined): string {
  const v = values(q, { step: String(step + 1), from: previous ?? '' });
  const body = `${q.question}\n${fill(q.settings.texts.hint, v)}`;
  return step === 0 ? body : `${fill(q.settings.texts.passed, v)} ${body}`;
}

export function tellText(q: Question, from: string, answer: string): string {
  return fill(q.settings.texts.tell, values(q, { from, answer }));
}

export function cancelText(q: Question): string {
  return fill(q.settings.texts.cancel, values(q));
}
