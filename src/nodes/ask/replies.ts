/**
 * Where an ask hub gets the replies: the gateway's inbound messages, each once, from the config node's one reader
 * of them. The hub is a first taker of that reader: it gets each message before the inbound SMS triggers and marks
 * the replies that answered a question, which the triggers then skip unless told otherwise. What the hub needs of
 * the reader is this narrow interface.
 */
import type { Reply } from './match';

export type { Reply };

/** The name in `claimedBy` of a reply an ask node took (distinct from the opt-out list's marks). */
export const CLAIMED_BY_ASK = 'smsgw-ask';

/**
 * What the hub marks on a reply that answered a question, for the listeners after it (the inbound SMS triggers):
 * which question (its code and ask id), of which ask node, and what the reply did (`ack`, `pass`; `late`: it
 * acknowledged a question taken already; `resolve`: it resolved a question; `which`: it named no code while several were open).
 */
export type ClaimMarks = {
  readonly claimedBy: typeof CLAIMED_BY_ASK;
  readonly question: string;
  readonly askId: string;
  readonly askNode: string;
  readonly action: 'ack' | 'pass' | 'resolve' | 'late' | 'which';
};

export interface ReplyListener {
  /** Stable across restarts and instances: what is read while it is away is kept for it under this id. */
  readonly id: string;
  /**
   * Replies in the gateway's order. Resolve once what they changed is durable, with the marks of each (undefined:
   * it answered no question); reject to get them again (this instance does not hold the questions now). A reply
   * may come twice after a crash: its key tells (and it gets the same marks).
   */
  take(replies: readonly Reply[], signal: AbortSignal): Promise<readonly (ClaimMarks | undefined)[]>;
}

export interface ReplySubscription {
  /** Reads now (or waits for the read under way); rejects when that read failed. */
  pollNow(): Promise<void>;
  /** Stops listening; `removed`: no ask node is left on this configuration, nothing is kept for it. */
  close(removed: boolean): Promise<void>;
}

export type ReplySource = (listener: ReplyListener) => ReplySubscription;

type Rec = Record<string, unknown>;

const pick = (r: Rec, ...names: string[]): unknown => names.map((n) => r[n]).find((v) => v !== undefined);

/** An inbound record (typed dbReceivedSMS, or the older service's) as a reply; JobId 0 = none. */
export function replyOf(record: Rec, key: string): Reply {
  const jobId = Number(pick(record, 'JobId', 'JobID', 'jobId'));
  return {
    key,
    from: String(pick(record, 'Sender', 'sender') ?? ''),
    text: String(pick(record, 'Text', 'message', 'Message', 'text', 'raw') ?? ''),
    ...(Number.isInteger(jobId) && jobId > 0 ? { jobId } : {}),
  };
}
