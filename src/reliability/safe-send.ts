/**
 * Safe retries of one send (framework-free; the client supplies the attempt and the lookup):
 * - a failure before the request was written (refused, DNS, 503 page, ...) is retried directly, with backoff;
 * - after an ambiguous failure (timeout, reset or cut answer once the request was out) the job is looked up by
 *   its reference first: found → resolve with it; not found → retry with the same reference;
 * - a DuplicateSMSJobFound answer to a retry resolves to the job that exists;
 * - unambiguous refusals (login, recipient, blacklisted text, faults, bad input) are never retried;
 * - when the lookup itself cannot be done, the send fails as ambiguous instead of risking a second job.
 */
import { GatewayError } from '../errors';

export interface SafeRetryOptions {
  /** Send attempts in all (default 4). */
  maxAttempts?: number;
  /** First backoff delay in ms before a retry, doubled each time with jitter (default 200). */
  backoffMs?: number;
  /** Upper bound of one backoff delay in ms (default 5000). */
  maxBackoffMs?: number;
  /**
   * Wait in ms after an ambiguous failure before looking the reference up (default 2000): a gateway still
   * working on the request gets the time to commit it, so the lookup sees it. It must outlast the gateway's
   * processing time of a send, since a request may reach it just before the client gives up.
   */
  settleMs?: number;
  /** Tries of one lookup before the send is given up as ambiguous (default 4). */
  lookupAttempts?: number;
}

export interface ResolvedSafeRetryOptions {
  readonly maxAttempts: number;
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  readonly settleMs: number;
  readonly lookupAttempts: number;
}

/** Counters, cumulative per client (read them for figures and monitoring). */
export interface SafeSendStats {
  /** Sends started. */
  sends: number;
  /** Requests that tried to create the job (first tries and retries). */
  attempts: number;
  /** Retries after a failure (direct or after a lookup that found nothing). */
  retries: number;
  /** Lookups done (each may take several requests). */
  lookups: number;
  /** Lookup requests that failed and were repeated or gave up. */
  lookupFailures: number;
  /** Sends resolved from a lookup: the job existed although no answer came back. */
  recovered: number;
  /** Retries answered with DuplicateSMSJobFound and resolved to the existing job. */
  duplicatesResolved: number;
  /** Sends that failed as ambiguous (the job may exist). */
  ambiguousFailures: number;
}

export const newSafeSendStats = (): SafeSendStats => ({
  sends: 0,
  attempts: 0,
  retries: 0,
  lookups: 0,
  lookupFailures: 0,
  recovered: 0,
  duplicatesResolved: 0,
  ambiguousFailures: 0,
});

function intOption(name: string, v: number | undefined, dflt: number, min: number): number {
  if (v === undefined) return dflt;
  if (!Number.isInteger(v) || v < min)
    throw new GatewayError('CONFIG', `${name} must be an integer ≥ ${min}`);
  return v;
}

export function resolveSafeRetryOptions(o: SafeRetryOptions | undefined): ResolvedSafeRetryOptions {
  return {
    maxAttempts: intOption('maxAttempts', o?.maxAttempts, 4, 1),
    backoffMs: intOption('backoffMs', o?.backoffMs, 200, 0),
    maxBackoffMs: intOption('maxBackoffMs', o?.maxBackoffMs, 5000, 0),
    settleMs: intOption('settleMs', o?.settleMs, 2000, 0),
    lookupAttempts: intOption('lookupAttempts', o?.lookupAttempts, 4, 1),
  };
}

/** What one attempt gave: the job, or the gateway's word that the job already exists. */
export type Attempted<R> =
  { kind: 'ok'; value: R } | { kind: 'duplicate'; value: R | undefined; error: GatewayError };

