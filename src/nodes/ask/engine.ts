/**
 * The open questions of one gateway configuration and what happens to them, without Node-RED: the
 * hub (hub.ts) gives it a store, the authority (which instance acts), a sender and the ask nodes' outputs.
 *
 * Every change of a question is written to the store before anything follows from it (an SMS, an output):
 *   - a step: the SMS is written down as planned, with its reference, then sent; after a crash a planned SMS is
 *     looked up by its reference (or waited for in the outbox) before it is sent again: each step once;
 *   - an answer: the question is written as answered, then output 1 is sent, then it is noted as emitted; a crash
 *     in between may repeat the output, never lose it (the window of the inbound trigger);
 *   - the wait of a step is a time in the store (stepAt + waitMs): after a restart it ends when it would have.
 * Only the holder acts (one instance; under Redis coordination the one reading the gateway's inbound messages);
 * its writes are fenced by its hold. All changes run one at a time.
 *
 * A store that cannot write (disk full, EIO, the file's path taken by a directory): the change stays in memory
 * and the engine waits for it to be written (the store tries again on its own), so nothing follows from it, no SMS
 * and no output, and no other change runs meanwhile: no step timer can pass on a question whose answer waits to
 * be saved. Once it is written the engine carries on from exactly there. A reply taken while the store cannot
 * write is kept by the reader (take() rejects as soon as the store says it cannot write) and offered again; its
 * key is remembered, so the reply is applied once: the reader drops it once the change it made is on disk. If
 * Node-RED stops meanwhile, the file still holds the question as it was and the reader still owes the reply,
 * which answers it after the restart (steps overdue then wait for the first read of replies).
 * Why this rather than changing a copy and keeping it only once saved: a copy kept aside would let the step timer
 * move the question on from the old state while the answer waits, and the order of the two would depend on
 * which write the disk takes first.
 */
import { randomBytes } from 'node:crypto';
import { counted } from '../../count';
import { createReference } from '../../reliability/reference';
import { safeText } from '../../text/untrusted';
import { StoreWriteError } from '../../store';
import { freeCode, recentlyFreed, REUSE_AFTER_MS } from './codes';
import { parseReply } from './grammar';
import { IgnoredReplies } from './ignored-replies';
import { lastJobId, matchReply, type Reply } from './match';
import { CLAIMED_BY_ASK, type ClaimMarks } from './replies';
import {
  askedKeys,
  isClosed,
  resolvable,
  stepIndex,
  totalSteps,
  type AskSms,
  type CancelRequest,
  type Question,
} from './question';
import type { AskStore, Hold } from './store';
import {
  cancelText,
  lateText,
  resolvedText,
  stepText,
  tellText,
  updateText,
  whichText,
  type StepReason,
} from './texts';

/** Which instance acts: always this one, or the holder of a lease. */
export interface Authority {
  current(): Hold | undefined;
  isCurrent(hold: Hold): boolean;
  onAcquired(listener: () => void): void;
  onLost(listener: () => void): void;
  /** Stops telling (the engine closes; the lease itself may live on for others). */
  dispose?(): void;
}

/** What the engine needs of an ask node. */
export interface AskNodeHandle {
  /** Output 1 (answered), 2 (unanswered) or 3 (resolved), with q.result and q.resolution as msg.ask. */
  output(q: Question): void;
  /** A message of the question was refused for good (its Catch node hears it). */
  failed(q: Question, sms: AskSms, err: unknown): void;
  /** The node's open questions changed (its status). */
  changed(): void;
  /** A msg was dropped: its dedupe key is in its quiet time (one log line on the node). */
  quiet?(q: Question, until: number): void;
}

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface EngineDeps {
  store: AskStore;
  authority: Authority;
  /**
   * Sends one SMS of a question. `resume`: it was planned before this holder took over and may have gone out
   * (look its reference up first, or wait for its outbox entry). Resolves with the JobId; rejects when it is
   * refused for good, or when `signal` aborts (then it stays planned).
   */
  send(q: Question, sms: AskSms, resume: boolean, signal: AbortSignal): Promise<number | undefined>;
  /** The key a number is compared by (numbers.ts). */
  numberKey(text: string): string;
  /** One line in the log. */
  warn(text: string): void;
  /** Overdue steps found when taking over wait for this (the first read), so a reply sent meanwhile counts. */
  firstRead?(): Promise<void>;
  /** How often the holder looks for questions handed in by other instances (coordinated; 0 = only on kick). */
  inboxEveryMs?: number;
  clock?: Clock;
  /** Reference length (the config's, default 10). */
  referenceLength?: number;
}

