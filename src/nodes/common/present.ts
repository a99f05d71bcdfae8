import type { NodeStatus } from 'node-red';
import { ok } from './status';

type Rec = Record<string, unknown>;

/**
 * Query results as msg.payload: lists stay lists; the older service's delimited strings become their
 * records (the raw string is dropped: it says nothing the records do not).
 */
export function queryPayload(value: unknown): unknown {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const r = value as Rec;
    if (typeof r.raw === 'string' && Array.isArray(r.records)) return r.records;
  }
  return value;
}

/** "12 records", or the operation's own status field (Ok, JobNotFound...). */
export function queryStatus(operation: string, payload: unknown): NodeStatus {
  if (Array.isArray(payload)) return ok(`${operation}: ${payload.length}`);
  if (typeof payload === 'object' && payload !== null && 'Status' in payload) {
    return ok(`${operation}: ${String((payload as Rec).Status)}`);
  }
  return ok(operation);
}
