/**
 * Delivery tracking shared by every send node of one config node: one QueryReceivedDLR poll with a date cursor
 * (not one per node, not one per job), running only while a job is tracked. A job is final once as many
 * distinct recipients have a final report as the job was sent to; a job without that by its deadline times out
 * with the reports seen so far. Which statuses are final is a guess (report-status.ts): a status in neither the
 * final nor the pending list never ends a job, is counted as `unknown` and reported once through
 * onUnknownStatus, so the job reaches its node at the latest by its deadline. Tracked jobs, their reports, the
 * cursor and finished jobs not yet handed to their node live in a state file (atomic rename), so a restart or
 * redeploy resumes tracking.
 *
 * A report can be read before its job is tracked: the job of a send whose answer was lost is found by its
 * reference seconds or minutes later, and any send's report may come before its answer. While a
 * send that will be tracked is under way (`expect()`), reports of no tracked job are kept (in memory, bounded)
 * and given to the job when it is tracked; once no such send is under way they are dropped.
 * Nothing here imports Node-RED: the config node owns one tracker, send nodes subscribe by their node id.
 */
import type { SMSReport } from '../../client/types.generated';
import { readNewReports, type ReportCursor } from '../polling/report-cursor';
import { statusOf, type ReportStatuses } from '../polling/report-status';
import {
  StateFile,
  StoreWriteError,
  type RetryTimers,
  type StateDamage,
  type StoreProblem,
} from '../../store';

/** What the tracker needs of the gateway: QueryReceivedDLR. */
export type QueryDlr = (start: Date, limit: number, signal: AbortSignal) => Promise<SMSReport[]>;

export interface DeliveryTrackerOptions {
  /** Node-RED's userDir (state file `smsgw-state/smsgw-delivery.<id>.json`); undefined = memory only. */
  userDir: string | undefined;
  /** Config node id: names the state file. */
  id: string;
  query: QueryDlr;
  /** Delay between polls while a job is tracked (failures back off doubling, up to 10 minutes). */
  intervalMs: number;
  /** Which SMSReport.Status values end a recipient's delivery, and which are known to come before. */
  statuses: ReportStatuses;
  /** A report of a tracked job has a status in neither list (called once per status value). */
  onUnknownStatus?: (status: string, jobId: number | string) => void;
  /** How far back the first poll after an idle period starts (the gateway's clock and zone are unknown). */
  lookbackMs: number;
  onError?: (err: unknown, failures: number) => void;
  /** The state file could not be read whole (copied aside, what could be read of it is used), or is missing. */
  onDamaged?: (damage: StateDamage) => void;
  /**
   * The state file cannot be read or saved (told once), or can again (undefined). Meanwhile nothing is read
   * and no outcome is handed on; tracking goes on once it can be saved.
   */
  onStoreProblem?: (problem: StoreProblem | undefined) => void;
  /** The state file's retry timers (tests drive them by hand). */
  storeTimers?: RetryTimers;
  /** Reports kept for jobs not tracked yet passed MAX_UNMATCHED: the oldest were dropped (called once). */
  onOverflow?: (kept: number) => void;
  now?: () => number;
}

export interface TrackRequest {
  jobId: number | string;
  /** Node id of the send node that gets the outcome. */
  owner: string;
  recipients: readonly string[];
  timeoutMs: number;
  /** Kept in memory only (the msg that sent the job): handed back with the outcome unless a restart came between. */
  context?: unknown;
}

export interface DeliveryOutcome {
  JobId: number | string;
  /** `final`: every recipient has a final report; `timeout`: the deadline passed first. */
  outcome: 'final' | 'timeout';
  recipients: string[];
  /** Every report read for the job (one per recipient and segment), oldest first. */
  reports: SMSReport[];
  /**
   * Recipients whose final report says DELIVERED (or DELIVRD), says another final state, has a status in neither
   * list (newest report; `unknown`), or who have no report in a known state yet.
   */
  delivered: number;
  failed: number;
  unknown: number;
  missing: number;
  trackedAt: string;
  /** The msg given to track(), when no restart came between. */
  context?: unknown;
}

export type OutcomeListener = (outcome: DeliveryOutcome) => void;

interface JobState {
  jobId: number | string;
  owner: string;
  recipients: string[];
  trackedAt: number;
  deadline: number;
  reports: SMSReport[];
  done?: 'final' | 'timeout';
}

export interface TrackerState {
  cursor: string | null;
  seen: ReportCursor['seen'];
  jobs: JobState[];
}

const MAX_BACKOFF_MS = 600_000;
/**
 * Reports of jobs not tracked (yet) kept while sends are under way. A day of a busy account's reports stays below
 * it; beyond it the oldest go (a job recovered after that may time out) and onOverflow says so.
 */
