/**
 * One HTTP exchange on an undici dispatcher, streaming the response body to a consumer chunk by chunk.
 * Uses undici's dispatch handler directly: it is the fastest path and tells us how far a failed request
 * got (connected, fully written, answered), which decides whether a failure is ambiguous.
 */
import type { Dispatcher } from 'undici';
import { GatewayError, type GatewayErrorDetails } from '../errors';
import { networkError, type ExchangeProgress } from './errors';

export interface HttpRequest {
  method: 'GET' | 'POST';
  /** Path and query below the origin. */
  path: string;
  headers: Record<string, string>;
  body?: string | undefined;
}

export interface ResponseHead {
  status: number;
  /** Lower-cased media type without parameters, '' when absent. */
  mediaType: string;
}

/** Receives the body of one response; `write` and `end` may throw to fail the exchange. */
export interface BodyConsumer<T> {
  write(chunk: Buffer): void;
  end(): T;
}

export interface ExchangeOptions<T> {
  origin: string;
  /** The caller's signal: aborting it fails the exchange with TIMEOUT ("aborted by the caller"). */
  signal?: AbortSignal | undefined;
  /** Date.now() value after which the exchange fails with TIMEOUT (a plain timer: cheaper than a signal). */
  deadline?: number | undefined;
  /** Error details (service, operation) for errors raised here. */
  details: GatewayErrorDetails;
  /** Removes secrets from foreign error texts. */
  clean: (s: string) => string;
  /** Chooses how to read the body once the status line and headers are known. */
  onHead(head: ResponseHead): BodyConsumer<T>;
}

function mediaTypeOf(raw: Buffer[] | string[] | null): string {
  if (!raw) return '';
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const item = raw[i] as Buffer | string;
    if (item.length !== 12) continue;
    const name = String(item);
    if (name.toLowerCase() === 'content-type') {
      const v = String(raw[i + 1]);
      const semi = v.indexOf(';');
      return (semi < 0 ? v : v.slice(0, semi)).trim().toLowerCase();
    }
  }
  return '';
}

/** Legacy (callback) handler shape: the only one that reports `onRequestSent` in undici 7. */
interface LegacyHandler {
  onConnect(abort: (err?: Error) => void): void;
  onRequestSent(): void;
  onHeaders(
    status: number,
    headers: Buffer[] | string[] | null,
    resume: () => void,
    statusText: string,
  ): boolean;
  onData(chunk: Buffer): boolean;
  onComplete(trailers: unknown): void;
  onError(err: Error): void;
}

export function exchange<T>(dispatcher: Dispatcher, req: HttpRequest, opts: ExchangeOptions<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const progress: ExchangeProgress = { connected: false, sent: false, responded: false };
    const { signal, deadline } = opts;
    let timer: NodeJS.Timeout | undefined;
    let abortFn: ((err?: Error) => void) | undefined;
    let consumer: BodyConsumer<T> | undefined;
    /** A failure we caused (consumer threw, signal fired): reported instead of undici's echo of it. */
    let failure: unknown;
    let settled = false;

    const finish = (err: unknown, value?: T): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (err !== undefined) reject(err);
      else resolve(value as T);
    };

    const abortError = (reason: unknown): GatewayError => {
      const timedOut = reason === undefined || (reason instanceof Error && reason.name === 'TimeoutError');
      return new GatewayError('TIMEOUT', timedOut ? 'no complete answer in time' : 'aborted by the caller', {
        ...opts.details,
        ambiguous: progress.connected,
        cause: reason,
      });
    };

    const stop = (err: GatewayError): void => {
      if (settled) return;
      failure ??= err;
      if (abortFn) abortFn(failure as Error);
      else finish(failure); // not yet connected: undici aborts it in onConnect
    };
    function onAbort(): void {
      stop(abortError(signal?.reason));
    }

    const fail = (err: unknown): void => {
      failure ??= err;
      if (abortFn) abortFn(err instanceof Error ? err : new Error(String(err)));
      else finish(failure);
    };

    const handler: LegacyHandler = {
      onConnect(abort) {
        if (settled || failure !== undefined) {
          abort((failure as Error | undefined) ?? new Error('aborted'));
          return;
        }
        abortFn = abort;
        progress.connected = true;
      },
      onRequestSent() {
        progress.sent = true;
      },
      onHeaders(status, headers) {
        if (status < 200) return true;
        progress.responded = true;
        progress.sent = true;
        try {
          consumer = opts.onHead({ status, mediaType: mediaTypeOf(headers) });
        } catch (e) {
          fail(e);
          return false;
        }
        return true;
      },
      onData(chunk) {
        if (failure !== undefined || !consumer) return true;
        try {
          consumer.write(chunk);
        } catch (e) {
          fail(e);
        }
        return true;
      },
      onComplete() {
        if (failure !== undefined) return finish(failure);
        if (!consumer)
          return finish(networkError(new Error('no response'), progress, opts.details, opts.clean));
        try {
          finish(undefined, consumer.end());
        } catch (e) {
          finish(e);
        }
      },
      onError(err) {
        if (failure !== undefined) return finish(failure);
        finish(networkError(err, progress, { ...opts.details }, opts.clean));
      },
    };

    if (signal?.aborted) return finish(abortError(signal.reason));
    if (deadline !== undefined) {
      const left = deadline - Date.now();
      if (left <= 0) return finish(abortError(undefined));
      timer = setTimeout(() => stop(abortError(undefined)), left);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      dispatcher.dispatch(
        {
          origin: opts.origin,
          path: req.path,
          method: req.method,
          headers: req.headers,
          body: req.body ?? null,
          // Never let undici replay a request on another connection: sends must not be duplicated.
          idempotent: false,
        },
        handler as unknown as Dispatcher.DispatchHandler,
      );
    } catch (e) {
      finish(networkError(e, progress, opts.details, opts.clean));
    }
  });
}
