/**
 * What an ask node keeps of each question: everything its steps need is copied in when it is asked,
 * so a question goes on after a restart, on another instance, or after its node was redeployed with other settings.
 * Plain JSON: it is written to a state file or to Redis as it is.
 */

/** Who hears who answered: nobody, the numbers asked before (who did not answer), or everyone on the list. */
export type Tell = 'none' | 'asked' | 'all';

/**
 * new: accepted, not started (no code yet); open: waiting for an answer; answered / unanswered: closed, output
 * 1 / 2 owed until `emitted`; cancelled: closed without output; resolved: closed by a resolve (a msg or a reply),
 * output 3 owed until `resolution.emitted` (an answered question can still be resolved for a while).
 */
export type QuestionState = 'new' | 'open' | 'answered' | 'unanswered' | 'cancelled' | 'resolved';

/** Who hears that a question was resolved: everyone asked so far, or only the one who acknowledged it. */
export type TellResolve = 'asked' | 'acknowledger';

/** The texts of the messages an ask sends, placeholders in braces (texts.ts); none is blank here. */
export interface AskTexts {
  /** Added to every question: how to answer. */
  hint: string;
  /** Put before the question from the second step on. */
  passed: string;
  /** Put before the question when the one asked before passed it on by a reply (absent: kept by an older version). */
  passedBy?: string | undefined;
  /** To the others once someone answered. */
  tell: string;
  /** To the numbers asked when the question is cancelled. */
  cancel: string;
  /** To those told when the question is resolved (absent: kept by an older version, the automatic one). */
  resolved?: string | undefined;
  /** To whoever holds it when a msg with its dedupe key changed its text (absent: the automatic one). */
  update?: string | undefined;
  /**
   * The automatic hint without the resolve word: sent instead of `hint` when the first SMS would not fit one
   * segment with it (absent: the hint is the user's, or names no resolve word).
   */
  hintShort?: string | undefined;
}

/** The settings of the node and of the msg that asked, as they were when it was asked. */
export interface AskSettings {
  waitMs: number;
  rounds: number;
  /** Answers that acknowledge, lower case; empty: any reply acknowledges. */
  ack: string[];
  /** Answers that pass the question on to the next number at once, lower case. */
  pass: string[];
  /** Answers that resolve the question, lower case (absent: kept by an older version, none). */
  resolve?: string[] | undefined;
  /** Who is told of a resolve (absent: everyone asked). */
  tellResolve?: TellResolve | undefined;
  /** How long an acknowledged question can still be resolved (absent: kept by an older version, not at all). */
  resolveWithinMs?: number | undefined;
  /** After a question with a dedupe key closed, the same key asks again only this long after (absent: at once). */
  quietMs?: number | undefined;
  /** A msg that updates an open question (same dedupe key) texts whoever holds it, when its text changed. */
  tellUpdate?: boolean | undefined;
  tell: Tell;
  tellCancel: boolean;
  /** Steps after the first go out as critical (the spending guard's reserve). */
  critical: boolean;
  /** msg.priority of the msg that asked: "critical" makes every message of the question critical. */
  priority?: 'critical' | undefined;
  smsType: string;
  sender: string;
  caption: string;
  texts: AskTexts;
  /** A late acknowledger is answered "Already taken by ..." (absent: kept by an older version, on). */
  tellLate?: boolean | undefined;
  /** The reply limiter: at most this many answers to one number per `replyWindowMs` (absent: 5 per 10 min). */
  replyLimit?: number | undefined;
  replyWindowMs?: number | undefined;
}

/**
 * One SMS of a question: a step, a note to the others, a cancellation, or an answer to a person's reply (a late
 * acknowledger's "Already taken by", the "Which one?" of a reply without a code).
 */
export interface AskSms {
  kind: 'ask' | 'tell' | 'cancel' | 'answer' | 'resolve' | 'update';
  /** The key of the reply an `answer` answers: a reply offered again (a crash, another instance) gets none. */
  replyKey?: string | undefined;
  /** The step (0-based) of an `ask`. */
  step?: number | undefined;
  /** The number as it is sent. */
  to: string;
  text: string;
  /** In its Caption: after a crash the message is looked up by it before it is sent again. */
  reference: string;
  critical: boolean;
  /** planned: written down, maybe sent (a crash); sent: the gateway took it; failed: refused for good. */
  state: 'planned' | 'sent' | 'failed';
  /** Date.now() when it was planned. */
  at: number;
  jobId?: number | undefined;
  error?: string | undefined;
}

