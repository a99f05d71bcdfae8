/**
 * How a reply to a question is read (docs/assumptions.md, "Ask: the reply grammar"; the node's help). No Node-RED,
 * no state: the words the node accepts and the codes the sender may name come in, what the reply says goes out.
 *
 * The reply is read in lower case (NFKC: full-width digits are digits), from its first character that is not a
 * space; only its first two words count (the rest, "1a on my way", is a comment). A word is a run of letters and
 * digits; `*` ends a word.
 *
 *   reply    := answer [code | "*"] [comment]       "1", "1a", "1 a", "ok a", "oka", "1*", "ok *"
 *   answer   := a word of the Acknowledge, the Pass on or the Resolve list
 *   code     := the code of a question this number was sent (a, b, ..., z, aa, ...), written right after the
 *               answer ("1a", "oka") or as the second word ("1 a", "ok a")
 *   "*"      := every open question of this number (Acknowledge only: "1*", "ok*", "1 *")
 *
 * A code is only read as one when it names a question this number was sent (the caller says which): "ok i am on my
 * way" has no code unless `i` is such a question. Nothing else is read: not a code before the answer ("a ok"), not
 * an answer in the middle of a text. Words are compared whole ("okay" is not "ok"); of two words that both start a
 * reply ("1a" with the words "1" and "1a"), the longer is tried first.
 *
 * With an empty Acknowledge list any reply acknowledges (the behaviour of nodes saved with it blank): its first
 * word names a question when it is a code (`a`) or digits and a code (`1a`).
 */

export type Action = 'ack' | 'pass' | 'resolve';

const ACTIONS: readonly Action[] = ['ack', 'pass', 'resolve'];

/** The words of each answer, lower case, letters and digits only (no Resolve list: no reply resolves). */
export type Words = Readonly<Record<'ack' | 'pass', readonly string[]>> & {
  readonly resolve?: readonly string[] | undefined;
};

export interface Parsed {
  action: Action;
  /** The answer as written (the listed word), or the whole reply when any reply acknowledges. */
  answer: string;
  /** The code named, when one was. */
  code?: string;
  /** `*`: every open question of the number (acknowledge only). */
  all?: boolean;
}

/** The longest reply read; a longer one is cut there (a phone may send pages). */
export const MAX_REPLY_READ = 1000;

const WORD = /^[\p{L}\p{N}]+/u;
const SEPARATOR = /^[\s,.;:!?()-]+/u;

/** A reply's text as compared: NFKC (full-width digits become digits), lower case, trimmed. */
export function normalReply(text: string): string {
  return String(text).slice(0, MAX_REPLY_READ).normalize('NFKC').trim().toLowerCase();
}

/** The first word of a text and what follows it ('' when it does not start with a letter or digit). */
function firstWord(text: string): { word: string; star: boolean; rest: string } {
  const word = WORD.exec(text)?.[0] ?? '';
  let rest = text.slice(word.length);
  const star = rest.startsWith('*');
  if (star) rest = rest.replace(/^\*+/, '');
  return { word, star, rest };
}

/** The second word ('*' counts as one), after at least one separator. */
function secondWord(rest: string): string {
  const sep = SEPARATOR.exec(rest)?.[0];
  if (!sep) return '';
  const after = rest.slice(sep.length);
  if (after.startsWith('*')) return '*';
  return WORD.exec(after)?.[0] ?? '';
}

/** Every listed word with its action, longest first (so "1a" is tried before "1"). */
function listed(words: Words): { word: string; action: Action }[] {
  const out: { word: string; action: Action }[] = [];
  for (const action of ACTIONS)
    for (const word of words[action] ?? []) if (word !== '') out.push({ word, action });
  return out.sort((a, b) => b.word.length - a.word.length);
}

/**
 * What a reply says: an answer (with the code it names, or `*`), or undefined when it is none. `isCode(c)`: `c`
 * is the code of an open question the sender was sent.
 */
export function parseReply(
  text: string,
  words: Words,
  isCode: (code: string) => boolean,
): Parsed | undefined {
  const t = normalReply(text);
  const { word, star, rest } = firstWord(t);
  if (word === '') return undefined;
  const all = listed(words);
  const exact = all.find((w) => w.word === word);
  if (exact) {
    const next = star ? '*' : secondWord(rest);
    if (next === '*') return exact.action === 'ack' ? { action: 'ack', answer: word, all: true } : undefined;
    if (next !== '' && isCode(next)) return { action: exact.action, answer: word, code: next };
    return { action: exact.action, answer: word };
  }
  for (const w of all) {
    if (!word.startsWith(w.word)) continue;
    const code = word.slice(w.word.length);
    if (isCode(code)) return star ? undefined : { action: w.action, answer: w.word, code };
  }
  if (words.ack.length > 0) return undefined;
  // Any reply acknowledges: a code alone, or digits and a code, name the question.
  const answer = String(text).trim();
  if (isCode(word)) return { action: 'ack', answer, code: word };
  const m = /^(\d+)(\p{L}+)$/u.exec(word);
  if (m && isCode(m[2]!)) return { action: 'ack', answer, code: m[2]! };
  return { action: 'ack', answer };
}

/** Whether a word list entry can be read by the grammar (letters and digits only). */
export const isAnswerWord = (w: string): boolean => /^[\p{L}\p{N}]+$/u.test(w);
