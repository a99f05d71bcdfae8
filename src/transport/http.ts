/**
 * One HTTP exchange on an undici dispatcher, streaming the response body to a consumer chunk by chunk.
 * Uses undici's dispatch handler directly: it is the fastest path and tells us how far a failed request
 * got (connected, fully written, answered), which decides whether a failure is ambiguous.
 */
import type { Dispatcher } from 'undici';
import { GatewayError, type GatewayErrorDetails } from '../errors';
import { Deadline, cancel, schedule } from './deadlines';
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

/**
 * What one answer may hold unless the caller says otherwise: 32 MiB (a 5,000-record delivery-report page is
 * ~2.2 MB). A gateway or proxy that streams without end must not fill the process's memory.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

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
  /**
   * Most bytes of body read (default DEFAULT_MAX_RESPONSE_BYTES). Past it (or when Content-Length announces
   * more) the exchange stops reading, aborts the request and fails with PARSE naming the limit.
   */
  maxBytes?: number | undefined;
  /**
   * Most body bytes handed to the consumer in one turn of the event loop; undefined: each read as it comes.
   * Unpaced, one wake-up of a socket with data waiting hands over up to 2 MiB (libuv reads up to 32 times 64 KiB,
   * undici parses each read at once), and a consumer with much work per byte (the generic path's answer gate,
   * not yet optimised by V8: tens of milliseconds per 64 KiB on a busy machine) keeps every other request of the
   * process waiting that long. Past the budget the rest of the chunk waits for the next turn (setImmediate) with
   * the response paused, so the socket's backpressure holds the server; nothing is dropped or reordered. An answer
   * whose Content-Length is within the budget is handed over as it comes (it never passes the budget anyway, and a
   * small answer costs no setImmediate).
   */
  bytesPerTurn?: number | undefined;
}