/** Longest timer: a far step is looked at again after this (timers drift; the store has the time). */
const MAX_TIMER_MS = 60_000;
/** A question whose node has not come back this long after it would have ended is dropped. */
export const AWAY_MS = 7 * 86_400_000;
/** Longest wait for the first read before overdue steps go. */
const FIRST_READ_WAIT_MS = 10_000;
/** Keys of replies taken, remembered so one offered again (its change was not on disk yet) is applied once. */
const MAX_APPLIED = 2000;
/**
 * An answered question is kept (closed, its code still in use) this long after it was answered, so a late
 * acknowledger gets "Already taken by" rather than silence; then its code is freed as before.
 */
export const LATE_KEEP_MS = REUSE_AFTER_MS;
/** The reply limiter's defaults: at most 5 answers to one number per 10 minutes. */
export const REPLY_LIMIT = 5;
export const REPLY_WINDOW_MS = 10 * 60_000;

/** Until when a closed question is kept: a late reply's window, and its answers while the limiter counts them. */
function keptUntil(q: Question): number {
  let until = q.state === 'answered' ? (q.closedAt ?? 0) + LATE_KEEP_MS : 0;
  // An acknowledged question can still be resolved (by a msg or a reply) for a while.
  if (q.state === 'answered' && q.settings.resolveWithinMs !== undefined)
    until = Math.max(until, (q.closedAt ?? 0) + q.settings.resolveWithinMs);
  // Its dedupe key's quiet time: kept (in the store, so across restarts and instances) until it ends.
  const quiet = quietUntil(q);
  if (quiet !== undefined) until = Math.max(until, quiet);
  const window = q.settings.replyWindowMs ?? REPLY_WINDOW_MS;
  for (const s of q.sms) if (s.kind === 'answer') until = Math.max(until, s.at + window);
  return until;
}

class NotHolder extends Error {}

export class AskEngine {
  private readonly questions = new Map<string, Question>();
  private freed: Record<string, number> = {};
  private hold: Hold | undefined;
  private readonly nodes = new Map<string, AskNodeHandle>();
  private readonly sending = new Map<string, AbortController>();
  private chain: Promise<void> = Promise.resolve();
  private timer: unknown;
  private inboxTimer: unknown;
  private closed = false;
  private readonly clock: Clock;
  /** After a take-over, steps that ended meanwhile wait for the first read of replies (or FIRST_READ_WAIT_MS). */
  private readDone = true;
  /** The lines about ignored replies: one per number per minute. */
  private readonly ignored: IgnoredReplies;
  /** Keys of the replies applied by this holder (oldest first), with what was marked on each. */
  private readonly applied = new Map<string, ClaimMarks | undefined>();
  /** How many questions each cancel or resolve applied here closed, until its sender asks. */
  private readonly outcomes = new Map<string, number>();
  /** Cancels and resolves handed in here whose sender waits for the outcome (it reports a miss, not the engine). */
  private readonly waiting = new Set<string>();

  constructor(private readonly deps: EngineDeps) {
    this.clock = deps.clock ?? realClock;
    this.ignored = new IgnoredReplies((line) => deps.warn(line), this.clock);
    deps.authority.onAcquired(() => void this.run(() => this.takeOver()));
    deps.authority.onLost(() => void this.run(async () => this.drop()));
  }

  /** Starts acting if this instance is the holder now (else when it becomes it). */
  start(): Promise<void> {
    return this.run(() => this.takeOver());
  }

  get holding(): boolean {
    return this.hold !== undefined && this.deps.authority.isCurrent(this.hold);
  }

  /** Open questions (asked, not yet closed) of a node, or of every node; only the holder knows them. */
  open(node?: string): Question[] {
    return [...this.questions.values()].filter(
      (q) => (node === undefined || q.node === node) && (q.state === 'open' || q.state === 'new'),
    );
  }

  /**
   * Whether replies are still awaited: a question open, or one kept closed for late replies (an hour after it was
   * answered) or for the reply limiter's count.
   */
  get listening(): boolean {
    return this.questions.size > 0;
  }

  register(nodeId: string, handle: AskNodeHandle): void {
    this.nodes.set(nodeId, handle);
    void this.run(async () => {
      if (!this.holding) return;
      for (const q of [...this.questions.values()]) if (q.node === nodeId) await this.advance(q);
      this.schedule();
    });
  }

  /** The node stopped; `removed` (deleted): its questions are dropped without output. */
  unregister(nodeId: string, removed: boolean): Promise<void> {
    this.nodes.delete(nodeId);
    if (!removed) return Promise.resolve();
    return this.run(async () => {
      if (!this.holding) return;
      const gone = [...this.questions.values()].filter((q) => q.node === nodeId);
      for (const q of gone) {
        for (const s of q.sms) this.sending.get(s.reference)?.abort();
        await this.remove(q);
      }
      if (gone.length > 0)
        this.deps.warn(`${counted(gone.length, 'open question')} of a deleted ask node dropped`);
    });
  }

