import type { ServiceName } from './catalogue/types';
import { safeText } from './text/untrusted';

/**
 * Longest error message: room for every message of the package (a list of ten refused numbers), while a gateway
 * string wrapped into one (a fault, an "Error ..." answer) cannot make a log line of megabytes.
 */
const MESSAGE_MAX = 2000;

/** Stable error codes: match on these, never on message text. */
export type GatewayErrorCode =
  | 'AUTH' // LoginStatus other than Ok
  | 'REJECTED' // the service answered but refused (CreateStatus, ParseStatus, JobNotFound, "Error ..." strings)
  | 'FAULT' // a SOAP fault
  | 'HTTP' // an HTTP status or body that is not a service answer (503 page, empty 400/415)
  | 'TIMEOUT'
  | 'NETWORK'
  | 'PARSE' // a body that cannot be decoded (truncated, not XML, wrong shape)
  | 'CONFIG'
  | 'VALIDATION' // bad input, found before anything was sent
  | 'QUEUE_FULL' // flow control refused the message at once
  | 'BUDGET' // the spending guard refused (or held) a send: a limit of the config node is reached
  | 'QUIET_HOURS' // a send in the quiet hours that cannot be held (no outbox, or its recipients share no open time)
  | 'PACED' // a number's pacing limits have no room now and the configuration refuses rather than waits
  | 'OPTED_OUT'; // a recipient is on the configuration's opt-out list (replied STOP): not sent to that number

export interface GatewayErrorDetails {
  service?: ServiceName | undefined;
  operation?: string | undefined;
  /** The service's own status value: LoginStatus, CreateStatus, ParseStatus, fault code, legacy error text. */
  status?: string | undefined;
  httpStatus?: number | undefined;
  /** A short excerpt of the response body (never the request, which holds the password). */
  body?: string | undefined;
  /** True when the request may have reached the service (a send may exist although we saw no answer). */
  ambiguous?: boolean | undefined;
  /** The SOAP fault's `detail` as a plain object (client.invoke() only; secrets masked). */
  detail?: unknown;
  /** When trying again can succeed (ms since epoch): a spending limit's reset, a number's next slot. */
  retryAt?: number | undefined;
  cause?: unknown;
}

/**
 * One error family for everything the package reports. Its message is one line: what it wraps from the gateway
 * or a phone (a fault string, a status, an answer's text) has its line breaks and other control characters
 * written as visible escapes and is cut at MESSAGE_MAX (text/untrusted.ts), so no error can forge a log line.
 * `status` and `body` keep the gateway's text as it came (a flow may need it).
 */
export class GatewayError extends Error {
  readonly code: GatewayErrorCode;
  readonly service: ServiceName | undefined;
  readonly operation: string | undefined;
  readonly status: string | undefined;
  readonly httpStatus: number | undefined;
  readonly body: string | undefined;
  readonly ambiguous: boolean;
  readonly detail: unknown;
  /** When trying again can succeed (ms since epoch), where that is known (a spending limit's reset). */
  readonly retryAt: number | undefined;

  constructor(code: GatewayErrorCode, message: string, details: GatewayErrorDetails = {}) {
    const where = details.operation ? `${details.operation}: ` : '';
    super(
      safeText(where + message, MESSAGE_MAX),
      details.cause === undefined ? undefined : { cause: details.cause },
    );
    this.name = 'GatewayError';
    this.code = code;
    this.service = details.service;
    this.operation = details.operation;
    this.status = details.status;
    this.httpStatus = details.httpStatus;
    this.body = details.body;
    this.ambiguous = details.ambiguous ?? false;
    this.detail = details.detail;
    this.retryAt = details.retryAt;
  }

  /** What Node-RED puts on msg.error and what JSON.stringify shows: no cause chain, no request. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      service: this.service,
      operation: this.operation,
      status: this.status,
      httpStatus: this.httpStatus,
      body: this.body,
      ambiguous: this.ambiguous,
      ...(this.detail === undefined ? {} : { detail: this.detail }),
      ...(this.retryAt === undefined ? {} : { retryAt: new Date(this.retryAt).toISOString() }),
    };
  }
}

export const isGatewayError = (err: unknown): err is GatewayError => err instanceof GatewayError;
