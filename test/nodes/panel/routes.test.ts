/**
 * The panel's routes in Node-RED (node-red-node-test-helper, no adminAuth: everyone may read and write) against
 * the emulator: the sections answer from what the configuration's hosts keep, numbers masked unless `reveal=1`,
 * Cancel closes an open question, and the live note goes out on the comms topic once the state changed.
 */
import assert from 'node:assert/strict';
import type { EventEmitter } from 'node:events';
import * as nodeRedUtil from '@node-red/util';
import {
  flowWith,
  helper,
  loadFlow,
  nextMessage,
  send,
  startEnv,
  stopEnv,
  waitFor,
  type Env,
  type FlowNode,
} from '../helpers';
import { sendSmsNode } from '../send-sms-node';
import { ManualClock } from '../../helpers/manual-clock';

const A = '+491701110001';
const B = '+491701110002';
type Json = Record<string, unknown>;
/** Node-RED's runtime events (its type declarations leave them out): RED.comms.publish of a node emits 'comms'. */
const events = (nodeRedUtil as unknown as { events: EventEmitter }).events;

const asker: FlowNode = {
  id: 'ask',
  type: 'smsgw-ask',
  gateway: 'cfg',
  question: 'payload',
  questionType: 'msg',
  numbers: `${A}, ${B}`,
  numbersType: 'str',
  wait: 60,
  waitUnit: 's',
  rounds: 1,
  ack: '1',
  pass: '2',
  tell: 'none',
  interval: 1,
  wires: [['out'], ['out2']],
};