  /** Hands in a new question; resolves once it is durable. The holder starts it. */
  async ask(q: Question): Promise<void> {
    await this.deps.store.submit(q);
    void this.run(() => this.readInbox());
  }

  /**
   * Hands in a cancel or resolve; resolves once it is durable and, when this instance holds the questions, applied:
   * with how many questions it closed (undefined: another instance applies it).
   */
  async cancel(c: CancelRequest): Promise<number | undefined> {
    this.waiting.add(c.key);
    try {
      await this.deps.store.requestCancel(c);
      await this.run(() => this.readInbox());
      return this.outcomes.get(c.key);
    } finally {
      this.waiting.delete(c.key);
      this.outcomes.delete(c.key);
    }
  }

  /**
   * Replies from the gateway, in order. Resolves once what they changed is durable; rejects when not the holder,
   * and as soon as the store cannot write (the reader keeps them and offers them again; a reply applied already
   * is recognised by its key then, and not applied twice).
   */
  take(replies: readonly Reply[]): Promise<(ClaimMarks | undefined)[]> {
    const store = this.deps.store;
    if (store.problem) {
      // Each offer tries the disk again (the store retries on its own too, ever less often).
      void store.retryNow?.();
      return Promise.reject(new StoreWriteError(store.problem));
    }
    // A reply that answered a question is marked for the listeners after the hub (they skip it by default).
    const marks: (ClaimMarks | undefined)[] = [];
    const work = this.run(async () => {
      marks.length = 0;
      if (!this.holding) throw new NotHolder('this instance does not hold the questions now');
      for (const r of replies) {
        if (this.applied.has(r.key)) {
          marks.push(this.applied.get(r.key));
          continue;
        }
        this.remember(r.key, undefined);
        const m = await this.answer(r);
        this.remember(r.key, m);
        marks.push(m);
      }
      this.schedule();
    }, true).then(() => marks);
    if (!store.watch) return work;
    return new Promise<(ClaimMarks | undefined)[]>((resolve, reject) => {
      const off = store.watch!((problem) => {
        if (problem) reject(new StoreWriteError(problem));
      });
      work.then(resolve, reject).finally(off);
    });
  }

  private remember(key: string, marks: ClaimMarks | undefined): void {
    this.applied.set(key, marks);
    if (this.applied.size > MAX_APPLIED) this.applied.delete(this.applied.keys().next().value!);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.ignored.close();
    this.deps.authority.dispose?.();
    // A change waiting for a store that cannot write gets one last try; if it fails, what waited for it stops
    // (the file keeps the questions as they were: the replies not on disk are offered again after the restart).
    if (this.deps.store.close) await this.deps.store.close().catch(() => undefined);
    await this.run(async () => this.drop());
    await this.deps.store.flush().catch(() => undefined);
  }

  /** Runs `work` after the changes before it; errors are logged (or, with `rethrow`, given to the caller). */
  private run(work: () => Promise<void>, rethrow = false): Promise<void> {
    const next = this.chain.then(work);
    this.chain = next.catch((err: unknown) => {
      if (err instanceof NotHolder) return this.drop();
      // The store told it already (once), and tries again on its own.
      if (err instanceof StoreWriteError) return;
      this.deps.warn(`ask: ${safeText(err instanceof Error ? err.message : err, 2000)}`);
    });
    return rethrow ? next : this.chain;
  }

  private now(): number {
    return this.clock.now();
  }

  private async takeOver(): Promise<void> {
    if (this.closed) return;
    const hold = this.deps.authority.current();
    if (!hold) return;
    if (this.hold && this.deps.authority.isCurrent(this.hold)) return;
    this.drop();
    const state = await this.deps.store.load();
    if (!this.deps.authority.isCurrent(hold)) return;
    this.hold = hold;
    this.freed = recentlyFreed(state.freed, this.now());
    for (const q of state.questions) this.questions.set(q.id, q);
    if (this.deps.firstRead) {
      // Not awaited here: the read hands its replies to take(), which runs after this.
      this.readDone = false;
      let timer: unknown;
      void Promise.race([
        this.deps.firstRead().catch(() => undefined),
        new Promise<void>((resolve) => (timer = this.clock.setTimeout(resolve, FIRST_READ_WAIT_MS))),
      ]).then(() => {
        this.clock.clearTimeout(timer);
        void this.run(async () => {
          if (this.hold !== hold || !this.holding) return;
          this.readDone = true;
          for (const q of [...this.questions.values()]) await this.advance(q);
          this.schedule();
        });
      });
    }
    // What this holder's predecessor planned may have gone out: each is looked up before it is sent again.
    for (const q of this.questions.values())
      for (const s of q.sms) if (s.state === 'planned') this.launch(q, s, true);
    await this.readInbox();
    for (const q of [...this.questions.values()]) await this.advance(q);
    this.schedule();
    this.changed();
    const every = this.deps.inboxEveryMs ?? 0;
    if (every > 0) {
      const tick = (): void => {
        this.inboxTimer = undefined;
        if (!this.holding || this.closed) return;
        void this.run(() => this.readInbox()).then(() => {
          if (this.holding && !this.closed) this.inboxTimer = this.clock.setTimeout(tick, every);
        });
      };
      this.inboxTimer = this.clock.setTimeout(tick, every);
    }
  }

