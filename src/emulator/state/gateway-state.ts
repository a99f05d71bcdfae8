/**
 * The emulator's business state: accounts, jobs and their life, reports, inbound messages, HLR results and
 * customers. Implements the wire layer's backend (invoke) and the control API (contract.ts).
 */
import { CATALOGUE, type Catalogue, type OperationDef } from '../../catalogue';
import type {
  CallContext,
  EmulatorControl,
  GatewayBackend,
  InboundInput,
  ParamValues,
  SubscriberState,
} from '../contract';
import { Duplicates } from './duplicates';
import type { OpEnv } from './env';
import { JobEngine, roundCredits } from './lifecycle';
import type { AccountState } from './model';
import { normalizeAddress } from './numbers';
import { handlersOf, type OperationHandler } from './operations';
import {
  captionMatchOf,
  resolveOptions,
  type CaptionMatch,
  type GatewayStateOptions,
  type ResolvedOptions,
} from './options';
import { StateFile } from './state-file';
import { Store } from './store';

/** What the wire layer's request log and reliability tests need to know about each job. */
export interface JobSummary {
  readonly id: number;
  readonly user: string;
  readonly caption: string;
  readonly recipients: readonly string[];
  readonly type: string;
  readonly status: string;
  readonly createdAt: Date;
}

const SUBSCRIBER_STATES: readonly SubscriberState[] = ['ok', 'unknown', 'unreachable'];
const TIME_KEY = /^(at|[a-z]+At)$/;

export class GatewayState implements GatewayBackend, EmulatorControl {
  private readonly opts: ResolvedOptions;
  private readonly store: Store;
  private readonly engine: JobEngine;
  private readonly duplicates: Duplicates;
  private readonly file: StateFile | undefined;
  private readonly listeners = new Set<() => void>();
  private captionMatch: CaptionMatch;
  /** The handler of each operation of the catalogue served, found once from its entry (operations.ts). */
  private readonly handlers: ReadonlyMap<OperationDef, OperationHandler>;
  private readonly catalogue: Catalogue;

  constructor(options: GatewayStateOptions = {}) {
    this.catalogue = options.catalogue ?? CATALOGUE;
    this.handlers = handlersOf(this.catalogue, options.logic);
    this.opts = resolveOptions(options);
    this.captionMatch = this.opts.captionMatch;
    this.store = new Store(this.opts.defaultCountryCode, this.opts.maxJobs);
    this.engine = new JobEngine(this.store, this.opts);
    this.duplicates = new Duplicates(this.opts.duplicateWindowMs);
    const path = this.opts.stateFile;
    const saved = path ? StateFile.load(path) : undefined;
    if (saved) {
      this.store.load(saved);
      this.engine.reindex();
    }
    const now = this.now();
    for (const seed of this.opts.accounts) if (!this.store.get(seed.user)) this.store.addAccount(seed, now);
    this.file = path ? new StateFile(path, this.opts.saveDelayMs, () => this.store.toPersisted()) : undefined;
    if (!saved) this.file?.changed();
  }

  /** The emulator's time: the injected clock plus everything advance() added. */
  now(): number {
    return this.opts.clock() + this.store.clockOffset;
  }

  invoke(op: OperationDef, params: ParamValues, ctx: CallContext): unknown {
    const handler = this.handlers.get(op) ?? this.handlerByName(op);
    if (!handler) throw new Error(`operation ${op.service}/${op.name} is not implemented by the emulator`);
    const now = this.now();
    this.engine.tick(now);
    const env: OpEnv = {
      store: this.store,
      engine: this.engine,
      opts: this.opts,
      duplicates: this.duplicates,
      captionMatch: this.captionMatch,
      now,
      ctx,
    };
    const result = handler(env, op, params);
    this.changed();
    return result;
  }

  /** An operation object made elsewhere (a copy of an entry) is found by its service and name. */
  private handlerByName(op: OperationDef): OperationHandler | undefined {
    const known = this.catalogue.find(op.service, op.name);
    return known && this.handlers.get(known);
  }

  // ---------- control

