/**
 * `/_emulator/events`: a server-sent event stream of what changes in the emulator. The state is read through
 * the control interface (snapshot) and compared with what was last seen, so it works with any backend; reads
 * happen only while someone listens, after each request, each state change (onChange) and once a second (jobs
 * move on by the clock alone).
 */
import type { ServerResponse } from 'node:http';
import type { EmulatorControl } from '../contract';
import type { FaultInjector } from '../wire/fault-injection';
import type { RequestLog, RequestLogEntry } from '../wire/request-log';
import { maskPasswords, readState, type ConsoleAccount, type ConsoleState } from './view';

export interface BalancePoint {
  readonly at: string;
  readonly balance: number;
}

export interface FeedOptions {
  readonly control: EmulatorControl & { onChange?: (listener: () => void) => () => void };
  readonly faults: FaultInjector;
  readonly log: RequestLog;
  /** Country code for national numbers (0…) when grouping phones; default '49'. */
  readonly countryCode?: string;
  /** How often the clock is checked while someone listens (default 1000 ms). */
  readonly tickMs?: number;
  /** Comment lines that keep idle streams open through proxies (default 15000 ms). */
  readonly keepAliveMs?: number;
  /** Headers every answer carries (security headers). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Event names on the stream (the data of each is one JSON object). */
export type FeedEvent =
  'snapshot' | 'job' | 'report' | 'inbound' | 'balance' | 'subscribers' | 'faults' | 'request' | 'requests';

const MAX_HISTORY = 500;
/** The first picture a page gets holds at most this many of the newest jobs and inbound messages. */
const MAX_SNAPSHOT_ITEMS = 500;
/** A client that does not read is dropped instead of buffering without bound. */
const MAX_BUFFERED = 4 * 1024 * 1024;
const COALESCE_MS = 25;
/** Reading a big state is not free (about 30 ms per 1000 jobs): between two reads, wait this many times as long. */
const IDLE_FACTOR = 4;

const maskEntry = (e: RequestLogEntry): RequestLogEntry => ({
  ...e,
  request: maskPasswords(e.request),
  response: maskPasswords(e.response),
});

const FORGET_BATCH = 500;

export class ConsoleFeed {
  private readonly clients = new Set<ServerResponse>();
  private readonly jobSeen = new Map<number, { sig: string; reports: number }>();
  private readonly inboundSeen = new Map<number, boolean>();
  private readonly accountSeen = new Map<string, string>();
  private readonly history = new Map<string, BalancePoint[]>();
  private readonly requestsSeen = new WeakSet<RequestLogEntry>();
  private requestCount = 0;
  private subscribersSeen = '{}';
  private faultsSeen = '[]';
  private last: ConsoleState | undefined;
  private pending: NodeJS.Timeout | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private keepAlive: NodeJS.Timeout | undefined;
  private readonly unsubscribe: (() => void) | undefined;
  private readonly countryCode: string;
  private closed = false;
  private lastCost = 0;

  constructor(private readonly opts: FeedOptions) {
    this.countryCode = opts.countryCode ?? '49';
    this.unsubscribe = opts.control.onChange?.(() => this.poke());
  }

  get listeners(): number {
    return this.clients.size;
  }

