/**
 * Flow control for one client (or one config node): at most `ratePerSecond` requests per second (a token
 * bucket), at most `maxConcurrent` messages in flight (a semaphore), and a bounded FIFO of messages waiting
 * for either. A message that finds the queue full fails at once with GatewayError('QUEUE_FULL'): nothing is
 * ever dropped silently. Framework-free; a node shows `depth` in its status through `onChange`.
 */
import { GatewayError } from '../errors';

export interface FlowControlOptions {
  /** Requests per second; 0 or absent = no rate limit. */
  ratePerSecond?: number;
  /** Requests that may start back to back after a quiet period (default: a tenth of a second's worth, ≥ 1). */
  burst?: number;
  /** Messages in flight at once; absent = no limit. */
  maxConcurrent?: number;
  /** Messages that may wait; one more fails with QUEUE_FULL (default 1000; 0 = never wait). */
  maxQueue?: number;
}

export interface FlowState {
  /** Messages waiting in the queue. */
  depth: number;
  /** Messages running. */
  active: number;
}

interface Waiter {
  start(): void;
  cancelled: boolean;
}

/** FIFO with O(1) push and shift (an array with a moving head, compacted now and then). */
class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;
  get length(): number {
    return this.items.length - this.head;
  }
  push(item: T): void {
    this.items.push(item);
  }
  peek(): T | undefined {
    return this.items[this.head];
  }
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

function positive(name: string, v: number | undefined, dflt: number, allowZero = false): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || Number.isNaN(v) || v < 0 || (!allowZero && v === 0))
    throw new GatewayError('CONFIG', `${name} must be a ${allowZero ? 'non-negative' : 'positive'} number`);
  return v;
}

export class FlowControl {
  readonly ratePerSecond: number;
  readonly burst: number;
  readonly maxConcurrent: number;
  readonly maxQueue: number;

  private tokens: number;
  private refilledAt = performance.now();
  private running = 0;
  private waiting = 0;
  private readonly queue = new Fifo<Waiter>();
  /** Requests of messages already running (lookups, retries): they need a token, never a slot. */
  private readonly paced = new Fifo<Waiter>();
  private timer: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<(s: FlowState) => void>();
  /** Told how each call that ran ended (onSettled); an array read by index: no allocation per call. */
  private settledListeners: ((err: unknown) => void)[] = [];
  /** A bucket shared with other processes (Redis), asked after the local one; see `share`. */
  private shared: (() => Promise<number>) | undefined;

  constructor(options: FlowControlOptions = {}) {
    this.ratePerSecond = positive('ratePerSecond', options.ratePerSecond, 0, true);
    this.burst = Math.max(1, positive('burst', options.burst, Math.max(1, this.ratePerSecond / 10)));
    this.maxConcurrent = positive('maxConcurrent', options.maxConcurrent, Infinity);
    if (!Number.isInteger(this.maxConcurrent) && this.maxConcurrent !== Infinity)
      throw new GatewayError('CONFIG', 'maxConcurrent must be an integer');
    this.maxQueue = positive('maxQueue', options.maxQueue, 1000, true);
    this.tokens = this.burst;
  }

  /** Messages waiting. */
  get depth(): number {
    return this.waiting;
  }

  /** Messages running. */
  get active(): number {
    return this.running;
  }

  /**
   * Also takes each token from a bucket shared with other processes (several Node-RED instances on one Redis):
   * `take` resolves 0 when it gave a token, else the milliseconds to wait before asking again. The local bucket
   * still applies (this process never goes faster alone); when `take` fails (Redis away) the local one decides.
   */
  share(take: (() => Promise<number>) | undefined): void {
    this.shared = this.ratePerSecond > 0 ? take : undefined;
  }

  /** Calls `listener` whenever depth or active change; returns the unsubscribe function. */
  onChange(listener: (s: FlowState) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * Calls `listener` when a call that ran (it got its slot and token) ended: with undefined when it succeeded,
   * else with what it failed with. Calls refused before they ran (QUEUE_FULL, aborted while waiting) are not
   * told: they never reached the gateway. Returns the unsubscribe function. A listener that throws is ignored.
   */
  onSettled(listener: (err: unknown) => void): () => void {
    this.settledListeners = [...this.settledListeners, listener];
    return () => {
      this.settledListeners = this.settledListeners.filter((l) => l !== listener);
    };
  }

  /**
   * Runs `task` when a slot and a token are free. Rejects at once with QUEUE_FULL when it would have to wait
   * and the queue is full, or with TIMEOUT (not ambiguous: nothing was sent) when `signal` aborts it while
   * it waits.
   */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(notSent('aborted by the caller while waiting in the queue'));
    if (this.shared) task = this.gated(task, signal);
    if (this.waiting === 0 && this.running < this.maxConcurrent && this.take()) {
      return this.execute(task);
    }
    if (this.waiting >= this.maxQueue) {
      return Promise.reject(
        new GatewayError('QUEUE_FULL', `flow control queue is full (${this.maxQueue} waiting)`, {
          ambiguous: false,
        }),
      );
    }
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = {
        cancelled: false,
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.execute(task).then(resolve, reject);
        },
      };
      const onAbort = (): void => {
        if (waiter.cancelled) return;
        waiter.cancelled = true;
        this.waiting--;
        this.changed();
        reject(notSent('aborted by the caller while waiting in the queue'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
      this.waiting++;
      this.changed();
      this.pump();
    });
  }

