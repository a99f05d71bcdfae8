/**
 * The life of a job, computed from the clock ("catch up on read"): every call first runs the transitions that
 * are due, so results never depend on timers. Offen → (processingMs) InBearbeitung, charged → (deliveryMs)
 * Erledigt with reports (Fehler when every recipient failed). No credit: ZuWenigKontingent until released.
 */
import { counted } from '../../count';
import type { SubscriberState } from '../contract';
import { DueQueue } from './due-queue';
import type { AccountState, JobRecord, LogPriority } from './model';
import type { ResolvedOptions } from './options';
import { appended, type Store } from './store';

export interface NewJob {
  typ: string;
  sender: string;
  caption: string;
  text: string;
  recipients: string[];
  segments: number;
  /** Price of one segment to one recipient. */
  unitPrice: number;
  binDataTyp?: string;
  binData?: string;
  priority?: number;
  favoredAt: number | null;
  /** Extra log lines written at creation (e.g. an ignored JobPriority). */
  notes?: Array<[LogPriority, string]>;
}

/** Job types a person can answer (text messages, not binary or HLR jobs). */
const TEXT_JOB = /^(Standart|Flash|HighQuality|AbsenderUeberAusland|NoSenderAusland)/;

/**
 * A string of its own. A value read from a request can be a view into the whole request text (V8 slices
 * strings of 13 characters or more): a job kept for hours would keep every request it came from alive.
 */
const own = (s: string): string => (s.length < 13 ? s : (' ' + s).slice(1));

/**
 * The log texts every job writes, made of a template and two numbers: made once per pair of numbers (one
 * flat string shared by all jobs, instead of a fresh chain of concatenations per job). Bounded.
 */
class LogTexts {
  private readonly byFirst = new Map<number, Map<number, string>>();
  private size = 0;

  constructor(private readonly make: (a: number, b: number) => string) {}

  get(a: number, b: number): string {
    let bySecond = this.byFirst.get(a);
    const known = bySecond?.get(b);
    if (known !== undefined) return known;
    if (this.size >= 4096) {
      this.byFirst.clear();
      this.size = 0;
      bySecond = undefined;
    }
    if (!bySecond) {
      bySecond = new Map();
      this.byFirst.set(a, bySecond);
    }
    const text = own(this.make(a, b));
    bySecond.set(b, text);
    this.size += 1;
    return text;
  }
}

const CREATED = new LogTexts(
  (r, s) => `Job created: ${counted(r, 'recipient')}, ${counted(s, 'segment')} each`,
);
const SENT = new LogTexts((sms, amount) => `Job sent: ${sms} SMS, ${amount} credits charged`);
const FINISHED = new LogTexts((ok, failed) => `Job finished: ${ok} delivered, ${failed} failed`);

export const roundCredits = (n: number): number => Math.round(n * 10_000) / 10_000;

const OUTCOME: Record<SubscriberState, { status: string; code: number; text: string }> = {
  ok: { status: 'DELIVERED', code: 0, text: 'Delivered' },
  unknown: { status: 'UNDELIV', code: 1, text: 'Unknown subscriber' },
  unreachable: { status: 'EXPIRED', code: 27, text: 'Absent subscriber' },
};

const HLR_RESULT: Record<SubscriberState, { status: number; necValue: string; gsmError: string }> = {
  ok: { status: 0, necValue: 'OK', gsmError: '0' },
  unknown: { status: 1, necValue: 'UNKNOWN_SUBSCRIBER', gsmError: '1' },
  unreachable: { status: 2, necValue: 'ABSENT_SUBSCRIBER', gsmError: '27' },
};

export class JobEngine {
  private readonly queue = new DueQueue();

  constructor(
    private readonly store: Store,
    private readonly opts: ResolvedOptions,
  ) {}

  /** Rebuilds the due queue after the state was loaded from a file. */
  reindex(): void {
    this.queue.clear();
    for (const job of this.store.jobs.values()) {
      if (job.dueAt !== null) this.queue.push(job.dueAt, job.id);
    }
  }

  available(state: AccountState): number {
    return roundCredits(state.account.balance - state.account.reserved);
  }

  create(state: AccountState, input: NewJob, now: number): JobRecord {
    const amount = roundCredits(input.unitPrice * input.segments * input.recipients.length);
    const job: JobRecord = {
      id: this.store.nextId('job'),
      user: state.account.user,
      custId: state.account.custId,
      typ: input.typ,
      sender: own(input.sender),
      caption: own(input.caption),
      text: own(input.text),
      status: 'Offen',
      recipients: input.recipients.map(own),
      segments: input.segments,
      amount,
      binDataTyp: input.binDataTyp ?? 'None',
      binData: input.binData ?? '',
      priority: input.priority ?? 0,
      favoredAt: input.favoredAt,
      createdAt: now,
      sentAt: null,
      changedAt: now,
      phase: 'send',
      dueAt: null,
      outcomes: [],
      reports: [],
      logs: [],
    };
    this.store.addJob(state, job);
    this.log(job, 'Info', CREATED.get(input.recipients.length, input.segments), now);
    for (const [priority, text] of input.notes ?? []) this.log(job, priority, text, now);
    if (this.available(state) >= amount) this.schedule(state, job, now);
    else this.waitForCredit(job, now);
    return job;
  }

  /** Runs every transition due at or before `now`, in time order. */
  tick(now: number): void {
    const queue = this.queue;
    while (queue.size > 0 && queue.nextAt() <= now) {
      const at = queue.nextAt();
      const job = this.store.jobs.get(queue.pop());
      if (job && job.dueAt === at) this.step(job, at);
    }
  }