  /** Starts a stream on `res`: headers, the full picture as `snapshot`, then changes as they happen. */
  addClient(res: ServerResponse): void {
    if (this.closed) {
      res.writeHead(503, { 'Content-Length': 0 });
      res.end();
      return;
    }
    try {
      this.check();
    } catch (err) {
      const text = `cannot read the emulator state: ${err instanceof Error ? err.message : String(err)}\r\n`;
      res.writeHead(500, { ...this.opts.headers, 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(text);
      return;
    }
    res.writeHead(200, {
      ...this.opts.headers,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.write('retry: 2000\n\n');
    this.clients.add(res);
    res.on('error', () => res.destroy());
    res.on('close', () => {
      this.clients.delete(res);
      if (this.clients.size === 0) this.stopTimers();
    });
    this.write(res, 'snapshot', this.snapshotEvent());
    this.startTimers();
  }

  /** Something may have changed: look soon (coalesced), if anyone listens. */
  poke(): void {
    if (this.clients.size === 0 || this.pending || this.closed) return;
    this.pending = setTimeout(
      () => {
        this.pending = undefined;
        try {
          this.check();
        } catch {
          // A backend whose snapshot fails this time: the page keeps what it has; the next change tries again.
        }
      },
      Math.max(COALESCE_MS, this.lastCost * IDLE_FACTOR),
    );
  }

  /** Reads the state, sends what changed since the last look, returns the state read. */
  check(): ConsoleState {
    const started = performance.now();
    const state = readState(this.opts.control.snapshot(), this.countryCode);
    this.lastCost = performance.now() - started;
    this.last = state;
    for (const account of state.accounts) this.checkAccount(account, state.now);
    for (const job of state.jobs) {
      const sig = `${job.status}|${job.reports.length}|${job.changedAt}`;
      const seen = this.jobSeen.get(job.id);
      if (seen?.sig === sig) continue;
      this.jobSeen.set(job.id, { sig, reports: job.reports.length });
      this.broadcast('job', job);
      for (const report of job.reports.slice(seen?.reports ?? 0)) this.broadcast('report', report);
    }
    // Jobs the emulator has forgotten (--max-jobs) leave the map too, in batches so that no look pays for it.
    if (this.jobSeen.size > state.jobs.length + FORGET_BATCH) {
      const live = new Set(state.jobs.map((j) => j.id));
      for (const id of this.jobSeen.keys()) if (!live.has(id)) this.jobSeen.delete(id);
    }
    for (const message of state.inbound) {
      if (this.inboundSeen.get(message.id) === message.collected) continue;
      this.inboundSeen.set(message.id, message.collected);
      this.broadcast('inbound', message);
    }
    const subscribers = JSON.stringify(state.subscribers);
    if (subscribers !== this.subscribersSeen) {
      this.subscribersSeen = subscribers;
      this.broadcast('subscribers', { subscribers: state.subscribers });
    }
    const faults = JSON.stringify(this.opts.faults.list());
    if (faults !== this.faultsSeen) {
      this.faultsSeen = faults;
      this.broadcast('faults', { faults: JSON.parse(faults) as unknown });
    }
    this.checkRequests();
    return state;
  }

  /** Ends every stream and stops listening to the state. */
  close(): void {
    this.closed = true;
    this.stopTimers();
    if (this.pending) clearTimeout(this.pending);
    this.pending = undefined;
    this.unsubscribe?.();
    for (const res of this.clients) res.end();
    this.clients.clear();
  }

  private checkAccount(a: ConsoleAccount, now: string): void {
    const sig = `${a.balance}|${a.reserved}|${a.locked}`;
    if (this.accountSeen.get(a.user) === sig) return;
    const points = this.history.get(a.user) ?? [];
    const previous = points[points.length - 1];
    if (previous?.balance !== a.balance) {
      points.push({ at: now, balance: a.balance });
      if (points.length > MAX_HISTORY) points.shift();
      this.history.set(a.user, points);
    }
    this.accountSeen.set(a.user, sig);
    this.broadcast('balance', { ...a, at: now });
  }

  private checkRequests(): void {
    const entries = this.opts.log.list();
    if (entries.length < this.requestCount && entries.every((e) => !this.requestsSeen.has(e))) {
      // The log was cleared: start the page's list afresh.
      this.broadcast('requests', { requests: entries.map(maskEntry) });
      for (const e of entries) this.requestsSeen.add(e);
    } else {
      for (const e of entries) {
        if (this.requestsSeen.has(e)) continue;
        this.requestsSeen.add(e);
        this.broadcast('request', maskEntry(e));
      }
    }
    this.requestCount = entries.length;
  }

  private snapshotEvent(): unknown {
    const state = this.last ?? this.check();
    return {
      ...state,
      jobs: state.jobs.slice(-MAX_SNAPSHOT_ITEMS),
      inbound: state.inbound.slice(-MAX_SNAPSHOT_ITEMS),
      requests: this.opts.log.list().map(maskEntry),
      faults: this.opts.faults.list(),
      balanceHistory: Object.fromEntries(this.history),
    };
  }

  private broadcast(event: FeedEvent, data: unknown): void {
    if (this.clients.size === 0) return;
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const res of this.clients) this.send(res, frame);
  }

  private write(res: ServerResponse, event: FeedEvent, data: unknown): void {
    this.send(res, `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  private send(res: ServerResponse, frame: string): void {
    if (res.writableLength > MAX_BUFFERED) {
      res.destroy();
      return;
    }
    res.write(frame);
  }

  private startTimers(): void {
    this.ticker ??= setInterval(() => this.poke(), this.opts.tickMs ?? 1000);
    this.keepAlive ??= setInterval(() => {
      for (const res of this.clients) this.send(res, ': keep-alive\n\n');
    }, this.opts.keepAliveMs ?? 15000);
    this.ticker.unref();
    this.keepAlive.unref();
  }

  private stopTimers(): void {
    if (this.ticker) clearInterval(this.ticker);
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.ticker = undefined;
    this.keepAlive = undefined;
  }
}
