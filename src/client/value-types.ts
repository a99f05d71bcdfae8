/** Shapes shared by the generated operation types and the client. */

/** A date parameter: a Date (sent as UTC), an ISO 8601 string (sent as written) or null (.NET's "no date"). */
export type DateInput = Date | string | null;

/** A base64Binary parameter: bytes, base64 text, or an array of byte values. */
export type BytesInput = Uint8Array | string | readonly number[];

/** The envelope every typed operation returns (`SOAPResponseOf<T>`): `Value` is absent when login failed. */
export interface SoapResponse<T> {
  StatusCode: 'None' | 'Ok' | 'InvalidUser' | 'AccountLocked' | 'IPLock' | 'DatabaseError';
  Value?: T;
}

/** Marks whether a job was created but waits for credits (`JobIsQueuedInsufficientCredits`). */
export type Queued<T> = T & { queued: boolean };

/** What any operation of the older service answers with `Error <text>` (call() returns it, typed methods throw). */
export interface LegacyErrorResult {
  raw: string;
  ok: false;
  error: string;
}

/** Result of the older service's send operations: `OK <id>`. */
export interface LegacySendResult {
  raw: string;
  ok: true;
  /** The message id after `OK`, as text. */
  id: string;
}

/** QueryBalance2. */
export interface LegacyBalanceResult {
  raw: string;
  ok: true;
  balance: number;
}

/** GetRecivedSMS2 record: ID, JobId, Sender, message, date. */
export type ReceivedSms2Record = {
  id: number;
  jobId: number;
  sender: string;
  message: string;
  date: Date;
};

/** RecivedSMS2 record: Sender, date, message. */
export type RecivedSms2Record = {
  sender: string;
  date: Date;
  message: string;
};

/** GetNewRecivedSMS2 record: Sender, message, date, is-status-report flag. */
export type NewReceivedSms2Record = {
  sender: string;
  message: string;
  date: Date;
  isStatusReport: boolean;
};

/** GetJobs1 / GetGetJobsWithStatusResult record: JobId, Caption, cost, send time. */
export type LegacyJobRecord = {
  jobId: number;
  caption: string;
  cost: number;
  sendTime: Date;
};

/** A delimited result of the older service. (Records are type aliases: assignable to Record<string, unknown>.) */
export interface LegacyRecordsResult<R> {
  raw: string;
  ok: true;
  records: R[];
}
