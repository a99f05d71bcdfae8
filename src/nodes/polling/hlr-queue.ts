/**
 * The HLR results of a gateway as a queue that collects (collected.ts): QueryNewHLRJobs, recovered after a lost
 * answer with QueryJobs (the HLR jobs created since the recovery date) and QueryHLRJobsByJobID for each of them
 * (the service has no read of HLR results since a date). Nothing here imports Node-RED.
 */
import type { GatewayClient, GatewayWarning } from '../../client';
import type { dbHLRJob } from '../../client/types.generated';
import type { CollectingQueue } from './collected';
import { isDate, timeOf as dateTime } from '../../shape';

/** HLR jobs a recovery asks QueryHLRJobsByJobID about, newest first; more are left out (onTooMany says so). */
export const MAX_RECOVERY_JOBS = 100;
const DAY_MS = 86_400_000;

/** A result's key: its Id; one whose Id is not an integer by its whole content. */
export const hlrKey = (r: dbHLRJob): string =>
  Number.isInteger(r.Id) ? String(r.Id) : `odd:${JSON.stringify(r)}`;

const timeOf = (v: unknown): number | undefined => (isDate(v) ? dateTime(v) : undefined);

/** When the result came (ReciveDate, else CreateDate), in ms. */
export const hlrDate = (r: dbHLRJob): number | undefined => {
  const t = timeOf(r.ReciveDate) ?? timeOf(r.CreateDate);
  return t !== undefined && !Number.isNaN(t) ? t : undefined;
};

export interface HlrQueueOptions {
  /** Records per QueryNewHLRJobs (0 = all). */
  limit: number;
  signal: AbortSignal;
  onWarning: (warning: GatewayWarning) => void;
  /** More HLR jobs than MAX_RECOVERY_JOBS since the recovery date: only the newest were asked. */
  onTooMany?: (found: number) => void;
  now?: () => number;
}

export function hlrQueue(client: GatewayClient, o: HlrQueueOptions): CollectingQueue<dbHLRJob> {
  const call = { signal: o.signal, onWarning: o.onWarning };
  const now = o.now ?? Date.now;
  return {
    key: hlrKey,
    dateOf: hlrDate,
    collect: () => client.information.queryNewHlrJobs({ Limit: o.limit }, call),
    recover: async (from) => {
      // A job is created before its results: every job whose results the lost answer held is in this window.
      const jobs = await client.information.queryJobs(
        { StartDate: from, EndDate: new Date(now() + DAY_MS) },
        call,
      );
      const ids = jobs
        .filter((j) => String(j.Typ).toUpperCase() === 'HLR' && Number.isInteger(j.Id))
        .map((j) => j.Id)
        .sort((a, b) => b - a);
      if (ids.length > MAX_RECOVERY_JOBS) o.onTooMany?.(ids.length);
      const out: dbHLRJob[] = [];
      for (const id of ids.slice(0, MAX_RECOVERY_JOBS).reverse())
        out.push(...(await client.information.queryHlrJobsByJobId({ JobID: id }, call)));
      return out;
    },
  };
}
