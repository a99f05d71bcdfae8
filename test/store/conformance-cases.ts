/**
 * The store kinds as the fault suite drives them (conformance.test.ts): one driver per kind of STORE_KINDS, through
 * the store's real user where that is practical without Node-RED and a gateway (the spending guard, the ask
 * engine, the delivery tracker, the outbox), and through the store itself for the kinds whose user needs Node-RED
 * (a reader, a trigger, the Redis epoch): there a small component keeps items, saves before it acts, and keeps an
 * unsaved change until it is saved, as the real ones do (queue-reader.ts, poll-node.ts, listen.ts, key-space.ts).
 *
 * A driver makes numbered changes; each change, once acknowledged, has one effect ("act"): an SMS sent, a count
 * taken, an outcome handed on, a message emitted. The suite asserts over those: nothing acknowledged lost, no act
 * twice, the user told.
 */
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { AskEngine } from '../../src/nodes/ask/engine';
import { numberKey } from '../../src/nodes/ask/numbers';
import { FileAskStore } from '../../src/nodes/ask/store';
import { LocalSources, type HeartbeatFile } from '../../src/nodes/heartbeat/sources-local';
import { ReportStatuses } from '../../src/nodes/polling/report-status';
import { DeliveryTracker } from '../../src/nodes/send/delivery-tracker';
import { FileOptOutList } from '../../src/nodes/optout/store-file';
import { GatewayError } from '../../src/errors';
import { Budget } from '../../src/reliability/budget';
import { FileLedger } from '../../src/reliability/budget-file';
import { FilePacer } from '../../src/reliability/pacing-file';
import { ManualClock as HandClock } from '../helpers/manual-clock';
import { Outbox } from '../../src/reliability/outbox';
import { JournalStore } from '../../src/reliability/outbox-journal';
import {
  ContextValueStore,
  StateFile,
  type RetryTimers,
  type StateDamage,
  type StoreKind,
  type StoreProblem,
  type ValueStore,
} from '../../src/store';
import { FakeSender, LocalAuthority, ManualClock, flush, question } from '../nodes/ask/engine-harness';
import type { SMSReport } from '../../src/client/types.generated';

/** Waits (up to 5 s of real time: disk writes) until `check` holds; then the caller asserts what it needs. */
export async function until(check: () => boolean): Promise<void> {
  const end = Date.now() + 5000;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 1));
}

/** What the user was told: a damaged or missing file, a store that cannot read or save (or can again). */
export type Told =
  | { type: 'damage'; file: string; kind: StateDamage['kind']; text: string }
  | { type: 'problem'; file: string; op: 'read' | 'save'; code: string }
  | { type: 'recovered'; file: string }
  | { type: 'warning'; text: string };

/** Retry timers the suite fires by hand: no real time passes in it. */
export class HandTimers implements RetryTimers {
  private seq = 0;
  private readonly due = new Map<number, () => void>();
  setTimeout(fn: () => void, _ms: number): unknown {
    const id = ++this.seq;
    this.due.set(id, fn);
    return id;
  }
  clearTimeout(h: unknown): void {
    this.due.delete(h as number);
  }
  /** Fires every retry that is waiting (the ones they schedule wait for the next call). */
  fire(): void {
    const now = [...this.due.values()];
    this.due.clear();
    for (const fn of now) fn();
  }
}

/** The world a driver runs in: a user directory, what was told, the acts done (across restarts). */
export interface World {
  dir: string;
  told: Told[];
  acts: number[];
  timers: HandTimers;
  /** Shared with the drivers that need more (the outbox's gateway, the context store's values). */
  extra: Record<string, unknown>;
}

export type Outcome = 'done' | 'refused' | 'waiting';

export interface Instance {
  /** Makes change `i`: done (acknowledged and acted), refused (not kept: the caller was told), waiting (kept). */
  change(i: number): Promise<Outcome>;
  /** The store can write (and read) again: retries now and lets what waited carry on. */
  recover(): Promise<void>;
  /** The changes it holds now (as it read them at start, plus its own since). */
  known(): Promise<number[]>;
  /** A clean stop (one last write). */
  stop(): Promise<void>;
  /** Killed: nothing more of it runs, nothing more is written. */
  kill(): void;
}