  /** Releases jobs waiting for credit, oldest first, as far as the available balance reaches. */
  release(state: AccountState, now: number): void {
    for (const job of state.jobs) {
      if (job.phase === 'credit' && this.available(state) >= job.amount) this.schedule(state, job, now);
    }
  }

  /** Sends and completes every job that is waiting to be sent or delivered, at `now`. */
  finishAll(now: number): number {
    let finished = 0;
    for (const job of this.store.jobs.values()) {
      if (job.phase === 'send') {
        job.dueAt = now;
        this.step(job, now);
      }
      if (job.phase === 'deliver') {
        job.dueAt = now;
        this.step(job, now);
        finished += 1;
      }
    }
    return finished;
  }

  private schedule(state: AccountState, job: JobRecord, now: number): void {
    state.account.reserved = roundCredits(state.account.reserved + job.amount);
    job.phase = 'send';
    job.status = 'Offen';
    job.changedAt = now;
    const start = Math.max(now, job.favoredAt ?? now);
    this.due(job, start + this.opts.processingMs);
    if (start > now) this.log(job, 'Info', `Job scheduled for ${new Date(start).toISOString()}`, now);
  }

  private waitForCredit(job: JobRecord, now: number): void {
    job.phase = 'credit';
    job.status = 'ZuWenigKontingent';
    job.dueAt = null;
    job.changedAt = now;
    this.log(job, 'Warn', `Insufficient credits: ${job.amount} needed, job queued`, now);
  }

  private due(job: JobRecord, at: number): void {
    job.dueAt = at;
    this.queue.push(at, job.id);
  }

  private step(job: JobRecord, at: number): void {
    const state = this.store.get(job.user);
    if (!state) return;
    if (job.phase === 'send') this.send(state, job, at);
    else if (job.phase === 'deliver') this.deliver(state, job, at);
  }

  private send(state: AccountState, job: JobRecord, at: number): void {
    const account = state.account;
    account.reserved = roundCredits(Math.max(0, account.reserved - job.amount));
    if (account.balance < job.amount) {
      this.waitForCredit(job, at);
      return;
    }
    account.balance = roundCredits(account.balance - job.amount);
    job.phase = 'deliver';
    job.status = 'InBearbeitung';
    job.sentAt = at;
    job.changedAt = at;
    job.outcomes = job.recipients.map((r) => this.store.subscriberState(r));
    this.log(job, 'Info', SENT.get(job.recipients.length * job.segments, job.amount), at);
    this.due(job, at + this.opts.deliveryMs);
  }

  private deliver(state: AccountState, job: JobRecord, at: number): void {
    if (job.typ === 'HLR') this.hlrResults(state, job, at);
    else {
      this.reports(state, job, at);
      this.autoReply(state, job, at);
    }
    let failed = 0;
    for (const o of job.outcomes) if (o !== 'ok') failed += 1;
    job.phase = 'done';
    job.dueAt = null;
    job.status = failed > 0 && failed === job.recipients.length && job.typ !== 'HLR' ? 'Fehler' : 'Erledigt';
    job.changedAt = at;
    this.log(
      job,
      failed > 0 && job.typ !== 'HLR' ? 'Warn' : 'Info',
      FINISHED.get(job.recipients.length - failed, failed),
      at,
    );
  }

  private reports(state: AccountState, job: JobRecord, at: number): void {
    const { recipients } = job;
    for (let i = 0; i < recipients.length; i++) {
      const recipient = recipients[i]!;
      const outcome = OUTCOME[job.outcomes[i] ?? 'ok'];
      for (let sequence = 1; sequence <= job.segments; sequence++) {
        this.store.addReport(state, job, {
          id: this.store.nextId('report'),
          jobId: job.id,
          recipient,
          status: outcome.status,
          msgCode: outcome.code,
          msgText: outcome.text,
          at,
          sequence,
          caption: job.caption,
          createdAt: job.sentAt ?? at,
          unknownSubscriber: job.outcomes[i] === 'unknown',
        });
      }
    }
  }

  private hlrResults(state: AccountState, job: JobRecord, at: number): void {
    job.recipients.forEach((number, i) => {
      const outcome = job.outcomes[i] ?? 'ok';
      const r = HLR_RESULT[outcome];
      state.hlr.push({
        id: this.store.nextId('hlr'),
        jobId: job.id,
        status: r.status,
        ref: i + 1,
        number,
        networkType: outcome === 'unknown' ? '' : 'GSM',
        necValue: r.necValue,
        normNetCode: outcome === 'unknown' ? '' : this.opts.hlrNetworkCode,
        gsmError: r.gsmError,
        createdAt: job.createdAt,
        receivedAt: at,
        collected: false,
      });
    });
  }

  private autoReply(state: AccountState, job: JobRecord, at: number): void {
    const text = this.opts.autoReply;
    if (text === undefined || !TEXT_JOB.test(job.typ)) return;
    job.recipients.forEach((from, i) => {
      if ((job.outcomes[i] ?? 'ok') !== 'ok') return;
      const id = this.store.nextId('inbound');
      state.inbound.push({
        id,
        custId: job.custId,
        jobId: job.id,
        sender: from,
        to: job.sender,
        text,
        at,
        report: 0,
        collected: false,
      });
    });
  }

  log(job: JobRecord, priority: LogPriority, text: string, at: number): void {
    job.logs = appended(job.logs, {
      id: this.store.nextId('log'),
      custId: job.custId,
      jobId: job.id,
      priority,
      caption: job.caption,
      text,
      at,
    });
  }
}