  /** Lost the hold (or closing): forget everything; whoever holds next loads it from the store. */
  private drop(): void {
    this.hold = undefined;
    // The next holder loads the questions as the store has them: replies not on disk are offered again.
    this.applied.clear();
    for (const c of this.sending.values()) c.abort();
    this.sending.clear();
    this.questions.clear();
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    if (this.inboxTimer !== undefined) this.clock.clearTimeout(this.inboxTimer);
    this.timer = this.inboxTimer = undefined;
    this.changed();
  }

  private heldOrThrow(): Hold {
    if (!this.hold || !this.deps.authority.isCurrent(this.hold)) throw new NotHolder('the hold was lost');
    return this.hold;
  }

  private async save(q: Question, taken = false): Promise<void> {
    if (!(await this.deps.store.put(this.heldOrThrow(), q, taken))) throw new NotHolder('the hold was lost');
  }

  private async remove(q: Question): Promise<void> {
    const at = this.now();
    if (!(await this.deps.store.remove(this.heldOrThrow(), q, at))) throw new NotHolder('the hold was lost');
    this.questions.delete(q.id);
    if (q.code) this.freed = { ...recentlyFreed(this.freed, at), [q.code]: at };
    this.nodes.get(q.node)?.changed();
  }

  /** New questions and cancellations handed in (by this or another instance). */
  private async readInbox(): Promise<void> {
    if (!this.holding) return;
    const { questions, cancels } = await this.deps.store.inbox();
    for (const q of questions.sort((a, b) => a.createdAt - b.createdAt)) {
      if (this.questions.has(q.id)) continue;
      if (await this.dedupe(q)) continue;
      q.state = 'new';
      this.questions.set(q.id, q);
      await this.save(q, true);
    }
    for (const c of cancels.sort((a, b) => a.at - b.at)) {
      await this.applyCancel(c);
      await this.deps.store.cancelDone(this.heldOrThrow(), c.key);
    }
    for (const q of questions) {
      const now = this.questions.get(q.id);
      if (now && now.state === 'new') await this.advance(now);
    }
    this.schedule();
  }

  /**
   * A question handed in whose dedupe key is open (still asking, or acknowledged and resolvable) updates that one
   * (its text, msg and count; whoever holds it is texted when set and the text changed); in its key's quiet time
   * it is dropped. Either way it leaves the inbox and nothing is asked. False: it asks.
   */
  private async dedupe(q: Question): Promise<boolean> {
    if (q.dedupe === undefined) return false;
    const now = this.now();
    const same = [...this.questions.values()].filter((o) => o.node === q.node && o.dedupe === q.dedupe);
    const open = same.filter((o) => resolvable(o, now)).sort((a, b) => b.createdAt - a.createdAt)[0];
    if (open) {
      const changed = open.question !== q.question;
      open.question = q.question;
      open.msg = q.msg;
      open.updates = (open.updates ?? 0) + 1;
      open.updatedAt = now;
      const notes: AskSms[] = [];
      if (changed && q.settings.tellUpdate && open.state !== 'new') {
        const holder =
          open.state === 'answered'
            ? open.result?.from
            : open.numbers[stepIndex(open, Math.max(0, open.step))];
        if (holder) notes.push(this.plan(open, 'update', holder, updateText(open), false));
      }
      open.sms.push(...notes);
      await this.save(open);
      await this.deps.store.remove(this.heldOrThrow(), q, now);
      for (const s of notes) this.launch(open, s, false);
      this.nodes.get(open.node)?.changed();
      return true;
    }
    const until = Math.max(0, ...same.map((o) => quietUntil(o) ?? 0));
    if (until > now) {
      await this.deps.store.remove(this.heldOrThrow(), q, now);
      const node = this.nodes.get(q.node);
      if (node?.quiet) node.quiet(q, until);
      else
        this.deps.warn(`ask: a msg with dedupe key "${safeText(q.dedupe, 60)}" dropped: in its quiet time`);
      return true;
    }
    return false;
  }

  private plan(
    q: Question,
    kind: AskSms['kind'],
    to: string,
    text: string,
    critical: boolean,
    step?: number,
  ): AskSms {
    return {
      kind,
      ...(step !== undefined ? { step } : {}),
      to,
      text,
      reference: createReference(this.deps.referenceLength ?? 10),
      critical: critical || q.settings.priority === 'critical',
      state: 'planned',
      at: this.now(),
    };
  }

