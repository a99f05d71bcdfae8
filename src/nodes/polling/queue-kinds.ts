/**
 * The queues the gateway empties as it answers, as a config node's reader reads them (queue-reader.ts): new inbound
 * messages and new HLR results. Each names the trigger type whose nodes listen to it, how it is read (with its
 * recovery after a lost answer), and how its records are told apart.
 */
import type { GatewayClient, GatewayWarning } from '../../client';
import type { dbHLRJob } from '../../client/types.generated';
import type { CollectingQueue } from './collected';
import { hlrKey, hlrQueue } from './hlr-queue';
import { inboundKey, inboundOperations, inboundQueue, type InboundRecord } from './inbound-queue';
import type { QueueOperations } from './recovery-log';

export interface QueueReadContext {
  client: GatewayClient;
  service: 'gateway' | 'legacy';
  signal: AbortSignal;
  onWarning: (warning: GatewayWarning) => void;
  /** The Caption of QueryReceivedSMSByJobCaption in a recovery read (settings.js). */
  caption: string;
  /** The listeners' wishes for one read (HLR results: records per read; 0 = all). */
  limits: readonly number[];
  /** More HLR jobs to ask after a lost answer than a recovery asks: the config node warns. */
  onTooMany(found: number): void;
}

export interface QueueKind<R> {
  /** The trigger type listening to it: names the reader's state file, its Redis lease and keys. */
  readonly type: string;
  operations(service: 'gateway' | 'legacy'): QueueOperations;
  queue(ctx: QueueReadContext): CollectingQueue<R>;
  /** A record's key in a listener's list of records given to it. */
  key(record: R): string;
}

export const INBOUND: QueueKind<InboundRecord> = {
  type: 'smsgw-inbound',
  operations: inboundOperations,
  queue: (c) =>
    inboundQueue(c.client, {
      service: c.service,
      caption: c.caption,
      signal: c.signal,
      onWarning: c.onWarning,
    }),
  key: inboundKey,
};

/** One read for every listener: all records when one of them wants all (0), else the largest wish. */
export const readLimit = (limits: readonly number[]): number =>
  limits.length === 0 || limits.some((l) => !(l > 0)) ? 0 : Math.max(...limits);

export const HLR_RESULTS: QueueKind<dbHLRJob> = {
  type: 'smsgw-hlr-results',
  operations: () => ({ collect: 'QueryNewHLRJobs', recover: 'QueryJobs + QueryHLRJobsByJobID' }),
  queue: (c) =>
    hlrQueue(c.client, {
      limit: readLimit(c.limits),
      signal: c.signal,
      onWarning: c.onWarning,
      onTooMany: c.onTooMany,
    }),
  key: hlrKey,
};
