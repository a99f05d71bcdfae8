/**
 * Which open question a reply answers (docs/assumptions.md, "Ask: matching replies"; the node's help):
 *   1. Only a number a question was sent to can answer it: a reply from anyone else answers nothing.
 *   2. A reply that names a question's code (`1a`, or `a` when any reply acknowledges) answers that one.
 *   3. Without a code: when the number has several open questions, it answers none (the code is required).
 *   4. With one open question: the reply's JobId, where the gateway sets one (not 0), must be one of the messages
 *      of that question (else it answers another message); without a JobId the number alone decides.
 * Then the answer: with lists of accepted answers its first word must be one of them (`1` acknowledges, `2`
 * passes on); otherwise any reply acknowledges.
 * The code wins over the JobId: a gateway may give a reply the JobId of the newest message to that number.
 */
import { askedKeys, type Question } from './question';

export interface Reply {
  /** Tells records apart (the reader's key). */
  key: string;
  from: string;
  text: string;
  /** The gateway's JobId of the message this replies to; undefined when it gives none (0). */
  jobId?: number | undefined;
}

export type Match =
  | { question: Question; action: 'ack' | 'pass'; answer: string; jobId: number | undefined }
  | {
      question?: Question | undefined;
      /** stranger: no open question was sent to this number; noCode: several are open and it names none;
       * otherJob: its JobId is not one of the question's messages; notAccepted: not an accepted answer. */
      none: 'stranger' | 'noCode' | 'otherJob' | 'notAccepted';
      open?: number;
    };

/** The first word of a reply, lower case ('' when it starts with something else). */
export function firstWord(text: string): string {
  return (/^[\p{L}\p{N}]+/u.exec(text.trim())?.[0] ?? '').toLowerCase();
}

/** The code a reply names among `codes`, with the answer written before it. */
function namedCode(
  word: string,
  q: { ack: readonly string[]; pass: readonly string[] },
  codes: ReadonlySet<string>,
): { code: string; prefix: string } | undefined {
  if (q.ack.length > 0) {
    for (const answer of [...q.ack, ...q.pass]) {
      if (!word.startsWith(answer)) continue;
      const code = word.slice(answer.length);
      if (codes.has(code)) return { code, prefix: answer };
    }
    return undefined;
  }
  const m = /^(\d*)([a-z]+)$/.exec(word);
  return m && codes.has(m[2]!) ? { code: m[2]!, prefix: m[1]! } : undefined;
}

function answerOf(
  q: Question,
  reply: Reply,
  word: string,
): { action: 'ack' | 'pass'; answer: string } | undefined {
  const s = q.settings;
  if (s.ack.length === 0) return { action: 'ack', answer: reply.text.trim() };
  if (s.ack.includes(word)) return { action: 'ack', answer: word };
  if (s.pass.includes(word)) return { action: 'pass', answer: word };
  return undefined;
}

const jobIdsOf = (q: Question, key: string): (number | undefined)[] =>
  q.sms
    .filter((s) => s.kind === 'ask' && s.step !== undefined && q.keys[s.step % q.numbers.length] === key)
    .map((s) => (s.state === 'sent' ? s.jobId : undefined));

/** `open`: the questions still waiting for an answer; `key`: the reply sender's key (numbers.ts). */
export function matchReply(reply: Reply, key: string, open: readonly Question[]): Match {
  const candidates = open.filter((q) => q.state === 'open' && askedKeys(q).has(key));
  if (candidates.length === 0) return { none: 'stranger' };
  const word = firstWord(reply.text);
  const codes = new Map(candidates.filter((q) => q.code).map((q) => [q.code!, q]));
  for (const q of candidates) {
    const named = namedCode(word, q.settings, new Set(q.code ? [q.code] : []));
    if (!named || codes.get(named.code) !== q) continue;
    // The prefix is an accepted answer, or anything when any reply acknowledges.
    const a = answerOf(q, reply, named.prefix);
    if (!a) return { question: q, none: 'notAccepted' };
    return { question: q, ...a, jobId: answeredJob(q, key, reply.jobId) };
  }
  if (candidates.length > 1) return { none: 'noCode', open: candidates.length };
  const q = candidates[0]!;
  if (reply.jobId !== undefined) {
    const ids = jobIdsOf(q, key);
    if (ids.length > 0 && ids.every((id) => id !== undefined) && !ids.includes(reply.jobId))
      return { question: q, none: 'otherJob' };
  }
  const a = answerOf(q, reply, word);
  if (!a) return { question: q, none: 'notAccepted' };
  return { question: q, ...a, jobId: answeredJob(q, key, reply.jobId) };
}

/** The reply's JobId when it is one of the question's messages to that number, else the newest of those. */
function answeredJob(q: Question, key: string, jobId: number | undefined): number | undefined {
  return jobId !== undefined && jobIdsOf(q, key).includes(jobId) ? jobId : lastJobId(q, key);
}

/** The JobId of the newest message of the question to that number. */
export function lastJobId(q: Question, key: string): number | undefined {
  const ids = jobIdsOf(q, key).filter((id): id is number => id !== undefined);
  return ids[ids.length - 1];
}
