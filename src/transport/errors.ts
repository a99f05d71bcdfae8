import { GatewayError, type GatewayErrorDetails } from '../errors';

/** Error codes that mean the request never left this process (nothing can have been delivered). */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
  'UND_ERR_INVALID_ARG',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export function errorCodeOf(err: unknown): string | undefined {
  if (err && typeof err === 'object' && 'code' in err && typeof err.code === 'string') return err.code;
  return undefined;
}

/** What the transport knew about the request when it failed. */
export interface ExchangeProgress {
  /** A connection was assigned and writing began. */
  connected: boolean;
  /** The whole request was written. */
  sent: boolean;
  /** Response headers arrived. */
  responded: boolean;
}

/**
 * Maps a socket/undici error to a GatewayError. `ambiguous` is false only when the request surely did not
 * reach the service: it failed while connecting, or before a connection was assigned.
 */
export function networkError(
  err: unknown,
  progress: ExchangeProgress,
  details: GatewayErrorDetails,
  clean: (s: string) => string,
): GatewayError {
  const code = errorCodeOf(err);
  const notSent = !progress.connected || (code !== undefined && NOT_SENT.has(code) && !progress.sent);
  const ambiguous = !notSent;
  const text = clean(err instanceof Error ? err.message : String(err));
  if (code && TIMEOUTS.has(code)) {
    return new GatewayError('TIMEOUT', `no complete answer in time (${text})`, {
      ...details,
      ambiguous,
      cause: err,
    });
  }
  const what = progress.responded
    ? 'connection lost before the response was complete'
    : progress.sent
      ? 'connection lost before a response arrived'
      : 'could not send the request';
  return new GatewayError('NETWORK', `${what}: ${code && !text.includes(code) ? code + ' ' : ''}${text}`, {
    ...details,
    ambiguous,
    cause: err,
  });
}
