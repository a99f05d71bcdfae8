/** All accounts and their records, id counters, subscriber states, and the state file's JSON shape. */
import type { SubscriberState } from '../contract';
import type { AccountSeed } from './options';
import type { AccountState, CustomerRecord, IdCounters, JobRecord, ReportRecord } from './model';
import { DEFAULT_MAX_JOBS } from './options';
import { normalizeNumber } from './numbers';

export const STATE_FILE_VERSION = 1;

export interface PersistedState {
  version: number;
  clockOffset: number;
  ids: IdCounters;
  subscribers: Record<string, SubscriberState>;
  accounts: Array<Omit<AccountState, 'reports'>>;
}

export class Store {
  readonly accounts = new Map<string, AccountState>();
  readonly jobs = new Map<number, JobRecord>();
  /** Numbers (normalized) that fail; absent means 'ok'. */
  readonly subscribers = new Map<string, SubscriberState>();
  ids: IdCounters = { job: 100000, report: 0, log: 0, inbound: 0, hlr: 0, customer: 1000 };
  clockOffset = 0;
  /** Job count of each account at which its finished jobs are next trimmed (absent: maxJobs plus the slack). */
  private readonly trimAt = new WeakMap<AccountState, number>();
  /** Jobs trimmed at once beyond maxJobs: a tenth of it, so each job pays for a tenth of one pass. */
  private readonly slack: number;

  constructor(
    readonly countryCode: string,
    readonly maxJobs: number = DEFAULT_MAX_JOBS,
  ) {
    this.slack = Math.max(1, Math.floor(maxJobs / 10));
  }

  nextId(kind: keyof IdCounters): number {
    this.ids[kind] += 1;
    return this.ids[kind];
  }

  get(user: string | undefined): AccountState | undefined {
    return user === undefined ? undefined : this.accounts.get(user);
  }

  bySerial(serial: string | undefined): AccountState | undefined {
    if (serial === undefined) return undefined;
    for (const s of this.accounts.values()) if (s.account.serial === serial) return s;
    return undefined;
  }

  addAccount(seed: AccountSeed, now: number): AccountState {
    const custId = this.nextId('customer');
    const own: CustomerRecord = {
      id: custId,
      resId: 0,
      fields: {
        CompanyName: seed.companyName ?? `${seed.user} (emulator)`,
        ContactPerson: seed.user,
        SMSCSerial: seed.serial ?? seed.user,
        EMail: `${seed.user}@example.invalid`,
        Country: 'DE',
      },
      password: '',
      createdAt: now,
      authUser: userFor(custId, seed.user, `${seed.user}@example.invalid`, now),
    };
    const state: AccountState = {
      account: {
        user: seed.user,
        password: seed.password,
        serial: seed.serial ?? seed.user,
        custId,
        balance: seed.balance ?? 100,
        reserved: 0,
        locked: seed.locked ?? false,
        ipAllowList: seed.ipAllowList ?? null,
        priorityEnabled: seed.priorityEnabled ?? false,
        createdAt: now,
      },
      jobs: [],
      reports: [],
      inbound: [],
      hlr: [],
      customers: [own],
    };
    this.accounts.set(seed.user, state);
    return state;
  }

  addJob(state: AccountState, job: JobRecord): void {
    state.jobs.push(job);
    this.jobs.set(job.id, job);
    if (state.jobs.length > (this.trimAt.get(state) ?? this.maxJobs + this.slack)) this.trim(state);
  }