export interface Driver {
  kind: StoreKind;
  /** The file its faults are made on (a context key for the context store). */
  file(world: World): string;
  /** Starts its user; resolves once it read its state (a start that cannot read: see `startWaits`). */
  start(world: World): Promise<Instance>;
  /** A start on a file it cannot read waits and is told (true), or fails with an error naming it (false). */
  startWaits: boolean;
  /** After damage, every later change is refused until a person confirms (the spending guard's safe default). */
  lostOnDamage?: boolean;
  /** Faults it cannot meet, with why (the suite asserts the reason is given, not the fault). */
  notApplicable?: Partial<Record<string, string>>;
  /** A damaged file is partly kept (line by line); false: a damage keeps nothing of what it held (told). */
  keepsLines: boolean;
}

const told =
  (world: World) =>
  (p: StoreProblem | undefined, file: string): void => {
    world.told.push(
      p ? { type: 'problem', file: p.file, op: p.op, code: p.code } : { type: 'recovered', file },
    );
  };

const damaged =
  (world: World) =>
  (d: StateDamage): void => {
    world.told.push({
      type: 'damage',
      file: d.file,
      kind: d.kind,
      text: `${d.why}; kept ${d.kept}; lost ${d.lost}`,
    });
  };

/**
 * A component as the readers and triggers are: it keeps items, saves them before it acts (emits), and keeps a
 * change it could not save in memory until it can, acting then, once.
 */
function logged(kind: StoreKind, name: string): Driver {
  return {
    kind,
    startWaits: true,
    keepsLines: true,
    file: (w) => path.join(w.dir, 'smsgw-state', `${name}.json`),
    async start(world) {
      let items: number[] = [];
      let unsaved: number[] = [];
      let lastProblem: StoreProblem | undefined;
      const store = new StateFile<{ items: number[] }>(world.dir, name, {
        kind,
        timers: world.timers,
        onDamage: damaged(world),
        onProblem: (p) => {
          told(world)(p, lastProblem?.file ?? '');
          lastProblem = p;
        },
      });
      const loaded = await store.open();
      items = Array.isArray(loaded?.items) ? loaded.items.filter((n) => typeof n === 'number') : [];
      let killed = false;
      const save = async (): Promise<boolean> => {
        try {
          await store.save({ items: [...items] });
        } catch {
          return false;
        }
        if (killed) return false;
        for (const i of unsaved) world.acts.push(i);
        unsaved = [];
        return true;
      };
      return {
        async change(i) {
          items.push(i);
          unsaved.push(i);
          return (await save()) ? 'done' : 'waiting';
        },
        async recover() {
          await store.retryNow();
          await save();
        },
        known: () => Promise.resolve([...items]),
        stop: () => store.close(),
        kill() {
          killed = true;
        },
      };
    },
  };
}

/** The spending guard: a change is a send counted (its act: the count taken); a failing write refuses it. */
const budget: Driver = {
  kind: 'budget',
  startWaits: true,
  // All or nothing: any damage marks the counts lost (one line per member, budget-file.ts).
  keepsLines: false,
  lostOnDamage: true,
  file: (w) => path.join(w.dir, 'smsgw-state', 'budget.cfg.json'),
  async start(world) {
    let last: StoreProblem | undefined;
    const ledger = await FileLedger.open(world.dir, 'cfg', {
      timers: world.timers,
      onDamage: damaged(world),
      onProblem: (p) => {
        told(world)(p, last?.file ?? '');
        last = p;
      },
    });
    const guard = new Budget({ limits: { month: 1000 } }, ledger);
    return {
      async change(i) {
        try {
          await guard.reserve(`k${i}`, 1);
        } catch {
          return 'refused';
        }
        world.acts.push(i);
        return 'done';
      },
      async recover() {
        await flush();
      },
      async known() {
        // The reservations it holds (each pending under its key until its send is settled).
        const book = (ledger as unknown as { book: { toJSON(): { pending: Record<string, unknown> } } }).book;
        return Object.keys(book.toJSON().pending).map((k) => Number(k.slice(1)));
      },
      stop: () => guard.close(),
      kill: () => undefined,
    };
  },
};

/**
 * The pacing per number: a change is a message to its own number (its act: the slot taken, the message may go). A
 * reservation resolves only once it is on disk; a failing write refuses it. A damaged or missing book is marked
 * lost (numbers it does not know wait out the longest window): what it could read is kept.
 */
