/**
 * The inbound messages of a gateway as a queue that collects (collected.ts): QueryReceivedNewSMS (typed service) or
 * GetNewRecivedSMS2 (older service), recovered after a lost answer with QueryReceivedSMSByJobCaption (an empty
 * caption by default) or GetRecivedSMS2 (messages since a date). Nothing here imports Node-RED.
 */
import type { GatewayClient, GatewayWarning } from '../../client';
import type { CollectingQueue } from './collected';
import { isDate, timeOf } from '../../shape';

export type InboundRecord = Record<string, unknown>;

const pick = (r: InboundRecord, ...names: string[]): unknown =>
  names.map((n) => r[n]).find((v) => v !== undefined);

const dateText = (v: unknown): unknown =>
  isDate(v) && !Number.isNaN(timeOf(v)) ? new Date(timeOf(v)).toISOString() : v;

/**
 * A stable identity: the record Id where the typed service gives one; an older-service record by its sender, text
 * and date (GetNewRecivedSMS2 has no Id, and GetRecivedSMS2, which recovers it, has the same three); anything else
 * by its whole content.
 */
export function inboundKey(r: InboundRecord): string {
  const id = r.Id ?? r.ID;
  if (id !== undefined && id !== null && id !== '') return `id:${String(id)}`;
  if (typeof r.sender === 'string' && r.message !== undefined && r.date !== undefined)
    return `m:${JSON.stringify([r.sender, String(r.message), dateText(r.date)])}`;
  return `c:${JSON.stringify(
    Object.keys(r)
      .sort()
      .map((k) => [k, dateText(r[k])]),
  )}`;
}

/** The record's date in ms (typed `Date`, older service `date`), when it is one. */
export function inboundDate(r: InboundRecord): number | undefined {
  const d = pick(r, 'Date', 'date');
  return isDate(d) && !Number.isNaN(timeOf(d)) ? timeOf(d) : undefined;
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/**
 * A date as the older service writes its own (`yyyy-MM-dd HH:mm:ss`): its dates are read as UTC wall-clock time
 * (the client's default), so writing the UTC fields gives back the gateway's own clock.
 */
export function legacyDateText(d: Date): string {
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  );
}

export interface InboundQueueOptions {
  service: 'gateway' | 'legacy';
  /** The Caption of QueryReceivedSMSByJobCaption in a recovery read. */
  caption: string;
  signal: AbortSignal;
  onWarning: (warning: GatewayWarning) => void;
}

/** The operations a recovery of this service reads with, for logs. */
export const inboundOperations = (service: 'gateway' | 'legacy'): { collect: string; recover: string } =>
  service === 'legacy'
    ? { collect: 'GetNewRecivedSMS2', recover: 'GetRecivedSMS2' }
    : { collect: 'QueryReceivedNewSMS', recover: 'QueryReceivedSMSByJobCaption' };

export function inboundQueue(client: GatewayClient, o: InboundQueueOptions): CollectingQueue<InboundRecord> {
  const call = { signal: o.signal, onWarning: o.onWarning };
  return {
    key: inboundKey,
    dateOf: inboundDate,
    collect: async () =>
      o.service === 'legacy'
        ? ((await client.legacy.getNewRecivedSms2({}, call)).records as InboundRecord[])
        : ((await client.information.queryReceivedNewSms({}, call)) as unknown as InboundRecord[]),
    recover: async (from) =>
      o.service === 'legacy'
        ? ((await client.legacy.getRecivedSms2({ SearchDate: legacyDateText(from) }, call))
            .records as InboundRecord[])
        : ((await client.information.queryReceivedSmsByJobCaption(
            { Caption: o.caption, StartDate: from },
            call,
          )) as unknown as InboundRecord[]),
  };
}
