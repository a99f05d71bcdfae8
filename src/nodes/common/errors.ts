import { GatewayError, isGatewayError } from '../../errors';

/**
 * The error handed to `done(err)`. Node-RED copies only `message`, `code`, `stack` and `cause` of it onto
 * `msg.error`, so the service's status and the rest of the GatewayError travel in `cause` as plain JSON
 * (never the underlying socket error, whose text could echo a GET URL holding the password).
 */
export class NodeGatewayError extends Error {
  readonly code: string;
  override readonly cause: Record<string, unknown>;

  constructor(err: GatewayError) {
    super(err.message);
    this.name = 'GatewayError';
    this.code = err.code;
    const json = err.toJSON();
    this.cause = json;
    // Own enumerable properties so Node-RED's `hasOwnProperty('code')` check sees them.
    Object.defineProperty(this, 'code', { value: err.code, enumerable: true });
    Object.defineProperty(this, 'cause', { value: json, enumerable: true });
  }
}

export function toGatewayError(err: unknown): GatewayError {
  if (isGatewayError(err)) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new GatewayError('CONFIG', message);
}

/** Short text for a red status: the service's own status when it gave one, else the error code. */
export function statusTextOf(err: GatewayError): string {
  return err.status ? `${err.code}: ${err.status}` : err.code;
}