const pacing: Driver = {
  kind: 'pacing',
  startWaits: true,
  keepsLines: true,
  file: (w) => path.join(w.dir, 'smsgw-state', 'pacing.cfg.json'),
  async start(world) {
    const clock = (world.extra.paceClock as HandClock | undefined) ?? new HandClock();
    world.extra.paceClock = clock;
    let last: StoreProblem | undefined;
    const pacer = await FilePacer.open(
      world.dir,
      'cfg',
      { rules: [{ count: 5, ms: 15 * 60_000 }], critical: [] },
      {
        timers: world.timers,
        clock,
        onDamage: damaged(world),
        onProblem: (p) => {
          told(world)(p, last?.file ?? '');
          last = p;
        },
      },
    );
    return {
      async change(i) {
        let answer;
        try {
          answer = await pacer.reserve({ id: `k${i}`, keys: [`4917000000${i}`], critical: false });
        } catch {
          return 'refused';
        }
        if (!answer.reserved) return 'refused';
        if (answer.at > clock.now()) return 'waiting';
        world.acts.push(i);
        return 'done';
      },
      async recover() {
        await flush();
      },
      async known() {
        // The numbers it knows were sent (or reserved) within the window.
        const data = pacer.book.toJSON();
        return Object.keys(data.normal).map((k) => Number(k.slice('4917000000'.length)));
      },
      stop: () => pacer.close(),
      kill: () => undefined,
    };
  },
};

/**
 * The ask engine: a change is a question asked (its act: the first step's SMS). A question that cannot be stored
 * is refused (its msg fails); a change of a question already stored waits until it is saved (the engine's
 * answers: the node test of the exact scenario, test/nodes/ask/node.test.ts).
 */
const ask: Driver = {
  kind: 'ask',
  startWaits: true,
  keepsLines: true,
  file: (w) => path.join(w.dir, 'smsgw-state', 'smsgw-ask.cfg.json'),
  async start(world) {
    const clock = (world.extra.askClock as ManualClock | undefined) ?? new ManualClock();
    world.extra.askClock = clock;
    let last: StoreProblem | undefined;
    const store = new FileAskStore(world.dir, 'cfg', {
      timers: world.timers,
      onDamaged: damaged(world),
      onProblem: (p) => {
        told(world)(p, last?.file ?? '');
        last = p;
      },
    });
    const sender = new FakeSender();
    const engine = new AskEngine({
      store,
      authority: new LocalAuthority(),
      send: sender.send,
      numberKey: (t) => numberKey(t, 'DE'),
      warn: (t) => world.told.push({ type: 'warning', text: t }),
      clock,
    });
    const ids = new Map<string, number>();
    const acted = new Set<string>();
    const note = (): void => {
      // A step sent fresh is an act; one resumed after a restart is looked up first by its reference (no act).
      for (const c of sender.calls)
        if (!c.resume && c.sms.kind === 'ask' && !acted.has(c.sms.reference)) {
          acted.add(c.sms.reference);
          world.acts.push(Number(c.q.slice('cq'.length)));
        }
    };
    engine.register('ask1', { output: () => undefined, failed: () => undefined, changed: () => undefined });
    await engine.start();
    await flush();
    note();
    let killed = false;
    return {
      async change(i) {
        const q = question(clock, { id: `cq${i}`, settings: { waitMs: 3_600_000 } });
        ids.set(q.id, i);
        try {
          await engine.ask(q);
        } catch {
          return 'refused';
        }
        // Its first step goes once the question is on disk (real writes: bounded, waiting for the signal).
        await until(() => sender.calls.some((c) => c.q === q.id) || store.problem !== undefined);
        await flush();
        if (!killed) note();
        return sender.calls.some((c) => c.q === q.id) ? 'done' : 'waiting';
      },
      async recover() {
        await store.retryNow();
        await until(() => store.problem === undefined && engine.open().every((q) => q.sms.length > 0));
        await flush();
        note();
      },
      async known() {
        return engine.open().map((q) => Number(q.id.slice('cq'.length)));
      },
      async stop() {
        await engine.close();
      },
      kill() {
        killed = true;
        // A killed process writes nothing more: its engine may still be busy in this one, so its store is shut.
        const saver = (store as unknown as { file: { saver: { closing: boolean; closed: boolean } } }).file
          .saver;
        saver.closing = true;
        saver.closed = true;
      },
    };
  },
};

