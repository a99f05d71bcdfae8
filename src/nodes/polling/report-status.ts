/**
 * What an SMSReport.Status means. The spec does not list the values, so both lists are guesses (the usual SMSC
 * words, also in SMPP's seven-letter spelling), configurable, and never a reason to lose a report: a status in
 * neither list is "unknown", passed on and warned about. Shared by the delivery-reports trigger and the send
 * nodes' delivery tracker. Nothing here imports Node-RED.
 */

/** States that end a recipient's delivery. */
export const DEFAULT_FINAL_STATES =
  'DELIVERED,DELIVRD,UNDELIV,UNDELIVERABLE,EXPIRED,REJECTED,REJECTD,DELETED,FAILED';
/** States known to come before a final one. */
export const DEFAULT_PENDING_STATES =
  'ACCEPTED,ACCEPTD,ENROUTE,BUFFERED,SENT,SUBMITTED,PENDING,QUEUED,SCHEDULED';
/** Final states that mean "delivered". */
const DELIVERED = new Set(['DELIVERED', 'DELIVRD']);

export type StatusKind = 'final' | 'pending' | 'unknown';

/** A comma/semicolon/space separated list as upper-case words; blank or absent gives the fallback. */
export function stateList(text: unknown, fallback: string): Set<string> {
  const source = typeof text === 'string' && text.trim() !== '' ? text : fallback;
  return new Set(
    source
      .split(/[,;\s]+/)
      .map((s) => s.trim().toUpperCase())
      .filter(Boolean),
  );
}

/** A report's Status as compared with the lists: trimmed, upper case ('' when absent or not text). */
export const statusOf = (status: unknown): string =>
  typeof status === 'string' || typeof status === 'number' ? String(status).trim().toUpperCase() : '';

export class ReportStatuses {
  constructor(
    readonly finals: ReadonlySet<string>,
    readonly pending: ReadonlySet<string>,
  ) {}

  static from(finals: unknown, pending: unknown): ReportStatuses {
    return new ReportStatuses(
      stateList(finals, DEFAULT_FINAL_STATES),
      stateList(pending, DEFAULT_PENDING_STATES),
    );
  }

  kindOf(status: unknown): StatusKind {
    const s = statusOf(status);
    if (this.finals.has(s)) return 'final';
    return this.pending.has(s) ? 'pending' : 'unknown';
  }

  isDelivered(status: unknown): boolean {
    return DELIVERED.has(statusOf(status));
  }
}
