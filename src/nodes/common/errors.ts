import { GatewayError, isGatewayError } from '../../errors';
import { safeText } from '../../text/untrusted';

/**
 * `msg.error.cause`: the GatewayError's fields as plain JSON (what a Catch node's flow reads), and one readable
 * line where something turns it into text: the debug sidebar shows an error's cause as `cause + ""`.
 */
export class GatewayErrorCause {
  [field: string]: unknown;

  constructor(fields: Record<string, unknown>) {
    Object.assign(this, fields);
  }

  /** "status InvalidUser, HTTP 500, SendSMS (send)", plus "may have reached the gateway" when ambiguous */
  toString(): string {
    const parts: string[] = [];
    // The gateway's own status word: shown as one short line.
    if (this.status !== undefined) parts.push(`status ${safeText(this.status)}`);
    if (this.httpStatus !== undefined) parts.push(`HTTP ${String(this.httpStatus)}`);
    if (this.operation !== undefined)
      parts.push(
        `${String(this.operation)}${this.service === undefined ? '' : ` (${String(this.service)})`}`,
      );
    if (this.ambiguous === true) parts.push('may have reached the gateway');
    return parts.join(', ') || String(this.code);
  }
}

/**
 * The error handed to `done(err)`. Node-RED copies only `message`, `code`, `stack` and `cause` of it onto
 * `msg.error`, so the service's status and the rest of the GatewayError travel in `cause` as plain JSON
 * (never the underlying socket error, whose text could echo a GET URL holding the password). Its text is the
 * one line Node-RED logs: `SendSMS: network: connect ECONNREFUSED 127.0.0.1:9` (operation, code, what
 * happened), without the "GatewayError: " an Error's toString() puts in front.
 */
export class NodeGatewayError extends Error {
  readonly code: string;
  override readonly cause: GatewayErrorCause;

  constructor(err: GatewayError) {
    super(readableMessage(err));
    this.name = 'GatewayError';
    this.code = err.code;
    const cause = new GatewayErrorCause(err.toJSON());
    this.cause = cause;
    // Own enumerable properties so Node-RED's `hasOwnProperty('code')` check sees them.
    Object.defineProperty(this, 'code', { value: err.code, enumerable: true });
    Object.defineProperty(this, 'cause', { value: cause, enumerable: true });
  }

  override toString(): string {
    return this.message;
  }
}

/** Codes whose messages come from below (sockets, HTTP): the code word says what kind of trouble it is. */
const NAMED_CODES = new Set(['NETWORK', 'TIMEOUT', 'HTTP']);

/**
 * "Operation: what happened" in one line (line breaks of a foreign message folded); network, timeout and HTTP
 * failures name their kind ("SendSMS: network: …"), the others already say it ("login refused", "refused").
 */
export function readableMessage(err: GatewayError): string {
  const where = err.operation ? `${err.operation}: ` : '';
  const what = err.message.startsWith(where) ? err.message.slice(where.length) : err.message;
  const kind = NAMED_CODES.has(err.code) ? `${err.code.toLowerCase()}: ` : '';
  return `${where}${kind}${what}`.replace(/\s*\n\s*/g, ' ');
}

export function toGatewayError(err: unknown): GatewayError {
  if (isGatewayError(err)) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new GatewayError('CONFIG', message);
}

/** Longest reason a red status shows: the status bar under a node is one short line. */
const STATUS_REASON_MAX = 40;

/** The system error code (ECONNREFUSED, ENOTFOUND, …) behind a NETWORK error, when there is one. */
function socketCode(err: GatewayError): string | undefined {
  const cause = (err as { cause?: unknown }).cause;
  const code = cause && typeof cause === 'object' ? (cause as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^E[A-Z_]+$/.test(code) ? code : undefined;
}

/**
 * Short text for a red status: the service's own status when it gave one ("REJECTED: SMSTypeError"), else a
 * short reason: "no recipient", "network: ECONNREFUSED", "timeout: no complete answer in time".
 */
export function statusTextOf(err: GatewayError): string {
  if (err.status) return `${err.code}: ${safeText(err.status, STATUS_REASON_MAX)}`;
  const sys = err.code === 'NETWORK' ? socketCode(err) : undefined;
  if (sys) return `network: ${sys}`;
  const where = err.operation ? `${err.operation}: ` : '';
  let reason = err.message.startsWith(where) ? err.message.slice(where.length) : err.message;
  // the part before an explanation in brackets or a second clause is the reason
  reason = reason.replace(/\s*[(\n].*$/s, '').trim();
  if (reason.length > STATUS_REASON_MAX) reason = `${reason.slice(0, STATUS_REASON_MAX - 1).trimEnd()}…`;
  if (reason === '') return err.code;
  return err.code === 'VALIDATION' ? reason : `${err.code.toLowerCase()}: ${reason}`;
}