/**
 * The delivery tracker: a change is a job tracked; its act is its outcome handed on (the suite finishes every job
 * it knows when it recovers). While its file cannot be saved it reads and hands on nothing.
 */
const delivery: Driver = {
  kind: 'delivery',
  startWaits: true,
  keepsLines: true,
  file: (w) => path.join(w.dir, 'smsgw-state', 'smsgw-delivery.cfg.json'),
  async start(world) {
    const finished = (world.extra.finished as Set<number> | undefined) ?? new Set<number>();
    world.extra.finished = finished;
    let last: StoreProblem | undefined;
    const report = (job: number): SMSReport => ({
      Id: job,
      JobId: job,
      Recipient: '+491701110001',
      Status: 'DELIVERED',
      Date: new Date(),
      MsgCode: 0,
      DoneDate: new Date(),
      DoneDateTimeZoneOffset: 0,
      Sequence: 1,
      CreateDate: new Date(),
    });
    const tracker = new DeliveryTracker({
      userDir: world.dir,
      id: 'cfg',
      query: () => Promise.resolve([...finished].map(report)),
      intervalMs: 3_600_000,
      statuses: ReportStatuses.from(undefined, undefined),
      lookbackMs: 3_600_000,
      storeTimers: world.timers,
      onDamaged: damaged(world),
      onStoreProblem: (p) => {
        told(world)(p, last?.file ?? '');
        last = p;
      },
    });
    await tracker.ready;
    let killed = false;
    tracker.subscribe('n1', (o) => {
      if (!killed) world.acts.push(Number(o.JobId));
    });
    const settle = async (): Promise<void> => {
      await tracker.tick();
      await flush();
    };
    const jobs = (): number[] =>
      (tracker as unknown as { state: { jobs: { jobId: number }[] } }).state.jobs.map((j) => Number(j.jobId));
    return {
      async change(i) {
        tracker.track({ jobId: i, owner: 'n1', recipients: ['+491701110001'], timeoutMs: 3_600_000 });
        await flush();
        await (tracker as unknown as { store: ValueStore<unknown> }).store.flush();
        return tracker.storeProblem ? 'waiting' : 'done';
      },
      async recover() {
        await tracker.retryStore();
        await settle();
        // The jobs it knows are finished now: each outcome handed on once.
        for (const j of jobs()) finished.add(j);
        await settle();
      },
      known: () => Promise.resolve(jobs()),
      stop: () => tracker.close(),
      kill() {
        killed = true;
        const t = tracker as unknown as { closed: boolean; timer?: NodeJS.Timeout };
        t.closed = true;
        clearTimeout(t.timer);
      },
    };
  },
};

/**
 * The outbox: a change is a message accepted (durable before it is attempted); its act is the gateway getting it.
 * The gateway is away while changes are made (they are kept in the journal) and back when the suite recovers: a
 * kept entry whose record may be lost is looked up by its reference first (found: no second act).
 */