export const MAX_UNMATCHED = 20_000;
/** Finished jobs whose node never came back (deleted while Node-RED was down) are dropped after this. */
const ORPHAN_MS = 7 * 86_400_000;
const DATE_FIELDS = ['Date', 'DoneDate', 'CreateDate'] as const;

function reviveReport(r: SMSReport): SMSReport {
  const out = { ...r } as Record<string, unknown>;
  for (const f of DATE_FIELDS) if (typeof out[f] === 'string') out[f] = new Date(out[f]);
  return out as unknown as SMSReport;
}

export class DeliveryTracker {
  private readonly store: StateFile<TrackerState>;
  private state: TrackerState;
  private readonly listeners = new Map<string, OutcomeListener>();
  private readonly contexts = new Map<string, unknown>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private controller: AbortController | undefined;
  private failures = 0;
  private closed = false;
  private readonly unknownSeen = new Set<string>();
  private readonly now: () => number;
  /** Sends under way whose job may be tracked: id -> when it started (this process's clock). */
  private readonly expected = new Map<number, number>();
  private expectSeq = 0;
  /** Reports read while sends were under way that no tracked job took, by JobId, with when they were read. */
  private readonly unmatched = new Map<string, { readAt: number; reports: SMSReport[] }>();
  private unmatchedCount = 0;
  private overflowed = false;
  /** soon() was asked while a poll ran: the next one follows at once. */
  private again = false;
  /** The state file has been read (tracking starts then). */
  readonly ready: Promise<void>;

  constructor(private readonly opts: DeliveryTrackerOptions) {
    this.now = opts.now ?? Date.now;
    this.state = { cursor: null, seen: {}, jobs: [] };
    this.store = new StateFile<TrackerState>(opts.userDir, `smsgw-delivery.${opts.id}`, {
      kind: 'delivery',
      onDamage: (d) => opts.onDamaged?.(d),
      onProblem: (p) => {
        opts.onStoreProblem?.(p);
        // Saved again: what waited for it goes on now.
        if (!p) this.soon();
      },
      ...(opts.storeTimers ? { timers: opts.storeTimers } : {}),
    });
    this.ready = this.store.open().then(
      (loaded) => {
        const orphanBefore = this.now() - ORPHAN_MS;
        const kept: JobState[] = [];
        for (const j of loaded?.jobs ?? []) {
          if (j.done && j.deadline < orphanBefore) continue;
          kept.push({ ...j, reports: (j.reports ?? []).map(reviveReport) });
        }
        // Jobs tracked while the file was read come after those it held.
        this.state = {
          cursor: loaded?.cursor ?? this.state.cursor,
          seen: loaded?.seen ?? this.state.seen,
          jobs: [
            ...kept,
            ...this.state.jobs.filter((j) => !kept.some((k) => String(k.jobId) === String(j.jobId))),
          ],
        };
        this.schedule(0);
      },
      () => undefined,
    );
  }

  get file(): string | undefined {
    return this.store.file;
  }

  /** Why the state file cannot be read or saved now, or undefined. */
  get storeProblem(): StoreProblem | undefined {
    return this.store.problem;
  }

  /** Tries a failing read or write of the state file again now (tests; the store retries on its own). */
  retryStore(): Promise<void> {
    return this.store.retryNow();
  }

  /** Jobs tracked and not yet handed on (for statuses and tests). */
  get size(): number {
    return this.state.jobs.length;
  }

  isActive(): boolean {
    return this.timer !== undefined || this.running !== undefined;
  }

  /**
   * A send that may be tracked is under way: until the returned function is called (after track(), or when the
   * send failed), reports of jobs not tracked yet are kept for it. Its job may be found only later by its
   * reference, after the tracker read its reports for other jobs.
   */
  expect(): () => void {
    const id = ++this.expectSeq;
    this.expected.set(id, Date.now());
    return () => {
      if (!this.expected.delete(id)) return;
      this.pruneUnmatched();
    };
  }

  /** Reports kept for jobs not tracked yet (tests). */
  get unmatchedSize(): number {
    return this.unmatchedCount;
  }

  track(req: TrackRequest): void {
    if (this.closed) return;
    const key = String(req.jobId);
    if (this.state.jobs.some((j) => String(j.jobId) === key)) return;
    const now = this.now();
    const job: JobState = {
      jobId: req.jobId,
      owner: req.owner,
      recipients: [...req.recipients],
      trackedAt: now,
      deadline: now + Math.max(0, req.timeoutMs),
      reports: [],
    };
    this.state.jobs.push(job);
    if (req.context !== undefined) this.contexts.set(key, req.context);
    // Its reports may have been read already, while its send was under way.
    const early = this.unmatched.get(key);
    if (early) {
      this.unmatched.delete(key);
      this.unmatchedCount -= early.reports.length;
      for (const r of early.reports) this.addReport(job, r);
      if (this.isFinal(job)) job.done = 'final';
    }
    // Not saved now: the store told it and saves it with the next write that works.
    void this.store.save(this.state).catch(() => undefined);
    if (job.done) this.soon();
    else if (!this.timer && !this.running) this.schedule(this.opts.intervalMs);
  }

