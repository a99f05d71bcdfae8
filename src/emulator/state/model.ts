/**
 * Internal records of the business state. Times are epoch milliseconds (null = none) so the whole state is
 * plain JSON for the state file and the snapshot; views.ts turns them into the wire's value conventions.
 */
import type { SubscriberState } from '../contract';

export interface AccountRecord {
  user: string;
  /** Kept only in the state file; never in snapshots or wire values. */
  password: string;
  serial: string;
  custId: number;
  balance: number;
  /** Cost of accepted jobs not yet sent (not charged yet, but no longer available for new jobs). */
  reserved: number;
  locked: boolean;
  ipAllowList: string[] | null;
  priorityEnabled: boolean;
  createdAt: number;
}

/** Where a job is in its life: waiting for credit, waiting to be sent, sent and waiting for reports, done. */
export type JobPhase = 'credit' | 'send' | 'deliver' | 'done';

export interface ReportRecord {
  id: number;
  jobId: number;
  recipient: string;
  /** DELIVERED, UNDELIV or EXPIRED. */
  status: string;
  msgCode: number;
  msgText: string;
  at: number;
  sequence: number;
  caption: string;
  createdAt: number;
  unknownSubscriber: boolean;
}

export type LogPriority = 'Info' | 'Normal' | 'Warn' | 'Crtitical';

export interface LogRecord {
  id: number;
  custId: number;
  jobId: number;
  priority: LogPriority;
  caption: string;
  text: string;
  at: number;
}

export interface JobRecord {
  id: number;
  user: string;
  custId: number;
  typ: string;
  sender: string;
  caption: string;
  text: string;
  status: string;
  recipients: string[];
  /** Segments per recipient. */
  segments: number;
  amount: number;
  binDataTyp: string;
  binData: string;
  priority: number;
  favoredAt: number | null;
  createdAt: number;
  sentAt: number | null;
  changedAt: number;
  phase: JobPhase;
  /** When the next transition is due (null while waiting for credit or when done). */
  dueAt: number | null;
  /** Subscriber state of each recipient, captured when the job is handed to the network. */
  outcomes: SubscriberState[];
  reports: ReportRecord[];
  logs: LogRecord[];
}

export interface InboundRecord {
  id: number;
  custId: number;
  jobId: number;
  sender: string;
  to: string;
  text: string;
  at: number;
  /** 1 for a status report, 0 for a message (injectInbound writes messages unless told `report: true`). */
  report: number;
  /** Collected by QueryReceivedNewSMS or GetNewRecivedSMS2 (shown as dbReceivedSMS.Send = 1). */
  collected: boolean;
}

export interface HlrRecord {
  id: number;
  jobId: number;
  status: number;
  ref: number;
  number: string;
  networkType: string;
  necValue: string;
  normNetCode: string;
  gsmError: string;
  createdAt: number;
  receivedAt: number;
  collected: boolean;
}

export interface CustomerUserRecord {
  id: number;
  custId: number;
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  locked: number;
  createdAt: number;
  changedAt: number;
}

export interface CustomerRecord {
  id: number;
  resId: number;
  fields: Record<string, string>;
  /** SMSC password of a created customer: stored, never shown. */
  password: string;
  createdAt: number;
  authUser: CustomerUserRecord;
}

export interface AccountState {
  account: AccountRecord;
  jobs: JobRecord[];
  /** All reports of the account's jobs, sorted by `at` (then id) for QueryReceivedDLR. */
  reports: ReportRecord[];
  inbound: InboundRecord[];
  hlr: HlrRecord[];
  customers: CustomerRecord[];
}

export interface IdCounters {
  job: number;
  report: number;
  log: number;
  inbound: number;
  hlr: number;
  customer: number;
}