  /** Moves a question on as far as it can go now. */
  private async advance(q: Question): Promise<void> {
    const node = this.nodes.get(q.node);
    const now = this.now();
    if (isClosed(q) && done(q) && q.sms.every((s) => s.state !== 'planned') && now >= keptUntil(q)) {
      await this.remove(q);
      return;
    }
    if (!node) {
      // Its node is not running here: kept (its outputs need it) until long after it would have ended.
      if (now > q.createdAt + totalSteps(q) * q.settings.waitMs + AWAY_MS) {
        await this.remove(q);
        this.deps.warn(
          `ask: question ${q.id} dropped: its node has not run for ${AWAY_MS / 86_400_000} days`,
        );
      }
      return;
    }
    if (q.state === 'new') await this.begin(q);
    // A step that ended while no one held the questions waits for the first read: a reply may answer it.
    if (q.state === 'open' && now >= q.stepAt + q.settings.waitMs && this.readDone) await this.nextStep(q);
    if ((q.state === 'answered' || q.state === 'unanswered') && !q.emitted) {
      node.output(q);
      q.emitted = true;
      await this.save(q);
    }
    if (q.state === 'resolved' && q.resolution && !q.resolution.emitted) {
      node.output(q);
      q.resolution.emitted = true;
      await this.save(q);
    }
    if (isClosed(q) && done(q) && q.sms.every((s) => s.state !== 'planned') && this.now() >= keptUntil(q))
      await this.remove(q);
    node.changed();
  }

  private async begin(q: Question): Promise<void> {
    // A closed question still kept (a late reply may name it) keeps its code.
    const inUse = new Set([...this.questions.values()].flatMap((o) => (o.code ? [o.code] : [])));
    q.code = freeCode(inUse, this.freed, this.now());
    q.state = 'open';
    q.step = 0;
    q.stepAt = this.now();
    const first = q.settings.priority === 'critical';
    const sms = this.plan(q, 'ask', q.numbers[0]!, stepText(q, 0, undefined), first, 0);
    q.sms.push(sms);
    await this.save(q);
    this.launch(q, sms, false);
  }

  /** The next step (or output 2 after the last); `reason`: passed on by a reply, else its wait ended. */
  private async nextStep(q: Question, reason?: StepReason): Promise<void> {
    const now = this.now();
    const steps = totalSteps(q);
    if (q.step + 1 < steps) {
      const step = q.step + 1;
      const previous = q.numbers[stepIndex(q, q.step)];
      const to = q.numbers[stepIndex(q, step)]!;
      const why: StepReason = reason ?? { why: 'wait', from: previous ?? '' };
      const sms = this.plan(q, 'ask', to, stepText(q, step, why), q.settings.critical, step);
      q.step = step;
      q.stepAt = now;
      q.sms.push(sms);
      await this.save(q);
      this.launch(q, sms, false);
      return;
    }
    q.state = 'unanswered';
    q.closedAt = now;
    const last = q.keys[stepIndex(q, q.step)]!;
    q.result = { answer: '', from: '', step: steps, afterMs: now - q.createdAt, jobId: lastJobId(q, last) };
    await this.save(q);
  }

  /** Applies one reply; what to mark on it when it answered a question (acknowledged or passed it on). */
  private async answer(r: Reply): Promise<ClaimMarks | undefined> {
    const key = this.deps.numberKey(r.from);
    const resolving = this.resolveOf(r, key);
    if (resolving) {
      await this.resolve(resolving, '', key);
      this.schedule();
      return claimOf(resolving, 'resolve');
    }
    const m = matchReply(r, key, [...this.questions.values()]);
    if ('none' in m) {
      const answered = await this.answerPerson(r, key, m.none);
      if (answered) return answered;
      // The number and the text are the phone's: one short line each, at most one line per number a minute.
      const from = safeText(r.from, 40);
      if (m.none === 'noCode')
        this.ignored.note(
          key,
          from,
          `ask: a reply from ${from} names no code while ${m.open} questions are open for it`,
        );
      else if (m.none === 'otherJob')
        this.ignored.note(
          key,
          from,
          `ask: a reply from ${from} answers another message (JobId ${r.jobId}), not question ${m.question!.code}`,
        );
      else if (m.none === 'notAccepted')
        this.ignored.note(
          key,
          from,
          `ask: "${safeText(r.text, 40)}" from ${from} is not an accepted answer to ` +
            (m.question ? `question ${m.question.code}` : 'its open questions'),
        );
      return undefined;
    }
    if ('all' in m) {
      // `1*`: every open question of this number, one after the other.
      for (const one of m.all) await this.acknowledge(one.question, key, m.answer, one.jobId);
      return claimOfAll(m.all.map((one) => one.question));
    }
    const q = m.question;
    const marks = claimOf(q, m.action);
    if (m.action === 'pass') {
      // Only the number asked now can pass it on (an earlier one's "pass" came late: it went on already).
      if (q.keys[stepIndex(q, q.step)] !== key) return marks;
      await this.nextStep(q, { why: 'pass', from: q.numbers[q.keys.indexOf(key)]! });
      await this.advance(q);
      return marks;
    }
    await this.acknowledge(q, key, m.answer, m.jobId);
    return marks;
  }