  /** A job is final already (its reports came before it was tracked): hand it on now, not an interval later. */
  private soon(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.schedule(0);
  }

  /**
   * Outcomes of the owner's jobs go to the listener, including those that finished while no listener was
   * there (a restart or redeploy of the node). Returns the unsubscribe function.
   */
  subscribe(owner: string, listener: OutcomeListener): () => void {
    this.listeners.set(owner, listener);
    if (this.state.jobs.some((j) => j.owner === owner && j.done)) {
      setImmediate(() => void this.handOn().catch((err: unknown) => this.opts.onError?.(err, 0)));
    }
    return () => {
      if (this.listeners.get(owner) === listener) this.listeners.delete(owner);
    };
  }

  /** Drops every job of a node that was deleted. */
  forget(owner: string): Promise<void> {
    const before = this.state.jobs.length;
    this.state.jobs = this.state.jobs.filter((j) => j.owner !== owner);
    this.listeners.delete(owner);
    return before === this.state.jobs.length
      ? Promise.resolve()
      : this.store.save(this.state).catch(() => undefined);
  }

  /** Stops polling (aborting a poll in flight) and writes the state file a last time. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.controller?.abort();
    await this.running?.catch(() => undefined);
    await this.store.close().catch(() => undefined);
  }

  /** Runs one tick now (tests; the timer does this while jobs are tracked). */
  tick(): Promise<void> {
    if (this.running) return this.running;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    return this.run();
  }