const outbox: Driver = {
  kind: 'outbox',
  startWaits: false,
  keepsLines: true,
  file: (w) => path.join(w.dir, 'smsgw-outbox', 'cfg.jsonl'),
  async start(world) {
    const gateway = (world.extra.gateway as { up: boolean; sent: Map<string, number> } | undefined) ?? {
      up: false,
      sent: new Map<string, number>(),
    };
    world.extra.gateway = gateway;
    const file = outbox.file(world);
    mkdirSync(path.dirname(file), { recursive: true });
    const journal = new JournalStore({
      file,
      userDir: world.dir,
      onWarning: (text) => world.told.push({ type: 'warning', text }),
    });
    let killed = false;
    const box = await Outbox.open({
      store: journal,
      retryIntervalMs: 1_000_000,
      send: async (e, o) => {
        if (!gateway.up || killed)
          throw new GatewayError('NETWORK', 'the gateway cannot be reached', { ambiguous: false });
        const i = Number(String(e.params.Caption).slice(1));
        // A lookup finds what the gateway has under the reference: not sent again.
        if (o.lookupFirst && gateway.sent.has(o.reference))
          return { Status: 'Ok', JobId: i, recovered: true };
        if (!gateway.sent.has(o.reference)) {
          gateway.sent.set(o.reference, i);
          world.acts.push(i);
        }
        return { Status: 'Ok', JobId: i };
      },
    });
    if (journal.damage) damaged(world)(journal.damage);
    for (const w of box.warnings) world.told.push({ type: 'warning', text: w });
    box.on('store', (why) =>
      world.told.push(why ? { type: 'problem', file, op: 'save', code: why } : { type: 'recovered', file }),
    );
    return {
      change(i) {
        return new Promise<Outcome>((resolve) => {
          box
            .submit(
              'send',
              'SendSMS',
              {
                Caption: `m${i}`,
                Sender: 'Shop',
                Recipient: ['+491701110001'],
                SMSText: `message ${i}`,
                SmsTyp: 'Standard',
                SendDate: null,
              },
              { onAccepted: () => resolve('done') },
            )
            .catch(() => resolve('refused'));
        });
      },
      async recover() {
        gateway.up = true;
        await box.flush();
        gateway.up = false;
      },
      known: () => Promise.resolve(box.list().map((e) => Number(String(e.params.Caption).slice(1)))),
      async stop() {
        await box.close();
      },
      kill() {
        killed = true;
        void box.close().catch(() => undefined);
      },
    };
  },
};

/**
 * A trigger's state in a context store the user named: the backend is an in-memory store whose writes fail
 * while the suite says so. What such a store cannot give (its own text, so no cut or flipped byte of ours, and
 * no temp file of a write) is named, not pretended.
 */
const context: Driver = {
  kind: 'context',
  startWaits: false,
  keepsLines: false,
  notApplicable: {
    'cut short':
      "the context store keeps a JSON value, not text of ours: a cut value is its module's to read",
    'one byte flipped': 'the context store keeps a JSON value, not text of ours: no checksum of ours on it',
    'during a write': 'a context store writes when and how its module does: no temp file of ours to leave',
    read: "a context store that cannot read fails the start (told); Node-RED's stores do not retry reads",
  },
  file: () => 'context store "shared", global key smsgw_state_smsgw_dlr_n1',
  async start(world) {
    const values = (world.extra.values as Map<string, unknown> | undefined) ?? new Map<string, unknown>();
    world.extra.values = values;
    const key = context.file(world);
    let last: StoreProblem | undefined;
    const store = new ContextValueStore<{ items: number[] }>(
      key,
      'context:shared:smsgw_state_smsgw_dlr_n1',
      {
        get: () => Promise.resolve(values.get(key)),
        set: (v) => {
          const code = world.extra.contextFault as string | undefined;
          if (code) {
            const e = new Error(`${code}: injected`) as NodeJS.ErrnoException;
            e.code = code;
            return Promise.reject(e);
          }
          if (v === undefined) values.delete(key);
          else values.set(key, v);
          return Promise.resolve();
        },
      },
      world.dir,
      {
        timers: world.timers,
        onDamage: damaged(world),
        onProblem: (p) => {
          told(world)(p, last?.file ?? '');
          last = p;
        },
      },
    );
    const loaded = await store.open();
    const items: number[] = Array.isArray(loaded?.items) ? [...loaded.items] : [];
    let unsaved: number[] = [];
    let killed = false;
    const save = async (): Promise<boolean> => {
      try {
        await store.save({ items: [...items] });
      } catch {
        return false;
      }
      if (killed) return false;
      for (const i of unsaved) world.acts.push(i);
      unsaved = [];
      return true;
    };
    return {
      async change(i) {
        items.push(i);
        unsaved.push(i);
        return (await save()) ? 'done' : 'waiting';
      },
      async recover() {
        await store.retryNow();
        await save();
      },
      known: () => Promise.resolve([...items]),
      stop: () => store.close(),
      kill() {
        killed = true;
      },
    };
  },
};

/**
 * The heartbeat node's sources (its real store user, sources-local.ts, on a hand-moved clock): a change is a source
 * seen once and then quiet for a period; its act is that source's overdue alarm, emitted only once noted on disk.
 */