  /** Waits for a rate token for one more request of a running message (a lookup, a retry); no queue limit. */
  pace(signal?: AbortSignal): Promise<void> {
    if (this.ratePerSecond === 0) return Promise.resolve();
    const local = this.paceLocal(signal);
    const shared = this.shared;
    return shared ? local.then(() => sharedToken(shared, signal)) : local;
  }

  private paceLocal(signal?: AbortSignal): Promise<void> {
    if (this.paced.length === 0 && this.take()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        cancelled: false,
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        waiter.cancelled = true;
        reject(notSent('aborted by the caller while waiting for the rate limit'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.paced.push(waiter);
      this.pump();
    });
  }

  /** Stops the timer (waiting messages stay waiting; nothing new starts until `run` is called again). */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The task, started once the shared bucket gave a token too. */
  private gated<T>(task: () => Promise<T>, signal: AbortSignal | undefined): () => Promise<T> {
    const shared = this.shared!;
    return () => sharedToken(shared, signal).then(task);
  }

  private execute<T>(task: () => Promise<T>): Promise<T> {
    this.running++;
    this.changed();
    let p: Promise<T>;
    try {
      p = task();
    } catch (e) {
      p = Promise.reject(e);
    }
    // Bound once (below): a call allocates no closure here.
    return p.then(this.succeeded, this.failed) as Promise<T>;
  }

  private readonly succeeded = (value: unknown): unknown => {
    this.ended(undefined);
    return value;
  };

  private readonly failed = (err: unknown): never => {
    this.ended(err);
    throw err;
  };

  private ended(err: unknown): void {
    this.running--;
    this.changed();
    this.pump();
    const listeners = this.settledListeners;
    for (let i = 0; i < listeners.length; i++) {
      try {
        listeners[i]!(err);
      } catch {
        // a listener must not change the call's outcome
      }
    }
  }

  private take(): boolean {
    if (this.ratePerSecond === 0) return true;
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) * this.ratePerSecond) / 1000);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  private pump(): void {
    for (;;) {
      const p = this.paced.peek();
      if (p?.cancelled) {
        this.paced.shift();
        continue;
      }
      if (p) {
        if (!this.take()) break;
        this.paced.shift();
        p.start();
        continue;
      }
      const w = this.queue.peek();
      if (!w) break;
      if (w.cancelled) {
        this.queue.shift();
        continue;
      }
      if (this.running >= this.maxConcurrent || !this.take()) break;
      this.queue.shift();
      this.waiting--;
      w.start();
    }
    this.schedule();
  }

  /** One timer for the moment the next token is due, when someone waits for a token. */
  private schedule(): void {
    if (this.timer || this.ratePerSecond === 0) return;
    const needsToken = this.paced.length > 0 || (this.queue.length > 0 && this.running < this.maxConcurrent);
    if (!needsToken) return;
    const missing = Math.max(0, 1 - this.tokens);
    const ms = Math.max(1, Math.ceil((missing * 1000) / this.ratePerSecond));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, ms);
  }

  private changed(): void {
    if (this.listeners.size === 0) return;
    const s: FlowState = { depth: this.waiting, active: this.running };
    for (const l of this.listeners) {
      try {
        l(s);
      } catch {
        // a status display must not break sending
      }
    }
  }
}

/** Waits for a token of the shared bucket; gives up waiting (and lets the local bucket decide) when it fails. */
async function sharedToken(take: () => Promise<number>, signal: AbortSignal | undefined): Promise<void> {
  for (;;) {
    let wait: number;
    try {
      wait = await take();
    } catch {
      return;
    }
    if (wait <= 0) return;
    if (signal?.aborted) throw notSent('aborted by the caller while waiting for the shared rate limit');
    await new Promise<void>((resolve) => {
      const t = setTimeout(done, wait);
      function done(): void {
        clearTimeout(t);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

const notSent = (message: string): GatewayError => new GatewayError('TIMEOUT', message, { ambiguous: false });