export interface SafeSendPlan<R> {
  /** Sends once; resolves with the job or a duplicate answer, rejects with a GatewayError. */
  attempt(n: number): Promise<Attempted<R>>;
  /** Finds the job by its reference: the job, undefined when there is none, a GatewayError when it cannot. */
  lookup?: (() => Promise<R | undefined>) | undefined;
  /** The job may exist already (an outbox entry after a restart): look it up before the first attempt. */
  lookupFirst?: boolean | undefined;
  /** Shown in the error of a send given up as ambiguous. */
  reference?: string | undefined;
  signal?: AbortSignal | undefined;
  stats?: SafeSendStats | undefined;
  /** Waits before a request that is not the message's first (a rate limit); default none. */
  pace?: (() => Promise<void>) | undefined;
  /** A gateway that cannot be reached (NETWORK, surely not sent) fails at once, without a retry (the outbox). */
  failFast?: boolean | undefined;
}

/** How a failure of a send attempt is handled. */
export type FailureKind = 'ambiguous' | 'retry' | 'final';

const TRANSIENT_HTTP = new Set([429, 502, 503, 504]);

/** ambiguous: may have created the job; retry: surely did not and may work later; final: do not repeat. */
export function classifyFailure(err: unknown): FailureKind {
  if (!(err instanceof GatewayError)) return 'final';
  if (err.ambiguous) return 'ambiguous';
  // Not sent: refused, DNS, or time up while still waiting for a connection of the pool.
  if (err.code === 'NETWORK' || err.code === 'TIMEOUT') return 'retry';
  if (err.code === 'HTTP' && err.httpStatus !== undefined && TRANSIENT_HTTP.has(err.httpStatus))
    return 'retry';
  return 'final';
}

/** Errors after which a lookup is pointless to repeat (the account or the request itself is the problem). */
const lookupFinal = (err: unknown): boolean =>
  err instanceof GatewayError && ['AUTH', 'CONFIG', 'VALIDATION'].includes(err.code);