const heartbeat: Driver = {
  kind: 'heartbeat',
  startWaits: true,
  keepsLines: true,
  file: (w) => path.join(w.dir, 'smsgw-state', 'smsgw-heartbeat.n1.json'),
  async start(world) {
    const clock = (world.extra.heartbeatClock as ManualClock | undefined) ?? new ManualClock();
    world.extra.heartbeatClock = clock;
    let last: StoreProblem | undefined;
    const store = new StateFile<HeartbeatFile>(world.dir, 'smsgw-heartbeat.n1', {
      kind: 'heartbeat',
      timers: world.timers,
      onDamage: damaged(world),
      onProblem: (p) => {
        told(world)(p, last?.file ?? '');
        last = p;
      },
    });
    let killed = false;
    const alarmed = new Set<number>();
    const sources = new LocalSources(store, {
      plan: { everyMs: 1000, graceMs: 0, listed: undefined, max: 10_000 },
      clock,
      changed: () => undefined,
      dropped: (n) => world.told.push({ type: 'warning', text: `${n} sources dropped` }),
      emit: (e) => {
        if (killed || e.type !== 'overdue') return;
        const i = Number(e.source.slice(1));
        alarmed.add(i);
        world.acts.push(i);
      },
    });
    await sources.start();
    // A source kept from before the start gets its one extra period first (sources.ts): let it run out.
    await clock.advance(2500);
    const entries = (): Record<string, unknown> =>
      (sources as unknown as { shape(): HeartbeatFile }).shape().sources ?? {};
    const kept = (): number[] => Object.keys(entries()).map((s) => Number(s.slice(1)));
    // Every source it holds has had its alarm (noted in the file: this run's or an earlier one's).
    const allAlarmed = (): boolean =>
      Object.values(entries()).every((e) => (e as { over?: number }).over !== undefined);
    return {
      async change(i) {
        await sources.seen(`s${i}`);
        await clock.advance(2500);
        await until(() => alarmed.has(i) || store.problem !== undefined);
        await flush();
        return alarmed.has(i) ? 'done' : 'waiting';
      },
      async recover() {
        await store.retryNow();
        await until(() => store.problem === undefined);
        await clock.advance(2500);
        await until(() => allAlarmed() && store.problem === undefined);
        await flush();
      },
      known: () => Promise.resolve(kept()),
      stop: () => sources.close(false),
      kill() {
        killed = true;
      },
    };
  },
};

/**
 * The opt-out list: a change is a number put on the list (its act: the STOP acknowledged to the reader, which then
 * drops the reply). A write that fails rejects (the reader offers the reply again). Damage marks the list lost
 * (sends refused until a person confirms: test/nodes/optout.test.ts); changes are still taken meanwhile.
 */
const NUMBER_BASE = 4917000000000;
const optout: Driver = {
  kind: 'optout',
  startWaits: true,
  keepsLines: true,
  file: (w) => path.join(w.dir, 'smsgw-state', 'optout.cfg.json'),
  async start(world) {
    let last: StoreProblem | undefined;
    const list = new FileOptOutList(world.dir, 'cfg', {
      timers: world.timers,
      onDamage: damaged(world),
      onProblem: (p) => {
        told(world)(p, last?.file ?? '');
        last = p;
      },
    });
    await list.ready();
    let killed = false;
    return {
      async change(i) {
        try {
          await list.change([{ key: String(NUMBER_BASE + i), out: true, source: 'reply' }]);
        } catch {
          return 'refused';
        }
        if (killed) return 'refused';
        world.acts.push(i);
        return 'done';
      },
      async recover() {
        await flush();
      },
      known: () =>
        Promise.resolve(
          list.book
            .entries()
            .filter(([, e]) => e.out)
            .map(([k]) => Number(k) - NUMBER_BASE),
        ),
      stop: () => list.close(),
      kill() {
        killed = true;
      },
    };
  },
};

/** One driver per kind of STORE_KINDS (the suite fails for a kind without one). */
export const DRIVERS: Partial<Record<StoreKind, Driver>> = {
  outbox,
  reader: logged('reader', 'smsgw-inbound-reader.cfg'),
  cursor: logged('cursor', 'smsgw-dlr.n1'),
  listener: logged('listener', 'smsgw-inbound.n1'),
  delivery,
  ask,
  heartbeat,
  budget,
  pacing,
  optout,
  keyspace: logged('keyspace', 'smsgw-redis.cfg'),
  context,
};
