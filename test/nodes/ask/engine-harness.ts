/**
 * The ask engine with a hand-driven clock, a recording sender and a store in memory (or a state file): the
 * rules of the ask node tested without Node-RED and without waiting.
 */
import { AskEngine, type Authority, type Clock, type EngineDeps } from '../../../src/nodes/ask/engine';
import { numberKey } from '../../../src/nodes/ask/numbers';
import type { AskSms, Question } from '../../../src/nodes/ask/question';
import { FileAskStore, type AskStore, type Hold } from '../../../src/nodes/ask/store';
import { resolveTexts } from '../../../src/nodes/ask/texts';
import { ManualClock as HandClock, turns } from '../../helpers/manual-clock';

/** The hand-moved clock of the other tests (test/helpers/manual-clock.ts), started where the ask tests expect. */
export class ManualClock extends HandClock implements Clock {
  constructor() {
    super(1_700_000_000_000);
  }
}

/** Lets pending promise chains run (a few turns of the event loop). */
export const flush = (): Promise<void> => turns();

/** Waits (real time, up to 10 s: a loaded machine) until `check` holds: for changes that wait for a real state file write. */
export async function until(check: () => boolean, what = 'condition', clock?: ManualClock): Promise<void> {
  const end = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what}: not met in time`);
    await new Promise((r) => setTimeout(r, 5));
    // A timer the engine set after the clock moved (its write came late) fires now: it is due.
    await clock?.advance(0);
  }
}

export class LocalAuthority implements Authority {
  held = true;
  gen = 1;
  private acquired: (() => void)[] = [];
  private lost: (() => void)[] = [];
  current(): Hold | undefined {
    return this.held ? { token: 'local', generation: this.gen } : undefined;
  }
  isCurrent(h: Hold): boolean {
    return this.held && h.generation === this.gen;
  }
  onAcquired(l: () => void): void {
    this.acquired.push(l);
  }
  onLost(l: () => void): void {
    this.lost.push(l);
  }
  lose(): void {
    this.held = false;
    this.gen++;
    for (const l of this.lost) l();
  }
  acquire(): void {
    this.held = true;
    this.gen++;
    for (const l of this.acquired) l();
  }
}

export interface SentSms {
  q: string;
  sms: AskSms;
  resume: boolean;
}

export class FakeSender {
  calls: SentSms[] = [];
  private job = 1000;
  /** Set to make the next send fail (once), or every send hang until aborted. */
  fail: Error | undefined;
  hang = false;
  send = (q: Question, sms: AskSms, resume: boolean, signal: AbortSignal): Promise<number | undefined> => {
    this.calls.push({ q: q.id, sms: { ...sms }, resume });
    if (this.fail) {
      const err = this.fail;
      this.fail = undefined;
      return Promise.reject(err);
    }
    if (this.hang)
      return new Promise((_r, reject) =>
        signal.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    return Promise.resolve(++this.job);
  };
  /** Sends of kind `ask` to the number, in order. */
  asks(to?: string): SentSms[] {
    return this.calls.filter((c) => c.sms.kind === 'ask' && (to === undefined || c.sms.to === to));
  }
  last(): SentSms {
    return this.calls[this.calls.length - 1]!;
  }
}

export interface Outputs {
  got: { q: Question; which: 1 | 2 }[];
  failed: { q: Question; sms: AskSms; err: unknown }[];
}

export interface Harness {
  engine: AskEngine;
  clock: ManualClock;
  sender: FakeSender;
  authority: LocalAuthority;
  store: AskStore;
  out: Outputs;
  warnings: string[];
}

export function harness(
  o: { store?: AskStore; clock?: ManualClock; sender?: FakeSender; deps?: Partial<EngineDeps> } = {},
): Harness {
  const clock = o.clock ?? new ManualClock();
  const sender = o.sender ?? new FakeSender();
  const authority = new LocalAuthority();
  const store = o.store ?? new FileAskStore(undefined, 'cfg');
  const warnings: string[] = [];
  const engine = new AskEngine({
    store,
    authority,
    send: sender.send,
    numberKey: (t) => numberKey(t, 'DE'),
    warn: (t) => warnings.push(t),
    clock,
    ...o.deps,
  });
  const out: Outputs = { got: [], failed: [] };
  engine.register('ask1', {
    output: (q) => out.got.push({ q: structuredClone(q), which: q.state === 'answered' ? 1 : 2 }),
    failed: (q, sms, err) => out.failed.push({ q, sms, err }),
    changed: () => undefined,
  });
  return { engine, clock, sender, authority, store, out, warnings };
}

export const A = '+491701110001';
export const B = '+491701110002';
export const STRANGER = '+491709999999';

let seq = 0;

/** A question as the node would hand it in (5 s steps, one round, answers 1 / 2 unless told otherwise). */
export function question(
  clock: ManualClock,
  o: Partial<Omit<Question, 'settings'>> & { settings?: Partial<Question['settings']> } = {},
): Question {
  const numbers = o.numbers ?? [A, B];
  const ack = o.settings?.ack ?? ['1'];
  const pass = o.settings?.pass ?? ['2'];
  const { settings, ...rest } = o;
  return {
    id: `q${++seq}`,
    node: 'ask1',
    topic: 'freezer',
    question: 'Freezer too warm: -9 C',
    numbers,
    keys: numbers.map((n) => numberKey(n, 'DE')),
    msg: { payload: 'Freezer too warm: -9 C', topic: 'freezer' },
    createdAt: clock.now(),
    state: 'new',
    step: -1,
    stepAt: clock.now(),
    sms: [],
    ...rest,
    settings: {
      waitMs: 5000,
      rounds: 1,
      ack,
      pass,
      tell: 'none',
      tellCancel: false,
      critical: false,
      smsType: 'Standard',
      sender: '',
      caption: 'freezer',
      texts: resolveTexts({}, ack, pass),
      ...settings,
    },
  };
}