  /**
   * A reply that answered no open question may still get one short answer: a late acknowledger "Already taken by
   * ... at 03:12" (a question answered by someone else within LATE_KEEP_MS), a reply without a code from a number
   * with several open questions "Which one? Reply 1a or 1b". A number never asked gets nothing. Each answer is
   * written with its question before it is sent (the reply's key with it: a reply offered again gets none), and
   * counted by the reply limiter. The marks when it was such a reply (the inbound triggers skip it), else undefined.
   */
  private async answerPerson(
    r: Reply,
    key: string,
    why: 'stranger' | 'noCode' | 'otherJob' | 'notAccepted',
  ): Promise<ClaimMarks | undefined> {
    const all = [...this.questions.values()];
    const late = lateQuestion(r, key, all, why === 'stranger');
    if (late) {
      const marks = claimOf(late, 'late');
      // The one who took it, or a node that does not answer late ones: marked, not answered.
      if (late.keys[late.numbers.indexOf(late.result?.from ?? '')] === key) return marks;
      if (late.settings.tellLate === false) return marks;
      await this.answerWith(late, key, r, lateText(late), 'a late acknowledgement');
      return marks;
    }
    if (why !== 'noCode') return undefined;
    const open = all.filter((q) => q.state === 'open' && askedKeys(q).has(key));
    const read = open
      .map((q) => parseReply(r.text, { ack: q.settings.ack, pass: q.settings.pass }, () => false))
      .find((p) => p !== undefined);
    // Only a reply that is an answer (acknowledge or pass on) is asked back; anything else is left alone.
    if (!read || open.length < 2) return undefined;
    const newest = open.reduce((a, b) => (b.createdAt > a.createdAt ? b : a));
    const word = read.action === 'pass' ? newest.settings.pass[0] : newest.settings.ack[0];
    const text = whichText(word ?? '', open.map((q) => q.code ?? '').sort(codeOrder));
    await this.answerWith(newest, key, r, text, 'a reply without a code');
    return claimOf(newest, 'which');
  }

  /** Plans, writes and sends one answer to `key` with `q`, unless the reply had one or the limiter says no. */
  private async answerWith(q: Question, key: string, r: Reply, text: string, what: string): Promise<void> {
    const all = [...this.questions.values()];
    if (all.some((o) => o.sms.some((s) => s.kind === 'answer' && s.replyKey === r.key))) return;
    const limit = q.settings.replyLimit ?? REPLY_LIMIT;
    const windowMs = q.settings.replyWindowMs ?? REPLY_WINDOW_MS;
    const since = this.now() - windowMs;
    let given = 0;
    for (const o of all)
      for (const s of o.sms)
        if (s.kind === 'answer' && s.at > since && this.deps.numberKey(s.to) === key) given++;
    if (given >= limit) {
      const from = safeText(r.from, 40);
      this.ignored.note(
        key,
        from,
        `ask: no answer to ${what} from ${from}: ${counted(given, 'answer')} to it in the last ` +
          `${Math.round(windowMs / 60_000)} min already (the reply limiter)`,
      );
      return;
    }
    const sms = this.plan(q, 'answer', q.numbers[q.keys.indexOf(key)]!, text, false);
    sms.replyKey = r.key;
    q.sms.push(sms);
    await this.save(q);
    this.launch(q, sms, false);
  }

  /** `key` acknowledged `q`: it is answered (output 1), the others are told as set. */
  private async acknowledge(
    q: Question,
    key: string,
    answer: string,
    jobId: number | undefined,
  ): Promise<void> {
    const now = this.now();
    const at = q.keys.indexOf(key);
    q.state = 'answered';
    q.closedAt = now;
    q.result = {
      answer,
      from: q.numbers[at]!,
      step: q.step + 1,
      afterMs: now - q.createdAt,
      jobId,
    };
    const tells: AskSms[] = [];
    if (q.settings.tell !== 'none') {
      const to = q.settings.tell === 'all' ? new Set(q.keys) : askedKeys(q);
      to.delete(key);
      const text = tellText(q, q.numbers[at]!, answer);
      for (const k of to) tells.push(this.plan(q, 'tell', q.numbers[q.keys.indexOf(k)]!, text, false));
    }
    q.sms.push(...tells);
    await this.save(q);
    for (const s of tells) this.launch(q, s, false);
    await this.advance(q);
  }