  /**
   * Forgets the oldest finished jobs beyond maxJobs with everything kept by their id (reports, logs inside the
   * job, HLR results); pending and queued jobs stay. One pass over the account's lists per batch of `slack`
   * jobs; when too few jobs are finished, the next pass waits for another batch, so it is never a scan per job.
   */
  trim(state: AccountState): void {
    const jobs = state.jobs;
    let excess = jobs.length - this.maxJobs;
    const gone = new Set<number>();
    let kept = 0;
    for (const job of jobs) {
      if (excess > 0 && job.phase === 'done') {
        gone.add(job.id);
        this.jobs.delete(job.id);
        excess -= 1;
      } else jobs[kept++] = job;
    }
    jobs.length = kept;
    this.trimAt.set(state, Math.max(kept, this.maxJobs) + this.slack);
    if (gone.size === 0) return;
    keepOnly(state.reports, (r) => !gone.has(r.jobId));
    keepOnly(state.hlr, (h) => !gone.has(h.jobId));
  }

  /** Keeps `reports` sorted by time: appends in the usual case, inserts when a report is older than the last. */
  addReport(state: AccountState, job: JobRecord, report: ReportRecord): void {
    job.reports = appended(job.reports, report);
    const list = state.reports;
    const last = list[list.length - 1];
    if (!last || last.at <= report.at) {
      list.push(report);
      return;
    }
    list.splice(firstIndexAtOrAfter(list, report.at + 1), 0, report);
  }

  subscriberState(number: string): SubscriberState {
    if (this.subscribers.size === 0) return 'ok';
    return this.subscribers.get(normalizeNumber(number, this.countryCode)) ?? 'ok';
  }

  setSubscriber(number: string, state: SubscriberState): void {
    const key = normalizeNumber(number, this.countryCode);
    if (state === 'ok') this.subscribers.delete(key);
    else this.subscribers.set(key, state);
  }

  toPersisted(): PersistedState {
    return {
      version: STATE_FILE_VERSION,
      clockOffset: this.clockOffset,
      ids: { ...this.ids },
      subscribers: Object.fromEntries(this.subscribers),
      accounts: [...this.accounts.values()].map(({ reports: _reports, ...rest }) => rest),
    };
  }

  load(data: PersistedState): void {
    if (data.version !== STATE_FILE_VERSION || !Array.isArray(data.accounts)) {
      throw new Error(`unsupported emulator state file (version ${String(data.version)})`);
    }
    this.clockOffset = data.clockOffset ?? 0;
    this.ids = { ...this.ids, ...data.ids };
    this.subscribers.clear();
    for (const [k, v] of Object.entries(data.subscribers ?? {})) this.subscribers.set(k, v);
    this.accounts.clear();
    this.jobs.clear();
    for (const a of data.accounts) {
      const state: AccountState = { ...a, reports: [] };
      for (const job of state.jobs) {
        this.jobs.set(job.id, job);
        state.reports.push(...job.reports);
      }
      state.reports.sort((x, y) => x.at - y.at || x.id - y.id);
      this.accounts.set(state.account.user, state);
      if (state.jobs.length > this.maxJobs) this.trim(state);
    }
  }
}

/**
 * `list` with `item` at the end. The first few lists are new literals of the exact length: push() on a short
 * array reserves 17 slots, and every job keeps its (usually three) logs and (usually one) report for good.
 */
export function appended<T>(list: T[], item: T): T[] {
  switch (list.length) {
    case 0:
      return [item];
    case 1:
      return [list[0]!, item];
    case 2:
      return [list[0]!, list[1]!, item];
    default:
      list.push(item);
      return list;
  }
}

export function userFor(
  custId: number,
  name: string,
  email: string,
  now: number,
): CustomerRecord['authUser'] {
  return {
    id: custId,
    custId,
    firstName: '',
    lastName: name,
    email,
    phone: '',
    locked: 0,
    createdAt: now,
    changedAt: now,
  };
}

/** Removes, in place and in one pass, the items `keep` rejects (the order of the others stays). */
function keepOnly<T>(list: T[], keep: (item: T) => boolean): void {
  let kept = 0;
  for (const item of list) if (keep(item)) list[kept++] = item;
  list.length = kept;
}

/** Index of the first report with `at >= time` (binary search). */
export function firstIndexAtOrAfter(list: readonly ReportRecord[], time: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.at < time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
