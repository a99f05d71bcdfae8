/**
 * Pacing per number in Node-RED: 1,000 messages to 3 numbers through the outbox go out within each number's limits
 * (1 per minute, 5 per 15 minutes, 12 per hour), in order per number, none lost; without the outbox and "refuse",
 * a message over the limits fails with PACED. Time is a hand-driven clock (settings.smsgwClock): the test moves it
 * from one slot to the next and notes, for every job the emulator made, the clock's time when it came.
 */
import assert from 'node:assert/strict';
import {
  ALL_NODES,
  collect,
  DEMO,
  flowWith,
  helper,
  send,
  startEnv,
  stopEnv,
  waitFor,
  type Env,
  type FlowNode,
} from './helpers';
import { sendSmsNode } from './send-sms-node';
import { ManualClock } from '../helpers/manual-clock';

type Rec = Record<string, unknown>;

const NUMBERS = ['+4917000000011', '+4917000000012', '+4917000000013'];
const TOTAL = 1000;
const RULES = [
  { count: 1, ms: 60_000 },
  { count: 5, ms: 15 * 60_000 },
  { count: 12, ms: 3_600_000 },
];

describe('nodes: pacing per number', function () {
  this.timeout(600_000);
  let env: Env;
  let clock: ManualClock;
  before(async () => {
    env = await startEnv();
    env.emu.control.setBalance('demo', 1_000_000);
  });
  after(() => stopEnv(env));
  beforeEach(() => {
    clock = new ManualClock(Date.UTC(2024, 5, 1, 12));
    helper.settings({ userDir: env.userDir, smsgwClock: clock } as Record<string, unknown>);
  });
  afterEach(() => helper.unload());

  interface Job {
    id: number;
    caption: string;
    text: string;
    recipient?: unknown;
    recipients?: unknown;
  }
  const jobs = (caption: string): Job[] =>
    (env.emu.control.snapshot() as { accounts: { jobs: Job[] }[] }).accounts
      .flatMap((a) => a.jobs.filter((j) => j.caption.startsWith(`${caption} #`)))
      .sort((a, b) => a.id - b.id);

  const flowFor = (id: string, config: Rec, nodes: FlowNode[]): FlowNode[] =>
    flowWith(
      env.emu.url,
      nodes.map((n) => ({ ...n, gateway: id })),
      { id, ...config },
    ).map((n) => (n.type === 'smsgw-config' ? { ...n, id } : n));

  const load = (flow: FlowNode[], id: string): Promise<void> =>
    helper.load(ALL_NODES, flow, { [id]: DEMO }) as unknown as Promise<void>;

  const listing = async (id: string): Promise<Rec[]> => {
    const res = await helper.request().get(`/smsgw-config/${id}/outbox`).expect(200);
    return (res.body as { entries: Rec[] }).entries;
  };

  it(`${TOTAL} messages to 3 numbers with the outbox: each number within its limits, in order, none lost`, async () => {
    await load(
      flowFor('cfg-pace', { outbox: true, pacing: true }, [
        sendSmsNode({ recipient: '', recipientType: 'str' }),
      ]),
      'cfg-pace',
    );
    const out = collect('out');
    const caught = collect('caught');
    for (let i = 0; i < TOTAL; i++)
      send('n1', { payload: `m ${i}`, topic: 'pace', recipient: NUMBERS[i % NUMBERS.length] });
    // When each message reached the emulator, by the hand-driven clock.
    const seenAt = new Map<string, number>();
    const note = (): void => {
      for (const j of jobs('pace')) if (!seenAt.has(j.text)) seenAt.set(j.text, clock.now());
    };
    // Settled for this moment: every entry left waits for a later slot, none is being attempted.
    // The config node's listing in this process (the editor's route reads the same, over HTTP).
    const host = (
      helper.getNode('cfg-pace') as unknown as { reliability: { list(): Promise<{ entries: Rec[] }> } }
    ).reliability;
    const settled = async (): Promise<boolean> =>
      (await host.list()).entries.every(
        (e) => !e.inFlight && typeof e.notBefore === 'string' && Date.parse(e.notBefore) > clock.now(),
      );
    const waitSettled = async (): Promise<void> => {
      const end = Date.now() + 60_000;
      while (!(await settled())) {
        assert.ok(Date.now() < end, 'the outbox did not settle');
        await new Promise((r) => setTimeout(r, 1));
      }
    };
    await waitFor(() => out.messages.length >= 3, 30_000);
    await waitSettled();
    note();
    // Bounded: at most one step per message and slot.
    for (let step = 0; step < 3 * TOTAL && out.messages.length + caught.messages.length < TOTAL; step++) {
      const next = clock.next;
      assert.ok(Number.isFinite(next), `nothing waits, yet ${out.messages.length} of ${TOTAL} sent`);
      await clock.advanceTo(next);
      await waitSettled();
      note();
    }
    await waitFor(() => out.messages.length === TOTAL, 30_000);
    assert.equal(caught.messages.length, 0);
    assert.deepEqual(await listing('cfg-pace'), []);
    note();
    // None lost, none twice.
    const all = jobs('pace');
    assert.equal(all.length, TOTAL);
    assert.equal(new Set(all.map((j) => j.text)).size, TOTAL);
    for (let n = 0; n < NUMBERS.length; n++) {
      // In order per number, and within every rule over any window.
      const mine = all.filter((j) => Number(j.text.slice(2)) % NUMBERS.length === n);
      assert.deepEqual(
        mine.map((j) => Number(j.text.slice(2))),
        Array.from({ length: mine.length }, (_v, k) => k * NUMBERS.length + n),
      );
      const times = mine.map((j) => seenAt.get(j.text)!);
      for (const rule of RULES) {
        for (let k = rule.count; k < times.length; k++)
          assert.ok(
            times[k]! - times[k - rule.count]! >= rule.ms,
            `${NUMBERS[n]}: ${rule.count + 1} messages within ${rule.ms / 60_000} min`,
          );
      }
    }
  });

  it('without the outbox, "refuse": a message over a number\'s limits fails with PACED; another number goes', async () => {
    await load(
      flowFor('cfg-refuse', { pacing: true, paceOver: 'refuse' }, [
        sendSmsNode({ recipient: '', recipientType: 'str' }),
      ]),
      'cfg-refuse',
    );
    const out = collect('out');
    const caught = collect('caught');
    send('n1', { payload: 'first', topic: 'refuse', recipient: NUMBERS[0] });
    await waitFor(() => out.messages.length === 1);
    send('n1', { payload: 'second', topic: 'refuse', recipient: NUMBERS[0] });
    await waitFor(() => caught.messages.length === 1);
    assert.equal((caught.messages[0]!.error as Rec).code, 'PACED');
    send('n1', { payload: 'other', topic: 'refuse', recipient: NUMBERS[1] });
    await waitFor(() => out.messages.length === 2);
    // A critical one has its own allowance.
    send('n1', { payload: 'alarm', topic: 'refuse', recipient: NUMBERS[0], priority: 'critical' });
    await waitFor(() => out.messages.length === 3);
    assert.deepEqual(
      jobs('refuse').map((j) => j.text),
      ['first', 'other', 'alarm'],
    );
  });
});
