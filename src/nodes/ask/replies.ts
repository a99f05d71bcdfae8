/**
 * Where an ask hub gets the replies: the gateway's inbound messages, each once, from the config node's one reader
 * of them. The hub is one listener of that reader; what it needs of it is this narrow interface.
 */
import type { Reply } from './match';

export type { Reply };

export interface ReplyListener {
  /** Stable across restarts and instances: what is read while it is away is kept for it under this id. */
  readonly id: string;
  /**
   * Replies in the gateway's order. Resolve once what they changed is durable; reject to get them again (this
   * instance does not hold the questions now). A reply may come twice after a crash: its key tells.
   */
  take(replies: readonly Reply[], signal: AbortSignal): Promise<void>;
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