  injectInbound(input: InboundInput): { id: number } {
    if (typeof input.from !== 'string' || typeof input.text !== 'string') {
      throw new TypeError('injectInbound needs the strings from and text');
    }
    const state = this.account(input.user ?? this.opts.accounts[0]!.user);
    const now = this.catchUp();
    const job = input.jobId ? this.store.jobs.get(input.jobId) : undefined;
    const id = this.store.nextId('inbound');
    state.inbound.push({
      id,
      custId: state.account.custId,
      jobId: input.jobId ?? 0,
      sender: input.from,
      to: input.to ?? job?.sender ?? '',
      text: input.text,
      at: input.date?.getTime() ?? now,
      report: input.report ? 1 : 0,
      collected: false,
    });
    this.changed();
    return { id };
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0)
      throw new RangeError('advance() takes a non-negative number of milliseconds');
    this.store.clockOffset += ms;
    this.catchUp();
    this.changed();
  }

  finishJobs(): number {
    const finished = this.engine.finishAll(this.catchUp());
    this.changed();
    return finished;
  }

  setBalance(user: string, balance: number): void {
    if (!Number.isFinite(balance)) throw new RangeError('balance must be a finite number');
    const state = this.account(user);
    const now = this.catchUp();
    state.account.balance = roundCredits(balance);
    this.engine.release(state, now);
    this.changed();
  }

  lockAccount(user: string, locked: boolean): void {
    this.account(user).account.locked = locked;
    this.changed();
  }

  setIpAllowList(user: string, addresses: string[] | null): void {
    this.account(user).account.ipAllowList = addresses ? addresses.map(normalizeAddress) : null;
    this.changed();
  }

  setSubscriberState(number: string, state: SubscriberState): void {
    if (!SUBSCRIBER_STATES.includes(state))
      throw new RangeError(`subscriber state must be one of ${SUBSCRIBER_STATES.join(', ')}`);
    this.store.setSubscriber(number, state);
    this.changed();
  }

  setCaptionMatch(mode: CaptionMatch): void {
    this.captionMatch = captionMatchOf(mode);
  }

  getCaptionMatch(): CaptionMatch {
    return this.captionMatch;
  }

  /** Plain JSON of everything (times as ISO text), never a password. */
  snapshot(): unknown {
    this.catchUp();
    const data = {
      now: this.now(),
      subscribers: Object.fromEntries(this.store.subscribers),
      accounts: [...this.store.accounts.values()].map(({ reports: _reports, ...rest }) => rest),
    };
    return JSON.parse(
      JSON.stringify(data, (key: string, value: unknown) => {
        if (key === 'password') return undefined;
        if (key === 'now' || (TIME_KEY.test(key) && typeof value === 'number'))
          return new Date(value as number).toISOString();
        return value;
      }),
    ) as unknown;
  }

  /** Every job (of one account, or of all), oldest first. */
  jobs(user?: string): JobSummary[] {
    this.catchUp();
    const states = user === undefined ? [...this.store.accounts.values()] : [this.account(user)];
    return states
      .flatMap((s) => s.jobs)
      .sort((a, b) => a.id - b.id)
      .map((j) => ({
        id: j.id,
        user: j.user,
        caption: j.caption,
        recipients: [...j.recipients],
        type: j.typ,
        status: j.status,
        createdAt: new Date(j.createdAt),
      }));
  }

  /**
   * Calls `listener` after every operation and control call that may have changed the state (the sandbox
   * console watches it to push updates). Time passing alone does not call it. Returns the unsubscribe function.
   */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Writes the state file now (when there is one). */
  flush(): void {
    this.file?.flush();
  }

  /** Stops the save timer and writes pending changes. */
  close(): void {
    this.file?.flush();
  }

  private changed(): void {
    this.file?.changed();
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // an observer must never break an operation
      }
    }
  }

  private catchUp(): number {
    const now = this.now();
    this.engine.tick(now);
    return now;
  }

  private account(user: string): AccountState {
    const state = this.store.get(user);
    if (!state) throw new Error(`unknown account '${user}'`);
    return state;
  }
}