  /**
   * The question a reply resolves, if it is a resolve answer: the one whose code it names, else the only one this
   * number can resolve (asked to it, still asking or acknowledged within its resolve time). Several without a
   * code: none (noted in the log).
   */
  private resolveOf(r: Reply, key: string): Question | undefined {
    const now = this.now();
    const mine = [...this.questions.values()].filter(
      (q) => (q.settings.resolve?.length ?? 0) > 0 && resolvable(q, now) && askedKeys(q).has(key),
    );
    const read = (q: Question) =>
      parseReply(
        r.text,
        { ack: q.settings.ack, pass: q.settings.pass, resolve: q.settings.resolve },
        (c) => c === q.code,
      );
    let bare = 0;
    for (const q of mine) {
      const p = read(q);
      if (p?.action !== 'resolve') continue;
      if (p.code !== undefined) return q;
      bare++;
    }
    if (bare === 0) return undefined;
    if (mine.length === 1) return mine[0];
    const from = safeText(r.from, 40);
    this.ignored.note(
      key,
      from,
      `ask: a resolve from ${from} names no code while ${mine.length} questions are open for it`,
    );
    return undefined;
  }

  /**
   * Closes `q` as resolved (`text`: the resolving msg's, '' : the question's; `byKey`: the number whose reply did,
   * else undefined) and tells who is to hear it, each SMS written before it is sent.
   */
  private async resolve(q: Question, text: string, byKey?: string): Promise<void> {
    const now = this.now();
    const was = q.state === 'answered' ? 'answered' : 'open';
    const by = byKey === undefined ? '' : q.numbers[q.keys.indexOf(byKey)]!;
    let to = askedKeys(q);
    const acknowledger = q.result?.from ? q.keys[q.numbers.indexOf(q.result.from)] : undefined;
    // Only the acknowledger, when set so and someone acknowledged; else everyone asked holds it.
    if (q.settings.tellResolve === 'acknowledger' && was === 'answered' && acknowledger !== undefined)
      to = new Set([acknowledger]);
    if (byKey !== undefined) to.delete(byKey);
    q.state = 'resolved';
    if (q.closedAt === undefined || was === 'open') q.closedAt = now;
    q.resolution = { text: text || q.question, by, at: now, was };
    const sms = resolvedText(q, text, by);
    const notes = [...to].map((k) => this.plan(q, 'resolve', q.numbers[q.keys.indexOf(k)]!, sms, false));
    q.sms.push(...notes);
    await this.save(q);
    for (const s of notes) this.launch(q, s, false);
    await this.advance(q);
  }

  private async applyCancel(c: CancelRequest): Promise<void> {
    const now = this.now();
    const hit = [...this.questions.values()].filter(
      (q) =>
        q.node === c.node &&
        (c.resolve ? resolvable(q, now) : !isClosed(q)) &&
        q.createdAt <= c.at &&
        (c.id !== undefined ? q.id === c.id : c.topic !== undefined && q.topic === c.topic),
    );
    if (this.waiting.has(c.key)) this.outcomes.set(c.key, hit.length);
    if (c.resolve) {
      // Handed in by another instance: nobody there hears the outcome, so the log line is here.
      if (hit.length === 0 && !this.waiting.has(c.key))
        this.deps.warn(
          `ask: nothing to resolve: no open question ${c.id !== undefined ? `with id ${safeText(c.id, 40)}` : `with topic "${safeText(c.topic, 60)}"`}`,
        );
      for (const q of hit) await this.resolve(q, c.resolve.text);
      return;
    }
    for (const q of hit) {
      const started = q.state === 'open';
      q.state = 'cancelled';
      q.closedAt = this.now();
      const notes: AskSms[] = [];
      if (started && q.settings.tellCancel) {
        const text = cancelText(q);
        for (const k of askedKeys(q))
          notes.push(this.plan(q, 'cancel', q.numbers[q.keys.indexOf(k)]!, text, false));
      }
      q.sms.push(...notes);
      await this.save(q);
      for (const s of notes) this.launch(q, s, false);
      await this.advance(q);
    }
  }

  /** Sends a planned SMS (outside the chain: it may take long); its outcome is written when it comes. */
  private launch(q: Question, sms: AskSms, resume: boolean): void {
    if (this.sending.has(sms.reference)) return;
    const controller = new AbortController();
    this.sending.set(sms.reference, controller);
    const id = q.id;
    const settle = (jobId: number | undefined, err: unknown, ok: boolean): void => {
      if (this.sending.get(sms.reference) === controller) this.sending.delete(sms.reference);
      // Stopped (a lost hold, a close): it stays planned; the next holder looks it up.
      if (controller.signal.aborted) return;
      void this.run(() => this.settled(id, sms.reference, ok, jobId, err));
    };
    this.deps.send(q, sms, resume, controller.signal).then(
      (jobId) => settle(jobId, undefined, true),
      (err: unknown) => settle(undefined, err, false),
    );
  }