  private schedule(delay: number): void {
    if (this.closed || this.timer) return;
    // Open jobs to poll for, or finished ones whose node is there to take them.
    if (!this.state.jobs.some((j) => !j.done || this.listeners.has(j.owner))) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.run();
    }, delay);
  }

  private run(): Promise<void> {
    const controller = new AbortController();
    this.controller = controller;
    const p = this.once(controller.signal)
      .then(
        () => {
          this.failures = 0;
          return this.opts.intervalMs;
        },
        (err: unknown) => {
          if (controller.signal.aborted && this.closed) return this.opts.intervalMs;
          this.failures += 1;
          this.opts.onError?.(err, this.failures);
          return Math.min(this.opts.intervalMs * 2 ** (this.failures - 1), MAX_BACKOFF_MS);
        },
      )
      .then((delay) => {
        this.running = undefined;
        // A job finished while this poll ran (tracked with its reports already read): its turn comes at once.
        const again = this.again;
        this.again = false;
        this.schedule(again ? 0 : delay);
      });
    this.running = p;
    return p;
  }

  private async once(signal: AbortSignal): Promise<void> {
    await this.ready;
    try {
      // A state not on disk yet (a write that failed) is saved first: nothing is read or handed on before.
      if (this.store.problem) await this.store.save(this.state);
      try {
        if (this.state.jobs.some((j) => !j.done)) await this.poll(signal);
      } finally {
        // Deadlines pass even while the gateway cannot be reached.
        if (!signal.aborted && !this.store.problem) {
          const now = this.now();
          for (const j of this.state.jobs) if (!j.done && j.deadline <= now) j.done = 'timeout';
          await this.handOn();
        }
      }
    } catch (e) {
      // The store told it once and tries again; tracking goes on once it can save (soon()).
      if (!(e instanceof StoreWriteError)) throw e;
    }
  }

  private async poll(signal: AbortSignal): Promise<void> {
    const next = await readNewReports(this.state, {
      lookbackMs: this.opts.lookbackMs,
      now: this.now(),
      query: (start, limit) => this.opts.query(start, limit, signal),
      aborted: () => signal.aborted,
      // Looked up per page, after its request: a job tracked while the request ran must get its reports.
      onPage: (fresh) => {
        const open = this.openJobs();
        const readAt = Date.now();
        for (const r of fresh) {
          const job = open.get(String(r.JobId));
          if (job) this.addReport(job, r);
          else if (this.expected.size > 0) this.keepUnmatched(r, readAt);
        }
      },
    });
    this.pruneUnmatched();
    if (!next) return;
    for (const j of this.openJobs().values()) if (this.isFinal(j)) j.done = 'final';
    this.state.cursor = next.cursor;
    this.state.seen = next.seen;
  }

  /** A report for a job, once per report Id (a cursor reset when idle may read one again). */
  private addReport(job: JobState, r: SMSReport): void {
    if (Number.isInteger(r.Id) && job.reports.some((x) => x.Id === r.Id)) return;
    job.reports.push(r);
    this.noteUnknown(r, job);
  }

  private keepUnmatched(r: SMSReport, readAt: number): void {
    const key = String(r.JobId);
    let entry = this.unmatched.get(key);
    if (!entry) this.unmatched.set(key, (entry = { readAt, reports: [] }));
    if (Number.isInteger(r.Id) && entry.reports.some((x) => x.Id === r.Id)) return;
    entry.reports.push(r);
    this.unmatchedCount += 1;
    while (this.unmatchedCount > MAX_UNMATCHED) {
      const [oldest, dropped] = this.unmatched.entries().next().value as [string, { reports: SMSReport[] }];
      this.unmatched.delete(oldest);
      this.unmatchedCount -= dropped.reports.length;
      if (!this.overflowed) {
        this.overflowed = true;
        this.opts.onOverflow?.(MAX_UNMATCHED);
      }
    }
  }

  /** Drops what no send under way can claim: reports read before the oldest of them started, or all of them. */
  private pruneUnmatched(): void {
    if (this.expected.size === 0) {
      this.unmatched.clear();
      this.unmatchedCount = 0;
      return;
    }
    // Kept in the order the sends began: the first is the oldest.
    const oldest = this.expected.values().next().value as number;
    for (const [key, entry] of this.unmatched) {
      // Kept in the order read: the first one read after the oldest send began ends the pruning.
      if (entry.readAt >= oldest) break;
      this.unmatched.delete(key);
      this.unmatchedCount -= entry.reports.length;
    }
  }

  private openJobs(): Map<string, JobState> {
    const open = new Map<string, JobState>();
    for (const j of this.state.jobs) if (!j.done) open.set(String(j.jobId), j);
    return open;
  }

  private noteUnknown(r: SMSReport, j: JobState): void {
    const status = statusOf(r.Status);
    if (this.opts.statuses.kindOf(status) !== 'unknown' || this.unknownSeen.has(status)) return;
    this.unknownSeen.add(status);
    this.opts.onUnknownStatus?.(status, j.jobId);
  }

  private finalRecipients(j: JobState): Map<string, string> {
    const final = new Map<string, string>();
    for (const r of j.reports) {
      if (this.opts.statuses.kindOf(r.Status) === 'final')
        final.set(String(r.Recipient ?? ''), statusOf(r.Status));
    }
    return final;
  }

  /** Recipients without a final report whose newest report has a status in neither list. */
  private unknownRecipients(j: JobState, final: Map<string, string>): number {
    const newest = new Map<string, unknown>();
    for (const r of j.reports) newest.set(String(r.Recipient ?? ''), r.Status);
    let n = 0;
    for (const [recipient, status] of newest) {
      if (!final.has(recipient) && this.opts.statuses.kindOf(status) === 'unknown') n += 1;
    }
    return n;
  }

  private isFinal(j: JobState): boolean {
    return this.finalRecipients(j).size >= new Set(j.recipients).size;
  }

  /** Hands finished jobs to their listeners, then writes the state without them (after, never before). */
  private async handOn(): Promise<void> {
    const handed: JobState[] = [];
    for (const j of this.state.jobs) {
      if (!j.done) continue;
      const listener = this.listeners.get(j.owner);
      if (!listener) continue;
      handed.push(j);
      try {
        listener(this.outcomeOf(j));
      } catch (err) {
        this.opts.onError?.(err, 0);
      }
    }
    if (handed.length > 0) {
      this.state.jobs = this.state.jobs.filter((j) => !handed.includes(j));
      for (const j of handed) this.contexts.delete(String(j.jobId));
    }
    if (!this.state.jobs.some((j) => !j.done)) {
      // Idle: the next job starts from "now minus lookback" instead of reading everything since.
      this.state.cursor = null;
      this.state.seen = {};
    }
    await this.store.save(this.state);
  }

  private outcomeOf(j: JobState): DeliveryOutcome {
    const final = this.finalRecipients(j);
    const distinct = new Set(j.recipients).size;
    let delivered = 0;
    for (const s of final.values()) if (this.opts.statuses.isDelivered(s)) delivered += 1;
    const unknown = this.unknownRecipients(j, final);
    const key = String(j.jobId);
    const out: DeliveryOutcome = {
      JobId: j.jobId,
      outcome: j.done === 'final' ? 'final' : 'timeout',
      recipients: j.recipients,
      reports: j.reports,
      delivered,
      failed: final.size - delivered,
      unknown,
      missing: Math.max(0, distinct - final.size - unknown),
      trackedAt: new Date(j.trackedAt).toISOString(),
    };
    if (this.contexts.has(key)) out.context = this.contexts.get(key);
    return out;
  }
}