describe('nodes: the panel routes', function () {
  this.timeout(30_000);
  let env: Env;
  beforeEach(async () => {
    env = await startEnv();
  });
  afterEach(async () => {
    await helper.unload();
    await stopEnv(env);
  });

  const get = async (path: string, status = 200): Promise<Json> =>
    (await helper.request().get(path).expect(status)).body as Json;

  it('Open questions: code, step, holder masked (in full only with reveal=1), time left; Cancel closes it', async () => {
    await loadFlow(flowWith(env.emu.url, [asker]));
    send('ask', { payload: 'Freezer too warm', topic: 'freezer' });
    let q: Json = {};
    await waitFor(() => {
      void get('/smsgw/panel/cfg/questions').then((d) => {
        const list = d.questions as Json[];
        if (list.length === 1 && list[0]!.holder !== undefined && list[0]!.leftMs !== undefined) q = list[0]!;
      });
      return q.id !== undefined;
    });
    assert.equal(q.code, 'a');
    assert.equal(q.question, 'Freezer too warm');
    assert.equal(q.step, 1);
    assert.equal(q.steps, 2);
    assert.equal(q.holder, '+4917******01');
    assert.ok((q.leftMs as number) > 0 && (q.leftMs as number) <= 60_000);
    const plain = JSON.stringify(await get('/smsgw/panel/cfg/questions'));
    assert.ok(!plain.includes('1701110001'), plain);
    const revealed = (await get('/smsgw/panel/cfg/questions?reveal=1')).questions as Json[];
    assert.equal(revealed[0]!.holder, A);

    const res = await helper
      .request()
      .post('/smsgw/panel/cfg/questions/cancel')
      .send({ id: q.id })
      .expect(200);
    assert.deepEqual(res.body, { cancelled: q.id });
    let left = -1;
    await waitFor(() => {
      void get('/smsgw/panel/cfg/questions').then((d) => (left = (d.questions as Json[]).length));
      return left === 0;
    });
    await helper.request().post('/smsgw/panel/cfg/questions/cancel').send({ id: q.id }).expect(404);
  });

  it('Spend: real sends counted in the current hour and day, against the limits, warnings and reserve left', async () => {
    await loadFlow(
      flowWith(env.emu.url, [sendSmsNode()], {
        budgetHour: 10,
        budgetDay: 20,
        budgetWarn: 50,
        budgetReserve: 2,
      }),
    );
    for (let i = 0; i < 3; i++) {
      const done = nextMessage('out');
      send('n1', { payload: `Freezer too warm ${i}`, topic: 'freezer' });
      await done;
    }
    const d = await get('/smsgw/panel/cfg/spend');
    assert.equal(d.enabled, true);
    assert.deepEqual(d.limits, { hour: 10, day: 20 });
    assert.deepEqual(d.warnAt, { hour: 5, day: 10 });
    assert.deepEqual(d.counts, { hour: 3, day: 3 });
    assert.equal(d.reserve, 2);
    assert.equal(d.reserveLeft, 2);
    const hours = d.hours as Json[];
    const days = d.days as Json[];
    assert.equal(hours.length, 24);
    assert.equal(days.length, 30);
    // In the current hour and day (or the one before, if the sends crossed an hour's or a day's end).
    const sum = (list: Json[]): number => list.reduce((n, b) => n + (b.units as number), 0);
    assert.equal(sum(hours.slice(-2)), 3);
    assert.equal(sum(hours), 3);
    assert.equal(sum(days.slice(-2)), 3);
    assert.ok(!JSON.stringify(d).includes('4917000000001'));
  });

  it('Spend: off (nothing counted) while the configuration sets no limit', async () => {
    await loadFlow(flowWith(env.emu.url, [sendSmsNode()]));
    const d = await get('/smsgw/panel/cfg/spend');
    assert.equal(d.enabled, false);
    assert.equal(d.hours, undefined);
  });

  it("Queues and health: outbox counts, the inbound reader's last poll, the last gateway error", async () => {
    await loadFlow(
      flowWith(env.emu.url, [
        { id: 'in', type: 'smsgw-inbound', gateway: 'cfg', interval: 1, inputs: 0, wires: [['out']] },
      ]),
      { cfg: { user: 'demo', password: 'wrong-password' } },
    );
    let d: Json = {};
    await waitFor(() => {
      void get('/smsgw/panel/cfg/health').then((r) => (d = r));
      const readers = (d.readers ?? []) as Json[];
      return readers.length === 1 && readers[0]!.lastPollAt !== undefined && d.lastError !== undefined;
    });
    const reader = (d.readers as Json[])[0]!;
    assert.equal(reader.type, 'smsgw-inbound');
    assert.equal(typeof reader.lastPollError, 'string');
    assert.equal((d.lastError as Json).code, 'AUTH');
    assert.equal(d.coordinated, false);
    assert.deepEqual(d.outbox, { enabled: false });
    assert.ok(!JSON.stringify(d).includes('wrong-password'));
  });

  it('Queues and health: a message held for quiet hours counts as held, not waiting', async () => {
    const night = Date.UTC(2024, 5, 1, 22);
    helper.settings({ userDir: env.userDir, smsgwClock: new ManualClock(night) } as Record<string, unknown>);
    try {
      await loadFlow(
        flowWith(env.emu.url, [sendSmsNode()], {
          outbox: true,
          quietHours: true,
          quietStart: '21:00',
          quietEnd: '08:00',
          quietZone: 'UTC',
          quietByRecipient: false,
        }),
      );
      send('n1', { payload: 'Freezer too warm', topic: 'freezer' });
      let d: Json = {};
      await waitFor(() => {
        void get('/smsgw/panel/cfg/health').then((r) => (d = r));
        return (d.outbox as Json | undefined)?.held === 1;
      });
      assert.deepEqual(d.outbox, { enabled: true, waiting: 0, held: 1, oldestAgeMs: 0 });
    } finally {
      helper.settings({ userDir: env.userDir } as Record<string, unknown>);
    }
  });

  it('Inbound: what the reader handed on, newest first, who took it, the sender masked unless reveal=1', async () => {
    await loadFlow(
      flowWith(env.emu.url, [
        asker,
        { id: 'in', type: 'smsgw-inbound', gateway: 'cfg', interval: 1, inputs: 0, wires: [['out']] },
      ]),
    );
    send('ask', { payload: 'Freezer too warm', topic: 'freezer' });
    await waitFor(() => {
      const snap = env.emu.control.snapshot() as { accounts: { jobs: { id: number }[] }[] };
      return snap.accounts.some((a) => a.jobs.length > 0);
    });
    const snap = env.emu.control.snapshot() as {
      accounts: { jobs: { id: number; recipients: string[] }[] }[];
    };
    const job = snap.accounts.flatMap((a) => a.jobs).find((j) => j.recipients.includes(A))!;
    const trigger = nextMessage('out');
    env.emu.control.injectInbound({ from: B, text: '<b>hello</b>' });
    assert.equal((await trigger).payload, '<b>hello</b>');
    env.emu.control.injectInbound({ from: A, text: '1', jobId: job.id });
    let list: Json[] = [];
    await waitFor(() => {
      void get('/smsgw/panel/cfg/inbound').then((d) => (list = d.messages as Json[]));
      return list.length === 2 && (list[0]!.by as string[]).length > 0;
    });
    assert.deepEqual(
      list.map((m) => [m.from, m.text, m.by]),
      [
        ['+4917******01', '1', ['ask']],
        ['+4917******02', '<b>hello</b>', ['trigger']],
      ],
    );
    assert.equal(typeof list[0]!.at, 'number');
    const plain = JSON.stringify(await get('/smsgw/panel/cfg/inbound'));
    assert.ok(!plain.includes('1701110001') && !plain.includes('1701110002'), plain);
    const revealed = (await get('/smsgw/panel/cfg/inbound?reveal=1')).messages as Json[];
    assert.deepEqual(
      revealed.map((m) => m.from),
      [A, B],
    );
  });

  it('answers for deployed smsgw-config nodes and known sections only', async () => {
    await loadFlow(flowWith(env.emu.url, [{ id: 'h', type: 'helper', z: 'tab' }]));
    await get('/smsgw/panel/cfg/nothing', 404);
    await get('/smsgw/panel/catcher/health', 404);
    await get('/smsgw/panel/not-deployed/health', 404);
    await helper.request().post('/smsgw/panel/cfg/health/nothing').send({}).expect(404);
    assert.equal((await get('/smsgw/panel/cfg/questions')).enabled, false);
  });

  it('publishes a data-free note on smsgw/panel/<config> when a call ended', async () => {
    await loadFlow(
      flowWith(env.emu.url, [{ id: 'bal', type: 'smsgw-balance', gateway: 'cfg', wires: [['out']] }]),
    );
    const notes: unknown[] = [];
    // What RED.comms.publish of a node module emits; the editor API sends it to every connected editor.
    const heard = (e: unknown): void => void notes.push(e);
    events.on('comms', heard);
    try {
      send('bal', { payload: '' });
      await waitFor(() => notes.length > 0);
      assert.deepEqual(notes[0], { topic: 'smsgw/panel/cfg', data: { changed: true }, retain: false });
    } finally {
      events.off('comms', heard);
    }
  });
});