  private async settled(
    id: string,
    reference: string,
    ok: boolean,
    jobId: number | undefined,
    err: unknown,
  ): Promise<void> {
    const q = this.questions.get(id);
    const sms = q?.sms.find((s) => s.reference === reference);
    if (!q || !sms || !this.holding) return;
    sms.state = ok ? 'sent' : 'failed';
    if (ok && jobId !== undefined) sms.jobId = jobId;
    if (!ok) sms.error = err instanceof Error ? err.message : String(err);
    await this.save(q);
    if (!ok) {
      const node = this.nodes.get(q.node);
      if (node) node.failed(q, sms, err);
      else
        this.deps.warn(
          `ask: the SMS to ${safeText(sms.to, 40)} of question ${q.code ?? q.id} was refused: ${safeText(sms.error)}`,
        );
      // A step nobody got: the next number at once.
      if (sms.kind === 'ask' && q.state === 'open' && sms.step === q.step) await this.nextStep(q);
    }
    await this.advance(q);
    this.schedule();
  }

  /** One timer, for the earliest end of a step among the questions of running nodes. */
  private schedule(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.holding || this.closed || !this.readDone) return;
    let due = Infinity;
    const now = this.now();
    for (const q of this.questions.values()) {
      if (q.state === 'open' && this.nodes.has(q.node)) due = Math.min(due, q.stepAt + q.settings.waitMs);
      // A closed question kept for late replies and the limiter's count leaves when that ends.
      const kept = isClosed(q) ? keptUntil(q) : 0;
      if (kept > now) due = Math.min(due, kept);
    }
    if (due === Infinity) return;
    const ms = Math.max(0, Math.min(MAX_TIMER_MS, due - this.now()));
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      void this.run(async () => {
        if (!this.holding) return;
        const now = this.now();
        for (const q of [...this.questions.values()])
          if (q.state === 'open' || (isClosed(q) && keptUntil(q) <= now)) await this.advance(q);
        this.schedule();
      });
    }, ms);
  }

  private changed(): void {
    for (const n of this.nodes.values()) n.changed();
  }
}

/**
 * When the quiet time of a closed question's dedupe key ends (undefined: none). Closed: resolved, unanswered or
 * cancelled (an acknowledged one is still open to updates while it can be resolved).
 */
function quietUntil(q: Question): number | undefined {
  if (q.dedupe === undefined || !q.settings.quietMs) return undefined;
  if (q.state !== 'resolved' && q.state !== 'unanswered' && q.state !== 'cancelled') return undefined;
  return (q.closedAt ?? 0) + q.settings.quietMs;
}

/** Its output is out (or owes none): a closed question can leave once its time is up. */
function done(q: Question): boolean {
  if (q.state === 'cancelled') return true;
  if (q.state === 'resolved') return q.resolution?.emitted === true;
  return q.emitted === true;
}

/** A new question id (also in logs): 12 random hex characters. */
export const newQuestionId = (): string => randomBytes(6).toString('hex');

/** The marks of a `1*` reply: the codes and ask ids of every question it acknowledged, space-separated. */
function claimOfAll(qs: readonly Question[]): ClaimMarks {
  return {
    claimedBy: CLAIMED_BY_ASK,
    question: qs.map((q) => q.code ?? '').join(' '),
    askId: qs.map((q) => q.id).join(' '),
    askNode: [...new Set(qs.map((q) => q.node))].join(' '),
    action: 'ack',
  };
}

/** The marks of a reply that answered `q` (replies.ts): short words, kept with the record by the reader. */
function claimOf(q: Question, action: ClaimMarks['action']): ClaimMarks {
  return { claimedBy: CLAIMED_BY_ASK, question: q.code ?? '', askId: q.id, askNode: q.node, action };
}

/** Codes in the order they are given out (a, b, ..., z, aa). */
const codeOrder = (a: string, b: string): number => a.length - b.length || a.localeCompare(b);

/**
 * The answered question a reply acknowledges late: one asked to this number whose code it names, or (`bare`: the
 * number has no open question) the last one answered when it names none. With any reply acknowledging (no
 * Acknowledge words) only a reply naming the code counts: "thanks" after the question closed is no answer.
 */
function lateQuestion(r: Reply, key: string, all: readonly Question[], bare: boolean): Question | undefined {
  const answered = all.filter((q) => q.state === 'answered' && askedKeys(q).has(key));
  const read = (q: Question) =>
    parseReply(r.text, { ack: q.settings.ack, pass: q.settings.pass }, (c) => c === q.code);
  for (const q of answered) {
    const p = read(q);
    if (p?.action === 'ack' && p.code !== undefined) return q;
  }
  if (!bare) return undefined;
  const last = answered
    .filter((q) => q.settings.ack.length > 0 && read(q)?.action === 'ack')
    .sort((a, b) => (b.closedAt ?? 0) - (a.closedAt ?? 0))[0];
  return last;
}
