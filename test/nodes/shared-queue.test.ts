/**
 * One reader per gateway configuration, many listeners: the config node owns the one reader of new
 * inbound messages (and of new HLR results), and every trigger of that kind on it is a listener that gets every
 * record, once, across redeploys and restarts. Before, two triggers split the queue and the second one warned.
 */
import assert from 'node:assert/strict';
import { readStateFile } from '../store/read';
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Node, NodeMessage } from 'node-red';
import { GatewayClient } from '../../src/client';
import {
  flowWith,
  helper,
  loadFlow,
  pollUntil,
  send,
  sleep,
  startEnv,
  statuses,
  stopEnv,
  waitFor,
  warnings,
  type Env,
  type FlowNode,
} from './helpers';

describe('nodes: one reader per gateway configuration, every trigger a listener', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
    env.emu.control.setBalance('demo', 1_000_000);
  });
  after(() => stopEnv(env));
  afterEach(async () => {
    await helper.unload();
    // Each test starts with readers that know no listener yet.
    for (const type of ['smsgw-inbound', 'smsgw-hlr-results'])
      rmSync(path.join(env.userDir, 'smsgw-state', `${type}-reader.cfg.json`), { force: true });
  });

  const trigger = (id: string, type: string, extra: Record<string, unknown> = {}): FlowNode => ({
    id,
    type,
    name: '',
    gateway: 'cfg',
    interval: 3600,
    inputs: 1,
    wires: [[`${id}-out`]],
    ...extra,
  });
  const outs = (...ids: string[]): FlowNode[] =>
    ids.map((id) => ({ id: `${id}-out`, type: 'helper', z: 'tab' }));

  /** What each helper node received, by the trigger's id. */
  function recorder(ids: string[]): Map<string, NodeMessage[]> {
    const got = new Map<string, NodeMessage[]>(ids.map((id) => [id, []]));
    for (const id of ids)
      (helper.getNode(`${id}-out`) as Node).on('input', (m: NodeMessage) => got.get(id)!.push(m));
    return got;
  }
  const texts = (msgs: NodeMessage[] | undefined): string[] =>
    (msgs ?? []).map((m) => String(m.payload)).sort();

  const operations = (name: string): number =>
    env.emu.requests.list().filter((r) => r.operation === name).length;

  it('two inbound SMS triggers on one gateway both get every message, from one read, without a warning', async () => {
    await loadFlow([
      ...flowWith(env.emu.url, [trigger('a', 'smsgw-inbound'), trigger('b', 'smsgw-inbound')]),
      ...outs('a', 'b'),
    ]);
    const got = recorder(['a', 'b']);
    env.emu.control.injectInbound({ from: '+4917012344001', text: 'one' });
    env.emu.control.injectInbound({ from: '+4917012344002', text: 'two' });
    env.emu.requests.clear();
    send('a', { payload: 'poll' });
    await waitFor(() => got.get('a')!.length === 2 && got.get('b')!.length === 2);
    assert.equal(operations('QueryReceivedNewSMS'), 1, 'one read for both');
    send('b', { payload: 'poll' });
    await sleep(300);
    assert.deepEqual(texts(got.get('a')), ['one', 'two']);
    assert.deepEqual(texts(got.get('b')), ['one', 'two'], 'each message once to each');
    assert.deepEqual([...warnings('a'), ...warnings('b'), ...warnings('cfg')], []);
  });

  it('polls at the shortest interval of its listeners; a trigger polling on input gets what the others read', async () => {
    await loadFlow([
      ...flowWith(env.emu.url, [
        trigger('a', 'smsgw-inbound', { inputs: 0, interval: 1 }),
        trigger('b', 'smsgw-inbound', { inputs: 0, interval: 3600 }),
        trigger('c', 'smsgw-inbound'),
      ]),
      ...outs('a', 'b', 'c'),
    ]);
    const got = recorder(['a', 'b', 'c']);
    await sleep(200);
    env.emu.control.injectInbound({ from: '+4917012344003', text: 'interval' });
    await waitFor(() => ['a', 'b', 'c'].every((id) => got.get(id)!.length === 1), 4000);
    env.emu.requests.clear();
    const from = Date.now();
    // At least one read (waited for: on a loaded machine the first may come after 2.2 s), at most one a second.
    await waitFor(() => operations('QueryReceivedNewSMS') >= 1, 10_000);
    await sleep(Math.max(0, 2200 - (Date.now() - from)));
    const reads = operations('QueryReceivedNewSMS');
    const window = Date.now() - from;
    assert.ok(
      reads >= 1 && reads <= Math.floor(window / 1000) + 1,
      `${reads} reads in ${window} ms at the 1 s interval`,
    );
  });

  it('a trigger redeployed while a read is under way gets what that read found, once', async () => {
    const flow = [
      ...flowWith(env.emu.url, [trigger('a', 'smsgw-inbound'), trigger('b', 'smsgw-inbound')]),
      ...outs('a', 'b'),
    ];
    const creds = { cfg: { user: 'demo', password: 'demo-password' } };
    await loadFlow(flow);
    const got = recorder(['a', 'b']);
    env.emu.control.injectInbound({ from: '+4917012344004', text: 'read while b was redeployed' });
    env.emu.faults.add({ kind: 'delay', ms: 400, operation: 'QueryReceivedNewSMS' });
    send('a', { payload: 'poll' });
    // The read is at the gateway (its delay taken): a fixed 100 ms could redeploy b before the read began.
    await waitFor(() => !env.emu.faults.list().some((f) => f.kind === 'delay'));
    // b is modified and redeployed alone while the read is under way.
    await helper.setFlows(
      flow.map((n) => (n.id === 'b' ? { ...n, name: 'renamed' } : n)),
      'nodes',
      creds,
    );
    // The helper nodes stay: the first recorder still counts.
    await waitFor(() => got.get('a')!.length === 1);
    send('b', { payload: 'poll' });
    await waitFor(() => got.get('b')!.length >= 1);
    send('b', { payload: 'poll' });
    await sleep(300);
    assert.deepEqual(texts(got.get('b')), ['read while b was redeployed']);
  });

  it('a deleted trigger is forgotten: nothing read afterwards is kept for it', async () => {
    const flow = [
      ...flowWith(env.emu.url, [trigger('a', 'smsgw-inbound'), trigger('b', 'smsgw-inbound')]),
      ...outs('a', 'b'),
    ];
    const creds = { cfg: { user: 'demo', password: 'demo-password' } };
    await loadFlow(flow);
    const before = statuses('a').length;
    send('a', { payload: 'poll' });
    // The first poll has ended (its status shows what it read): b is a listener the reader saved.
    await waitFor(() =>
      statuses('a')
        .slice(before)
        .some((s) => s.fill !== undefined && s.fill !== 'blue'),
    );
    await helper.setFlows(
      flow.filter((n) => n.id !== 'b'),
      'nodes',
      creds,
    );
    env.emu.control.injectInbound({ from: '+4917012344005', text: 'after b was deleted' });
    const gotA = recorder(['a']);
    // The first poll may still be saving: a poll asked for now would join it.
    await pollUntil('a', () => gotA.get('a')!.length === 1);
    const file = path.join(env.userDir, 'smsgw-state', 'smsgw-inbound-reader.cfg.json');
    const saved = (): { listeners: object; owed: object } =>
      readStateFile(file) as { listeners: object; owed: object };
    // Written once more after a took it.
    await waitFor(() => Object.keys(saved().owed).length === 0, 10_000).catch(() => undefined);
    assert.deepEqual(Object.keys(saved().listeners), ['a']);
    assert.deepEqual(saved().owed, {}, 'nothing kept for b');
  });

  it('every listener gets each message once across a restart, messages arriving while Node-RED is stopped', async () => {
    const flow = [
      ...flowWith(env.emu.url, [trigger('a', 'smsgw-inbound'), trigger('b', 'smsgw-inbound')]),
      ...outs('a', 'b'),
    ];
    const counts = new Map<string, Map<string, number>>([
      ['a', new Map()],
      ['b', new Map()],
    ]);
    const count = (): void => {
      for (const id of ['a', 'b'])
        (helper.getNode(`${id}-out`) as Node).on('input', (m: NodeMessage) => {
          const c = counts.get(id)!;
          c.set(String(m.payload), (c.get(String(m.payload)) ?? 0) + 1);
        });
    };
    const injected: string[] = [];
    const inject = (n: number): void => {
      for (let i = 0; i < n; i++) {
        const text = `r${injected.length}`;
        env.emu.control.injectInbound({ from: '+4917012344010', text });
        injected.push(text);
      }
    };
    for (let round = 0; round < 3; round++) {
      await loadFlow(flow);
      count();
      inject(3);
      send(round % 2 === 0 ? 'a' : 'b', { payload: 'poll' });
      await sleep(150);
      // The flow stops while a read is in flight; more arrive while Node-RED is down.
      inject(2);
      send('a', { payload: 'poll' });
      await helper.unload();
      inject(2);
    }
    await loadFlow(flow);
    count();
    send('a', { payload: 'poll' });
    await waitFor(() => ['a', 'b'].every((id) => counts.get(id)!.size === injected.length), 15_000).catch(
      () => undefined,
    );
    await sleep(200);
    for (const id of ['a', 'b']) {
      const c = counts.get(id)!;
      assert.deepEqual(
        injected.filter((t) => c.get(t) !== 1),
        [],
        `${id}: each once (${JSON.stringify([...c])})`,
      );
    }
  });

  it('two HLR results triggers on one gateway both get every result (the same treatment)', async () => {
    const client = new GatewayClient({ baseUrl: env.emu.url, user: 'demo', password: 'demo-password' });
    await loadFlow([
      ...flowWith(env.emu.url, [trigger('a', 'smsgw-hlr-results'), trigger('b', 'smsgw-hlr-results')]),
      ...outs('a', 'b'),
    ]);
    const got = recorder(['a', 'b']);
    await client.send.sendHlr({ Caption: 'hlr', Recipient: '+4917055544001,+4917055544002' });
    await client.close();
    env.emu.control.finishJobs();
    send('b', { payload: 'poll' });
    await waitFor(() => got.get('a')!.length === 2 && got.get('b')!.length === 2);
    assert.deepEqual(
      got
        .get('a')!
        .map((m) => m.topic)
        .sort(),
      ['+4917055544001', '+4917055544002'],
    );
    assert.deepEqual([...warnings('a'), ...warnings('b')], []);
  });

  it('triggers on two gateway configurations each have their own reader', async () => {
    const flow = [
      ...flowWith(env.emu.url, [
        trigger('a', 'smsgw-inbound'),
        trigger('c', 'smsgw-inbound', { gateway: 'cfg2' }),
      ]),
      ...outs('a', 'c'),
    ];
    flow.push({ ...flow.find((n) => n.id === 'cfg')!, id: 'cfg2' });
    await loadFlow(flow, {
      cfg: { user: 'demo', password: 'demo-password' },
      cfg2: { user: 'demo', password: 'demo-password' },
    });
    const got = recorder(['a', 'c']);
    env.emu.control.injectInbound({ from: '+4917012344020', text: 'one account, two configurations' });
    send('a', { payload: 'poll' });
    await waitFor(() => got.get('a')!.length === 1);
    send('c', { payload: 'poll' });
    await sleep(300);
    assert.deepEqual(got.get('c'), [], "the first configuration's reader collected it");
  });
});
