/**
 * The heartbeat node in Node-RED: overdue once and back once per source, listed sources, a redeploy that does not
 * repeat an alarm, msg.heartbeat.forget, bad input to the Catch node, the status, and the gateway watch on a locked
 * account. Time passes for real here (Expected every 1 second): the tests wait for the outputs (bounded) and assert
 * order and counts; the timing rules themselves are tested on a hand-moved clock (sources.test.ts).
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import {
  collect,
  flowWith,
  helper,
  loadFlow,
  send,
  startEnv,
  statuses,
  stopEnv,
  waitFor,
  warnings,
  type Env,
  type FlowNode,
} from '../helpers';
import { readStateFile } from '../../store/read';

type Rec = Record<string, unknown>;

/** Each test's node has an id of its own: its state file is its own. */
let hb = 'hb';
let tests = 0;

const heartbeat = (extra: Rec = {}): FlowNode => ({
  id: hb,
  type: 'smsgw-heartbeat',
  gateway: '',
  source: 'topic',
  sourceType: 'msg',
  every: 1,
  unit: 's',
  grace: 0,
  sources: '',
  wires: [['out'], ['out2']],
  ...extra,
});

describe('nodes: heartbeat (smsgw-heartbeat)', function () {
  this.timeout(60_000);
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));
  beforeEach(() => {
    hb = `hb${++tests}`;
  });
  afterEach(() => helper.unload());

  const lastStatus = (): Rec => statuses(hb).at(-1) ?? {};
  const payloadOf = (m: Rec): Rec => m.payload as Rec;

  it('a quiet source: overdue once on output 1, back once on output 2 at its next msg; the status counts', async () => {
    await loadFlow(flowWith(env.emu.url, [heartbeat()]));
    const overdue = collect('out');
    const back = collect('out2');
    await waitFor(() => lastStatus().text === 'no source yet');
    send(hb, { topic: 'home/freezer', payload: 21 });
    await waitFor(() => lastStatus().text === '1 watched');
    assert.equal(lastStatus().fill, 'green');
    await waitFor(() => overdue.messages.length > 0);
    const o = overdue.messages[0]!;
    assert.equal(o.topic, 'home/freezer');
    const p = payloadOf(o);
    assert.deepEqual(Object.keys(p).sort(), ['expectedEveryMs', 'lastSeen', 'overdueSince', 'source']);
    assert.equal(p.source, 'home/freezer');
    assert.equal(p.expectedEveryMs, 1000);
    assert.equal(Date.parse(p.overdueSince as string) - Date.parse(p.lastSeen as string), 1000);
    await waitFor(() => lastStatus().text === '1 of 1 overdue');
    assert.equal(lastStatus().fill, 'red');

    send(hb, { topic: 'home/freezer', payload: 20 });
    await waitFor(() => back.messages.length > 0);
    assert.equal(back.messages[0]!.topic, 'home/freezer');
    assert.equal(payloadOf(back.messages[0]!).overdueSince, p.overdueSince);
    // Both outputs once each (an overdue again would need another quiet second after the back).
    assert.equal(
      overdue.messages.filter((m) => payloadOf(m).overdueSince === p.overdueSince).length,
      1,
      'that overdue once',
    );
    assert.equal(back.messages.length, 1);
  });

  it('listed sources are watched from the deploy: the one that never reports is overdue, an unlisted one is not watched (one warning)', async () => {
    await loadFlow(flowWith(env.emu.url, [heartbeat({ sources: 'a, b' })]));
    const overdue = collect('out');
    await waitFor(() => lastStatus().text === '2 watched');
    send(hb, { topic: 'c' });
    send(hb, { topic: 'c' });
    await waitFor(() => overdue.messages.length >= 2);
    assert.deepEqual(overdue.messages.map((m) => m.topic).sort(), ['a', 'b']);
    assert.equal(payloadOf(overdue.messages[0]!).lastSeen, null);
    assert.equal(warnings(hb).filter((w) => w.includes('Sources does not list')).length, 1);
    assert.match(String(lastStatus().text), /^2 of 2 overdue$/);
  });

  it('a redeploy after an overdue does not send it again; the state file has it before', async () => {
    const flow = flowWith(env.emu.url, [heartbeat()]);
    await loadFlow(flow);
    let overdue = collect('out');
    send(hb, { topic: 'pump' });
    await waitFor(() => overdue.messages.length > 0);
    const file = path.join(env.userDir, 'smsgw-state', `smsgw-heartbeat.${hb}.json`);
    const kept = readStateFile<{ sources: Record<string, { over?: number }> }>(file);
    assert.equal(typeof kept.sources.pump?.over, 'number', 'noted in the state file');
    await helper.unload();
    await loadFlow(flow);
    overdue = collect('out');
    const back = collect('out2');
    await waitFor(() => lastStatus().text === '1 of 1 overdue');
    send(hb, { topic: 'pump' });
    await waitFor(() => back.messages.length > 0);
    assert.equal(overdue.messages.length, 0, 'nothing sent again before its back');
  });

  it('msg.heartbeat = { forget: true } stops watching the source: no overdue, no back', async () => {
    await loadFlow(flowWith(env.emu.url, [heartbeat({ every: 2 })]));
    const overdue = collect('out');
    send(hb, { topic: 'x' });
    send(hb, { topic: 'y' });
    await waitFor(() => lastStatus().text === '2 watched');
    send(hb, { topic: 'x', heartbeat: { forget: true } });
    await waitFor(() => lastStatus().text === '1 watched');
    await waitFor(() => overdue.messages.length > 0);
    assert.deepEqual(
      overdue.messages.map((m) => m.topic),
      ['y'],
    );
  });

  it('bad input goes to the Catch node (VALIDATION) and changes nothing', async () => {
    await loadFlow(flowWith(env.emu.url, [heartbeat()]));
    const caught = collect('caught');
    send(hb, { topic: { not: 'text' } });
    send(hb, { topic: 'x'.repeat(501) });
    send(hb, { topic: 'ok', heartbeat: 'forget' });
    send(hb, { payload: 'no topic' });
    await waitFor(() => caught.messages.length === 4);
    assert.deepEqual(
      caught.messages.map((m) => (m.error as { code?: string }).code),
      ['VALIDATION', 'VALIDATION', 'VALIDATION', 'VALIDATION'],
    );
    assert.equal(lastStatus().text, 'no source yet');
  });

  it('Watch the gateway without a gateway configuration: refused at deploy, every msg fails with CONFIG', async () => {
    await loadFlow(flowWith(env.emu.url, [heartbeat({ watch: true })]));
    const caught = collect('caught');
    assert.equal(lastStatus().fill, 'red');
    send(hb, { topic: 'x' });
    await waitFor(() => caught.messages.length === 1);
    assert.equal((caught.messages[0]!.error as { code?: string }).code, 'CONFIG');
  });

  it('the gateway watch: 3 calls failing with AUTH raise the calls alarm once, the next answered call clears it once', async () => {
    const bal: FlowNode = {
      id: 'bal',
      type: 'smsgw-balance',
      gateway: 'cfg',
      operation: 'auto',
      threshold: '',
      thresholdType: 'num',
      wires: [[]],
    };
    await loadFlow(
      flowWith(env.emu.url, [
        bal,
        heartbeat({ gateway: 'cfg', watch: true, failures: 3, every: 1, unit: 'h', sources: '' }),
      ]),
    );
    const down = collect('out');
    const up = collect('out2');
    const caught = collect('caught');
    env.emu.control.lockAccount('demo', true);
    try {
      for (let i = 1; i <= 5; i++) {
        send('bal', { payload: 'tick' });
        await waitFor(() => caught.messages.length === i);
      }
    } finally {
      env.emu.control.lockAccount('demo', false);
    }
    await waitFor(() => down.messages.length > 0);
    assert.equal(down.messages.length, 1, 'raised once for 5 failures');
    const d = down.messages[0]!;
    // Named by the configuration's name (an unnamed one gets its default name at deploy).
    const name = String(payloadOf(d).gateway);
    assert.equal(d.topic, `gateway/${name}/calls`);
    assert.deepEqual([payloadOf(d).reason, payloadOf(d).code, payloadOf(d).failures], ['calls', 'AUTH', 3]);
    await waitFor(() => /gateway calls failing/.test(String(lastStatus().text)));
    send('bal', { payload: 'tick' });
    send('bal', { payload: 'tick' });
    await waitFor(() => up.messages.length > 0);
    await waitFor(() => !/gateway calls failing/.test(String(lastStatus().text)));
    assert.equal(up.messages.length, 1);
    assert.equal(up.messages[0]!.topic, `gateway/${name}/calls`);
    assert.equal(typeof payloadOf(up.messages[0]!).backAt, 'string');
    assert.equal(down.messages.length, 1);
  });
});