/** msg.ask of the outputs. */
export interface AskResult {
  /** The accepted answer (the listed word, or the reply's text when any reply acknowledges); '' unanswered. */
  answer: string;
  /** The number that answered, as it was asked; '' unanswered. */
  from: string;
  /** The step answered in (1 = the first number); the last step when unanswered. */
  step: number;
  /** Milliseconds from the question to the answer (or to the end of the last step). */
  afterMs: number;
  /** The JobId of the message answered (or of the last step's message). */
  jobId: number | undefined;
}

export interface Question {
  id: string;
  /** The ask node: its outputs get the result. */
  node: string;
  topic?: string | undefined;
  /**
   * The dedupe key (the node's *Dedupe key* property of the msg, msg.topic by default): while a question with it is
   * open, a new msg with it updates that one instead of asking again.
   */
  dedupe?: string | undefined;
  /** How many msgs updated it (dedupe), and when the last did. */
  updates?: number | undefined;
  updatedAt?: number | undefined;
  /** Its short code, unique among the open questions of the gateway configuration (codes.ts). */
  code?: string | undefined;
  question: string;
  /** The on-call list as it is sent (checked and made international by the client) and as compared (numbers.ts). */
  numbers: string[];
  keys: string[];
  settings: AskSettings;
  /** The msg that asked, JSON-safe (Dates as { $date }). */
  msg: Record<string, unknown>;
  createdAt: number;
  state: QuestionState;
  /** The current step, 0-based; -1 before the first. */
  step: number;
  /** When the current step began (its wait ends at stepAt + waitMs). */
  stepAt: number;
  sms: AskSms[];
  result?: AskResult | undefined;
  /** Output 1 or 2 was sent. */
  emitted?: boolean | undefined;
  closedAt?: number | undefined;
  /** How it was resolved (state `resolved`). */
  resolution?: Resolution | undefined;
}

/** A resolve of a question: what the flow and the people told read. */
export interface Resolution {
  /** The resolving msg's text, or the question when it had none (a reply resolves with the question). */
  text: string;
  /** The number whose reply resolved it, as it was asked; '' by a msg. */
  by: string;
  at: number;
  /** The state it was resolved in: still asking (open, new) or acknowledged (answered). */
  was: 'open' | 'answered';
  /** Output 3 was sent. */
  emitted?: boolean | undefined;
}
/**
 * A request to close open questions: by id, or all of a node with a topic; without output (cancel), or as resolved
 * (`resolve`: output 3 and the people told).
 */
export interface CancelRequest {
  key: string;
  node: string;
  id?: string | undefined;
  topic?: string | undefined;
  /** Questions asked after it are not cancelled by it. */
  at: number;
  /** A resolve, with the resolving msg's text ('' : the question's). */
  resolve?: { text: string } | undefined;
}

export const totalSteps = (q: Question): number => q.numbers.length * Math.max(1, q.settings.rounds);

/** The number index of a step (the list again from the top in each round). */
export const stepIndex = (q: Question, step: number): number => step % q.numbers.length;

export const isClosed = (q: Question): boolean =>
  q.state === 'answered' || q.state === 'unanswered' || q.state === 'cancelled' || q.state === 'resolved';

/** An answered question can be resolved this long by default (and is kept that long). */
export const RESOLVE_WITHIN_MS = 24 * 3_600_000;

/** Whether `q` can be resolved at `now`: still asking, or acknowledged within its resolve time. */
export function resolvable(q: Question, now: number): boolean {
  if (q.state === 'new' || q.state === 'open') return true;
  if (q.state !== 'answered' || q.settings.resolveWithinMs === undefined) return false;
  return now < (q.closedAt ?? 0) + q.settings.resolveWithinMs;
}

/** The keys of the numbers this question was (maybe) sent to: a reply from them may answer it. */
export function askedKeys(q: Question): Set<string> {
  const out = new Set<string>();
  for (const s of q.sms)
    if (s.kind === 'ask' && s.step !== undefined && s.state !== 'failed')
      out.add(q.keys[stepIndex(q, s.step)]!);
  return out;
}
