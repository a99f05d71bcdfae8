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

/** Result of the older service's send operations: `OK <id>` or `Error <text>`. */
export interface LegacySendResult {
  raw: string;
  ok: boolean;
  id?: string;
  error?: string;
}

/** QueryBalance2. */
export interface LegacyBalanceResult {
  raw: string;
  balance: number;
}

/** One record of a delimited result; fields named after the spec's column list. */
export type LegacyRecord = Record<string, string | number | boolean | Date | null | undefined>;

/** GetRecivedSMS2, RecivedSMS2, GetNewRecivedSMS2, GetJobs1, GetGetJobsWithStatusResult. */
export interface LegacyRecordsResult {
  raw: string;
  records: LegacyRecord[];
}
