/**
 * Which open question a reply answers (docs/assumptions.md, "Ask: matching replies"; the node's help), what it
 * says read by the reply grammar (grammar.ts):
 *   1. Only a number a question was sent to can answer it: a reply from anyone else answers nothing.
 *   2. A reply that names a question's code (`1a`, `ok a`, or `a` when any reply acknowledges) answers that one;
 *      `1*` acknowledges every open question of the number.
 *   3. Without a code: when the number has several open questions, it answers none (the code is required).
 *   4. With one open question: the reply's JobId, where the gateway sets one (not 0), must be one of the messages
 *      of that question (else it answers another message); without a JobId the number alone decides.
 * The code wins over the JobId: a gateway may give a reply the JobId of the newest message to that number.
 */
import { normalReply, parseReply } from './grammar';
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
      /** `1*`: every open question of this number, acknowledged by one reply. */
      all: { question: Question; jobId: number | undefined }[];
      action: 'ack';
      answer: string;
    }
  | {
      question?: Question | undefined;
      /** stranger: no open question was sent to this number; noCode: several are open and it names none;
       * otherJob: its JobId is not one of the question's messages; notAccepted: not an accepted answer. */
      none: 'stranger' | 'noCode' | 'otherJob' | 'notAccepted';
      open?: number;
    };

/** The first word of a reply, lower case ('' when it starts with something else). */
export function firstWord(text: string): string {
  return (/^[\p{L}\p{N}]+/u.exec(normalReply(text))?.[0] ?? '').toLowerCase();
}

const jobIdsOf = (q: Question, key: string): (number | undefined)[] =>
  q.sms
    .filter((s) => s.kind === 'ask' && s.step !== undefined && q.keys[s.step % q.numbers.length] === key)
    .map((s) => (s.state === 'sent' ? s.jobId : undefined));

/**
 * `open`: the questions still waiting for an answer; `key`: the reply sender's key (numbers.ts). Each question reads
 * the reply with its own words (grammar.ts): the one whose code it names answers; `*` acknowledges every question
 * whose words take it so; without either the one open question of the number.
 */
export function matchReply(reply: Reply, key: string, open: readonly Question[]): Match {
  const candidates = open.filter((q) => q.state === 'open' && askedKeys(q).has(key));
  if (candidates.length === 0) return { none: 'stranger' };
  // Acknowledge and pass on only (a resolve is read before, by the engine).
  const read = (q: Question) => {
    const p = parseReply(reply.text, { ack: q.settings.ack, pass: q.settings.pass }, (c) => c === q.code);
    return p === undefined || p.action === 'resolve' ? undefined : { ...p, action: p.action };
  };
  for (const q of candidates) {
    const p = read(q);
    if (p?.code !== undefined)
      return { question: q, action: p.action, answer: p.answer, jobId: answeredJob(q, key, reply.jobId) };
  }
  const all = candidates.flatMap((q) => {
    const p = read(q);
    return p?.all ? [{ question: q, answer: p.answer }] : [];
  });
  if (all.length > 0)
    return {
      all: all.map((one) => ({ question: one.question, jobId: lastJobId(one.question, key) })),
      action: 'ack',
      answer: all[0]!.answer,
    };
  if (candidates.length > 1) return { none: 'noCode', open: candidates.length };
  const q = candidates[0]!;
  const parsed = read(q);
  if (!parsed) return { question: q, none: 'notAccepted' };
  if (reply.jobId !== undefined) {
    const ids = jobIdsOf(q, key);
    if (ids.length > 0 && ids.every((id) => id !== undefined) && !ids.includes(reply.jobId))
      return { question: q, none: 'otherJob' };
  }
  return {
    question: q,
    action: parsed.action,
    answer: parsed.answer,
    jobId: answeredJob(q, key, reply.jobId),
  };
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
