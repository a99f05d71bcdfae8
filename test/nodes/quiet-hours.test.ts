/**
 * Quiet hours in Node-RED: a send node's messages inside the window are held in the outbox (durably, across a
 * restart), shown as held on the node, released when the window ends in the order they came, critical ones at
 * once; without the outbox they are refused (QUIET_HOURS); msg.outbox = { cancel: true } removes held messages
 * by msg.topic; a node set to "off" sends at any hour. Time is a hand-driven clock (settings.smsgwClock): the
 * window ends when the test moves the clock, no real time is waited for.
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
  statuses,
  stopEnv,
  waitFor,
  type Env,
  type FlowNode,
} from './helpers';
import { sendSmsNode } from './send-sms-node';
import { ManualClock } from '../helpers/manual-clock';

type Rec = Record<string, unknown>;

/** 22:00 UTC: inside 21:00-08:00 UTC. */
const NIGHT = Date.UTC(2024, 5, 1, 22);
/** When that window ends. */
const MORNING = Date.UTC(2024, 5, 2, 8);

const QUIET = {
  quietHours: true,
  quietStart: '21:00',
  quietEnd: '08:00',
  quietZone: 'UTC',
  quietByRecipient: false,
};

describe('nodes: quiet hours (held in the outbox until the window ends)', function () {
  this.timeout(120_000);
  let env: Env;
  let clock: ManualClock;
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));
  beforeEach(() => {
    clock = new ManualClock(NIGHT);
    helper.settings({ userDir: env.userDir, smsgwClock: clock } as Record<string, unknown>);
  });
  afterEach(() => helper.unload());

  /** Texts of the jobs the emulator made with this caption, in the order it made them. */
  const jobTexts = (caption: string): string[] =>
    (
      env.emu.control.snapshot() as { accounts: { jobs: { id: number; caption: string; text: string }[] }[] }
    ).accounts
      .flatMap((a) => a.jobs.filter((j) => j.caption.startsWith(`${caption} #`)))
      .sort((a, b) => a.id - b.id)
      .map((j) => j.text);

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

  const codes = (msgs: Rec[]): string[] => msgs.map((m) => String((m.error as Rec | undefined)?.code));
  const heldShown = (node: string, count: number): boolean =>
    statuses(node).some(
      (s) =>
        String(s.text).includes('status.held') || String(s.text) === `${count} held (quiet hours or pacing)`,
    ) && /held/.test(String(statuses(node).at(-1)?.text));

  it('100 messages at night are held across a restart and go out at 08:00 in order; a critical one at once', async () => {
    // One attempt at a time: the gateway gets them in the order they came.
    const flow = flowFor('cfg-q', { ...QUIET, outbox: true, maxConcurrent: 1 }, [sendSmsNode()]);
    await load(flow, 'cfg-q');
    let out = collect('out');
    const caught = collect('caught');
    for (let i = 0; i < 100; i++) send('n1', { payload: `night ${i}`, topic: 'night' });
    send('n1', { payload: 'freezer warm', topic: 'alarm', priority: 'critical' });
    await waitFor(() => out.messages.length === 1, 30_000);
    assert.deepEqual(jobTexts('alarm'), ['freezer warm']);
    const waitHeld = async (n: number): Promise<void> => {
      const end = Date.now() + 30_000;
      while ((await listing('cfg-q')).length < n) {
        assert.ok(Date.now() < end, 'the messages were not held');
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await waitHeld(100);
    const held = await listing('cfg-q');
    assert.equal(held.length, 100);
    assert.ok(held.every((e) => e.notBefore === new Date(MORNING).toISOString() && e.topic === 'night'));
    assert.deepEqual(jobTexts('night'), []);
    assert.equal(caught.messages.length, 0);
    await waitFor(() => heldShown('n1', 100));
    assert.match(String(statuses('n1').at(-1)!.text), /100/);
    // The config node shows the count of all its nodes.
    await waitFor(() => /^100 held/.test(String(statuses('cfg-q').at(-1)?.text)));

    // A restart at 23:00: still held, nothing sent.
    await helper.unload();
    clock.t = NIGHT + 3_600_000;
    await load(flow, 'cfg-q');
    out = collect('out');
    await waitHeld(100);
    assert.deepEqual(jobTexts('night'), []);
    await waitFor(() => heldShown('n1', 100));

    // 07:59: still held. 08:00: all 100 go, in the order they came, each reported once.
    await clock.advanceTo(MORNING - 60_000);
    assert.deepEqual(jobTexts('night'), []);
    await clock.advanceTo(MORNING);
    await waitFor(() => out.messages.length === 100, 60_000);
    assert.deepEqual(
      jobTexts('night'),
      Array.from({ length: 100 }, (_v, i) => `night ${i}`),
    );
    assert.ok(out.messages.every((m) => (m.payload as Rec).restored === true));
    assert.equal((await listing('cfg-q')).length, 0);
    await waitFor(() => !/held/.test(String(statuses('n1').at(-1)?.text)));
    assert.equal(caught.messages.length, 0);
  });

  it('without the outbox a message at night is refused with QUIET_HOURS (nothing sent); a critical one goes', async () => {
    await load(flowFor('cfg-nobox', QUIET, [sendSmsNode()]), 'cfg-nobox');
    const out = collect('out');
    const caught = collect('caught');
    send('n1', { payload: 'report', topic: 'nobox' });
    send('n1', { payload: 'alarm', topic: 'nobox', priority: 'critical' });
    await waitFor(() => out.messages.length + caught.messages.length === 2);
    assert.deepEqual(codes(caught.messages), ['QUIET_HOURS']);
    assert.match(String((caught.messages[0]!.error as Rec).message), /switch on the outbox to hold messages/);
    assert.deepEqual(jobTexts('nobox'), ['alarm']);
  });

  it('msg.outbox = { cancel: true } removes the held messages of its msg.topic; the others go at 08:00', async () => {
    await load(flowFor('cfg-cancel', { ...QUIET, outbox: true }, [sendSmsNode()]), 'cfg-cancel');
    const out = collect('out');
    const caught = collect('caught');
    for (let i = 0; i < 5; i++) send('n1', { payload: `a ${i}`, topic: 'cancel-a' });
    for (let i = 0; i < 3; i++) send('n1', { payload: `b ${i}`, topic: 'cancel-b' });
    const end = Date.now() + 30_000;
    while ((await listing('cfg-cancel')).length < 8) {
      assert.ok(Date.now() < end);
      await new Promise((r) => setTimeout(r, 50));
    }
    send('n1', { topic: 'cancel-a', outbox: { cancel: true } });
    await waitFor(() => out.messages.length === 1 && caught.messages.length === 5);
    assert.deepEqual(out.messages[0]!.payload, { cancelled: 5, topic: 'cancel-a' });
    assert.deepEqual([...new Set(codes(caught.messages))], ['REJECTED']);
    assert.deepEqual(
      (await listing('cfg-cancel')).map((e) => e.topic),
      ['cancel-b', 'cancel-b', 'cancel-b'],
    );
    // A cancel without a topic is refused: it must not send, nor remove anything.
    send('n1', { outbox: { cancel: true } });
    await waitFor(() => caught.messages.length === 6);
    assert.equal(codes(caught.messages).at(-1), 'VALIDATION');
    await clock.advanceTo(MORNING);
    await waitFor(() => out.messages.length === 4, 30_000);
    assert.deepEqual(jobTexts('cancel-a'), []);
    assert.deepEqual(jobTexts('cancel-b').sort(), ['b 0', 'b 1', 'b 2']);
  });

  it('a node set to "off" sends at any hour; outside the window nothing is held', async () => {
    await load(
      flowFor('cfg-off', { ...QUIET, outbox: true }, [sendSmsNode({ quietHours: 'off' })]),
      'cfg-off',
    );
    const out = collect('out');
    send('n1', { payload: 'any hour', topic: 'off' });
    await waitFor(() => out.messages.length === 1);
    assert.deepEqual(jobTexts('off'), ['any hour']);
    assert.equal((out.messages[0]!.payload as Rec).restored, undefined);
  });

  it('outside the window a message goes at once (nothing held)', async () => {
    clock.t = Date.UTC(2024, 5, 1, 12);
    await load(flowFor('cfg-day', { ...QUIET, outbox: true }, [sendSmsNode()]), 'cfg-day');
    const out = collect('out');
    send('n1', { payload: 'noon', topic: 'day' });
    await waitFor(() => out.messages.length === 1);
    assert.deepEqual(jobTexts('day'), ['noon']);
  });
});