/** True when header name `item` is `lower` (lower-case ASCII) in any case, compared without making a string. */
function isHeader(item: Buffer | string, lower: string): boolean {
  if (item.length !== lower.length) return false;
  if (typeof item === 'string') return item.toLowerCase() === lower;
  for (let i = 0; i < lower.length; i++) {
    const c = item[i] as number;
    // ASCII letters compare in either case (| 0x20); the names compared here hold letters and '-' only.
    if ((c >= 65 && c <= 90 ? c | 0x20 : c) !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/** The media type and the announced length (-1: none) from undici's raw header list. */
function headOf(raw: Buffer[] | string[] | null): { mediaType: string; length: number } {
  let mediaType = '';
  let length = -1;
  if (!raw) return { mediaType, length };
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const item = raw[i] as Buffer | string;
    if (item.length !== 12 && item.length !== 14) continue;
    if (isHeader(item, 'content-type')) {
      const v = String(raw[i + 1]);
      const semi = v.indexOf(';');
      mediaType = (semi < 0 ? v : v.slice(0, semi)).trim().toLowerCase();
    } else if (isHeader(item, 'content-length')) {
      const n = Number(String(raw[i + 1]).trim());
      if (Number.isSafeInteger(n) && n >= 0) length = n;
    }
  }
  return { mediaType, length };
}

const MIB = 1024 * 1024;
const sizeText = (n: number): string =>
  n % MIB === 0 ? `${n / MIB} MiB` : n >= MIB ? `${(n / MIB).toFixed(1)} MiB (${n} bytes)` : `${n} bytes`;

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

/**
 * The exchanges of each caller's signal, found by one shared listener. A listener or closure per exchange that
 * ties the exchange to a signal made V8 promote the whole request (decoder, buffers) out of the young
 * generation: with a signal per call (every Node-RED msg has one) ~10 KB per call, GC 5x the time and half the
 * rate (bench/profile-nodered.ts SIGNAL=1; gone with --no-allocation-site-pretenuring).
 */
const waiting = new WeakMap<AbortSignal, Set<Abortable>>();

interface Abortable {
  stop(err: GatewayError): void;
  abortError(reason: unknown): GatewayError;
}

function onSignalAbort(event: Event): void {
  const signal = event.target as AbortSignal;
  const exchanges = waiting.get(signal);
  if (!exchanges) return;
  waiting.delete(signal);
  for (const ex of exchanges) ex.stop(ex.abortError(signal.reason));
}

/**
 * One exchange as one object whose methods are undici's handler: no closures per request (a burst of calls
 * waiting for a connection each holds one of these), and the body is handed over as bytes, not as the
 * envelope's rope of concatenated strings.
 */
class Exchange<T> extends Deadline implements LegacyHandler {
  private readonly progress: ExchangeProgress = { connected: false, sent: false, responded: false };
  private abortFn: ((err?: Error) => void) | undefined;
  private consumer: BodyConsumer<T> | undefined;
  /** A failure we caused (consumer threw, signal fired): reported instead of undici's echo of it. */
  private failure: unknown;
  private settled = false;
  /** Registered with its signal (see `waiting`). */
  private watching = false;
  /** Body bytes read so far, and the most allowed. */
  private received = 0;
  private readonly maxBytes: number;
  private status = 0;
  /** bytesPerTurn (at least 1 byte, or it would never move on); Infinity: each read as it comes. */
  private budget: number;
  /** Bytes handed over in this turn, whether the turn's end is scheduled, undici's resume. */
  private turnBytes = 0;
  private turnEnds = false;
  private resumeFn: (() => void) | undefined;
  /** The rest of a chunk past this turn's budget, handed over next turn (the response is paused meanwhile). */
  private held: Buffer | undefined;

  constructor(
    private readonly opts: ExchangeOptions<T>,
    private readonly resolve: (value: T) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    super();
    this.maxBytes = opts.maxBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const perTurn = opts.bytesPerTurn;
    this.budget = perTurn === undefined ? Infinity : Math.max(1, Math.floor(perTurn) || 1);
  }

  start(dispatcher: Dispatcher, req: HttpRequest): void {
    const { signal, deadline } = this.opts;
    if (signal?.aborted) return this.finish(this.abortError(signal.reason));
    if (deadline !== undefined) {
      const left = deadline - Date.now();
      if (left <= 0) return this.finish(this.abortError(undefined));
      schedule(this, deadline);
    }
    if (signal) {
      let exchanges = waiting.get(signal);
      if (!exchanges) {
        exchanges = new Set();
        waiting.set(signal, exchanges);
        signal.addEventListener('abort', onSignalAbort, { once: true });
      }
      exchanges.add(this);
      this.watching = true;
    }
    try {
      dispatcher.dispatch(
        {
          origin: this.opts.origin,
          path: req.path,
          method: req.method,
          headers: req.headers,
          body: req.body ? Buffer.from(req.body, 'utf8') : null,
          // Never let undici replay a request on another connection: sends must not be duplicated.
          idempotent: false,
        },
        this as unknown as Dispatcher.DispatchHandler,
      );
    } catch (e) {
      this.finish(networkError(e, this.progress, this.opts.details, this.opts.clean));
    }
  }

  private finish(err: unknown, value?: T): void {
    if (this.settled) return;
    this.settled = true;
    if (this.listed) cancel(this);
    if (this.watching) waiting.get(this.opts.signal!)?.delete(this);
    if (err !== undefined) this.reject(err);
    else this.resolve(value as T);
  }

  /** The deadline passed (see deadlines.ts). */
  expire(): void {
    this.stop(this.abortError(undefined));
  }

  abortError(reason: unknown): GatewayError {
    const timedOut = reason === undefined || (reason instanceof Error && reason.name === 'TimeoutError');
    return new GatewayError('TIMEOUT', timedOut ? 'no complete answer in time' : 'aborted by the caller', {
      ...this.opts.details,
      ambiguous: this.progress.connected,
      cause: reason,
    });
  }

  stop(err: GatewayError): void {
    if (this.settled) return;
    this.failure ??= err;
    if (this.abortFn) this.abortFn(this.failure as Error);
    else this.finish(this.failure); // not yet connected: undici aborts it in onConnect
  }

  private fail(err: unknown): void {
    this.failure ??= err;
    if (this.abortFn) this.abortFn(err instanceof Error ? err : new Error(String(err)));
    else this.finish(this.failure);
  }

  onConnect(abort: (err?: Error) => void): void {
    if (this.settled || this.failure !== undefined) {
      abort((this.failure as Error | undefined) ?? new Error('aborted'));
      return;
    }
    this.abortFn = abort;
    this.progress.connected = true;
  }

  onRequestSent(): void {
    this.progress.sent = true;
  }

  onHeaders(status: number, headers: Buffer[] | string[] | null, resume: () => void): boolean {
    if (status < 200) return true;
    this.resumeFn = resume;
    this.progress.responded = true;
    this.progress.sent = true;
    this.status = status;
    const { mediaType, length } = headOf(headers);
    // An answer announced as too large is refused before a byte of it is read.
    if (length > this.maxBytes) {
      this.fail(this.tooLarge(`announced as ${length} bytes, larger`));
      return false;
    }
    // Announced within one turn's budget: nothing would ever be held, so no turn is counted.
    if (length >= 0 && length <= this.budget) this.budget = Infinity;
    try {
      this.consumer = this.opts.onHead({ status, mediaType });
    } catch (e) {
      this.fail(e);
      return false;
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.failure !== undefined || !this.consumer) return true;
    this.received += chunk.length;
    if (this.received > this.maxBytes) {
      this.fail(this.tooLarge('larger'));
      return false;
    }
    if (this.budget !== Infinity) return this.hand(chunk);
    try {
      this.consumer.write(chunk);
    } catch (e) {
      this.fail(e);
    }
    return true;
  }

  /** Hands over what this turn's budget allows; false (pause the response) when the rest is held. */
  private hand(chunk: Buffer): boolean {
    if (!this.turnEnds) {
      this.turnEnds = true;
      setImmediate(nextTurn, this);
    }
    const room = Math.max(0, this.budget - this.turnBytes);
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    if (part.length > 0) {
      this.turnBytes += part.length;
      try {
        this.consumer!.write(part);
      } catch (e) {
        this.fail(e);
        return true;
      }
    }
    if (part.length === chunk.length) return true;
    this.held = chunk.subarray(part.length);
    return false;
  }

  /**
   * A new turn (setImmediate, after the poll phase has served every other socket and timer): a fresh budget for
   * the held rest; the response resumes (undici parses what waits in the socket, synchronously) once the rest is
   * handed over. Held bytes of a failed or settled exchange are dropped: the request is being aborted.
   */
  newTurn(): void {
    this.turnEnds = false;
    this.turnBytes = 0;
    const held = this.held;
    if (held === undefined) return;
    this.held = undefined;
    if (this.failure !== undefined || this.settled) return;
    if (this.hand(held) && this.failure === undefined) this.resumeFn?.();
  }

  /** PARSE: what was read is not the whole answer; a 200 to a send may still hide an accepted job. */
  private tooLarge(what: string): GatewayError {
    const status = this.status;
    return new GatewayError(
      'PARSE',
      `answer ${what} than the limit of ${sizeText(this.maxBytes)} (maxResponseBytes); stopped reading`,
      {
        ...this.opts.details,
        httpStatus: status,
        ambiguous: status === 200 || status === 502 || status === 504,
      },
    );
  }

  onComplete(): void {
    if (this.failure !== undefined) return this.finish(this.failure);
    if (!this.consumer) {
      return this.finish(
        networkError(new Error('no response'), this.progress, this.opts.details, this.opts.clean),
      );
    }
    try {
      this.finish(undefined, this.consumer.end());
    } catch (e) {
      this.finish(e);
    }
  }

  onError(err: Error): void {
    if (this.failure !== undefined) return this.finish(this.failure);
    this.finish(networkError(err, this.progress, { ...this.opts.details }, this.opts.clean));
  }
}

function nextTurn(exchange: { newTurn(): void }): void {
  exchange.newTurn();
}

export function exchange<T>(dispatcher: Dispatcher, req: HttpRequest, opts: ExchangeOptions<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => new Exchange(opts, resolve, reject).start(dispatcher, req));
}