export function backoffDelay(o: ResolvedSafeRetryOptions, retry: number): number {
  const base = Math.min(o.maxBackoffMs, o.backoffMs * 2 ** Math.max(0, retry - 1));
  return Math.round(base * (0.5 + Math.random() / 2));
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The error of a send given up while the job may exist: ambiguous, names the reference. */
function givenUp(
  err: GatewayError,
  why: string,
  reference: string | undefined,
  cause?: unknown,
): GatewayError {
  const prefix = err.operation ? `${err.operation}: ` : '';
  const base = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
  const ref = reference ? ` (reference ${reference})` : '';
  return new GatewayError(err.code, `${base}; ${why}: the message may have been sent${ref}`, {
    service: err.service,
    operation: err.operation,
    status: err.status,
    httpStatus: err.httpStatus,
    body: err.body,
    ambiguous: true,
    cause: cause ?? err,
  });
}

export interface SafeSendResult<R> {
  value: R;
  /** True when the job was found by its reference rather than confirmed by an answer. */
  recovered: boolean;
  attempts: number;
}

/** Runs a send under the rules above. */
export async function safeSend<R>(
  plan: SafeSendPlan<R>,
  options: ResolvedSafeRetryOptions,
): Promise<SafeSendResult<R>> {
  const stats = plan.stats;
  if (stats) stats.sends++;
  const aborted = (): boolean => plan.signal?.aborted === true;
  let maybeSent = plan.lookupFirst === true;
  let last: GatewayError | undefined;
  let attempts = 0;

  const lookup = async (): Promise<R | undefined> => {
    if (!plan.lookup) throw new Error('no lookup');
    if (stats) stats.lookups++;
    let failure: unknown;
    for (let i = 0; i < options.lookupAttempts; i++) {
      if (i > 0) await sleep(backoffDelay(options, i), plan.signal);
      if (aborted()) break;
      try {
        await plan.pace?.();
        return await plan.lookup();
      } catch (e) {
        failure = e;
        if (stats) stats.lookupFailures++;
        if (lookupFinal(e)) break;
      }
    }
    throw new LookupFailed(failure);
  };

  const fail = (err: GatewayError, why: string, cause?: unknown): never => {
    if (stats) stats.ambiguousFailures++;
    throw givenUp(err, why, plan.reference, cause);
  };

  /** After a possible send: the job if it exists, undefined if surely not; throws when we cannot tell. */
  const check = async (err: GatewayError, settle: boolean): Promise<R | undefined> => {
    if (!plan.lookup) return fail(err, 'no reference to look it up');
    if (settle) await sleep(options.settleMs, plan.signal);
    if (aborted()) return fail(err, 'aborted by the caller before the lookup');
    try {
      return await lookup();
    } catch (e) {
      const reason = e instanceof LookupFailed ? e.failure : e;
      const text = reason instanceof Error ? reason.message : String(reason);
      return fail(err, `the lookup of the reference failed (${text})`, reason);
    }
  };

  const found = (value: R): SafeSendResult<R> => {
    if (stats) stats.recovered++;
    return { value, recovered: true, attempts };
  };

  for (let n = 1; n <= options.maxAttempts; n++) {
    if (maybeSent) {
      const basis =
        last ??
        new GatewayError('NETWORK', 'an earlier attempt may have been delivered', {
          ambiguous: true,
        });
      const job = await check(basis, last !== undefined && last.ambiguous);
      if (job !== undefined) return found(job);
    }
    if (n > 1) {
      if (stats) stats.retries++;
      // After a lookup the settle time was the pause; a direct retry backs off.
      if (!(last?.ambiguous ?? false)) await sleep(backoffDelay(options, n - 1), plan.signal);
      if (aborted()) break;
      await plan.pace?.();
    }
    attempts++;
    if (stats) stats.attempts++;
    let outcome: Attempted<R>;
    try {
      outcome = await plan.attempt(n);
    } catch (e) {
      const kind = classifyFailure(e);
      if (kind === 'final' || !(e instanceof GatewayError)) {
        // A retry refused while an earlier attempt may have gone through: that attempt decides.
        if (maybeSent && e instanceof GatewayError) {
          const job = await check(e, false);
          if (job !== undefined) return found(job);
        }
        throw e;
      }
      last = e;
      if (kind === 'ambiguous') maybeSent = true;
      else if (plan.failFast && e.code === 'NETWORK') {
        // Unreachable: the caller keeps the message (an earlier attempt may have arrived: say so).
        if (maybeSent) fail(e, 'the gateway cannot be reached to look it up');
        throw e;
      }
      if (aborted()) break;
      continue;
    }
    if (outcome.kind === 'ok') return { value: outcome.value, recovered: false, attempts };
    // DuplicateSMSJobFound: after a retry it is our own first attempt; before any retry it is the caller's.
    if (n === 1 && !maybeSent) throw outcome.error;
    if (outcome.value !== undefined) {
      if (stats) stats.duplicatesResolved++;
      return { value: outcome.value, recovered: true, attempts };
    }
    const job = await check(outcome.error, false);
    if (job !== undefined) {
      if (stats) stats.duplicatesResolved++;
      return { value: job, recovered: true, attempts };
    }
    return fail(outcome.error, 'the gateway reports a duplicate that the lookup cannot find');
  }
  if (!last) throw new GatewayError('TIMEOUT', 'aborted by the caller', { ambiguous: false });
  if (maybeSent) {
    // Look again before giving up: a gateway that was slow may have committed the job meanwhile.
    if (aborted()) return fail(last, 'aborted by the caller');
    const job = await check(last, true);
    if (job !== undefined) return found(job);
    if (stats) stats.ambiguousFailures++;
    throw new GatewayError(
      last.code,
      `${stripOp(last)}; not found by its reference after ${attempts} attempts${plan.reference ? ` (reference ${plan.reference})` : ''}`,
      {
        service: last.service,
        operation: last.operation,
        status: last.status,
        httpStatus: last.httpStatus,
        body: last.body,
        // Not found after settling: most likely never created, but a gateway that commits later cannot be ruled out.
        ambiguous: true,
        cause: last,
      },
    );
  }
  throw last;
}

const stripOp = (e: GatewayError): string => {
  const prefix = e.operation ? `${e.operation}: ` : '';
  return e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
};

class LookupFailed extends Error {
  constructor(readonly failure: unknown) {
    super('lookup failed');
  }
}
