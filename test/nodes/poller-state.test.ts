import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Node } from 'node-red';
import { contextKey } from '../../src/nodes/common/state';
import {
  collect,
  flowWith,
  helper,
  loadFlow,
  send,
  sleep,
  startEnv,
  statuses,
  stopEnv,
  waitFor,
  type Env,
  type FlowNode,
} from './helpers';

type Ctx = { global: { get(key: string, store: string, cb: (err: unknown, v: unknown) => void): void } };

function globalGet(node: string, key: string, store: string): Promise<unknown> {
  const ctx = (helper.getNode(node) as unknown as { context(): Ctx }).context();
  return new Promise((resolve, reject) =>
    ctx.global.get(key, store, (err, v) => (err ? reject(err as Error) : resolve(v))),
  );
}

/**
 * The test helper never loads the configured context stores (every name falls back to its one memory store),
 * so load them as the runtime does at start; the flows here poll only on input, after this.
 */
async function loadWithStores(flow: FlowNode[]): Promise<void> {
  await loadFlow(flow);
  await (
    helper as unknown as { _redNodes: { loadContextsPlugin(): Promise<void> } }
  )._redNodes.loadContextsPlugin();
}

describe('nodes: poller state (context store, fetched-but-not-emitted records)', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
    helper.settings({
      userDir: env.userDir,
      contextStorage: { default: { module: 'memory' }, shared: { module: 'memory' } },
    } as Record<string, unknown>);
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  const poller = (type: string, extra: Record<string, unknown> = {}): FlowNode => ({
    id: 'p1',
    type,
    gateway: 'cfg',
    interval: 60,
    inputs: 1,
    wires: [['out']],
    ...extra,
  });

  async function pollOnce(): Promise<Record<string, unknown>[]> {
    const got = collect('out');
    const before = statuses('p1').length;
    send('p1', { payload: 'poll' });
    await waitFor(() =>
      statuses('p1')
        .slice(before)
        .some((s) => s.fill !== undefined && s.fill !== 'blue'),
    );
    await sleep(20);
    got.stop();
    return got.messages;
  }

  it('keeps the state in the named context store (global, keyed by node id), not in a file', async () => {
    const flow = flowWith(env.emu.url, [poller('smsgw-inbound', { store: 'shared' })]);
    await loadWithStores(flow);
    await pollOnce();
    const { id } = env.emu.control.injectInbound({ from: '+4917012377001', text: 'into the store' });
    assert.deepEqual(
      (await pollOnce()).map((m) => m.payload),
      ['into the store'],
    );
    const saved = (await globalGet('p1', contextKey('smsgw-inbound', 'p1'), 'shared')) as { seen: string[] };
    assert.ok(saved.seen.includes(`id:${id}`));
    assert.equal(await globalGet('p1', contextKey('smsgw-inbound', 'p1'), 'default'), undefined);
    assert.equal(existsSync(path.join(env.userDir, 'smsgw-state', 'smsgw-inbound.p1.json')), false);
  });

  it('a "modified nodes" redeploy resumes from the context store: the DLR cursor is kept', async () => {
    const flow = flowWith(env.emu.url, [poller('smsgw-dlr', { store: 'shared' })]);
    await loadWithStores(flow);
    await pollOnce();
    const before = (await globalGet('p1', contextKey('smsgw-dlr', 'p1'), 'shared')) as { cursor: string };
    assert.ok(before.cursor);
    const changed = flow.map((n) => (n.id === 'p1' ? { ...n, name: 'renamed' } : n));
    await helper.setFlows(changed, 'nodes', { cfg: { user: 'demo', password: 'demo-password' } });
    await pollOnce();
    const after = (await globalGet('p1', contextKey('smsgw-dlr', 'p1'), 'shared')) as { cursor: string };
    assert.ok(Date.parse(after.cursor) >= Date.parse(before.cursor));
    assert.equal(existsSync(path.join(env.userDir, 'smsgw-state', 'smsgw-dlr.p1.json')), false);
  });

  it('a read collected on the server while the flow stopped is emitted after the restart, once', async () => {
    const flow = flowWith(env.emu.url, [poller('smsgw-inbound', { inputs: 0, interval: 3600 })]);
    await loadFlow(flow);
    await waitFor(() => statuses('p1').some((s) => s.fill === 'grey' || s.fill === 'green'));
    const { id } = env.emu.control.injectInbound({ from: '+4917012377002', text: 'read while stopping' });
    env.emu.faults.add({ kind: 'delay', ms: 600, operation: 'QueryReceivedNewSMS' });
    await helper.unload(); // stopped ...
    await loadFlow(flow); // ... and started: this poll reads (and collects) the message, 600 ms late
    // The read is at the gateway (its delay taken): a fixed 100 ms could stop the flow before the read began.
    await waitFor(() => !env.emu.faults.list().some((f) => f.kind === 'delay'));
    const got = collect('out');
    await helper.unload(); // the flow stops while that read is in flight
    got.stop();
    assert.equal(got.messages.length, 0, 'not emitted by the stopping node');
    await loadFlow(flow);
    const again = collect('out');
    await waitFor(() => again.messages.length >= 1);
    await sleep(200);
    again.stop();
    assert.deepEqual(
      again.messages.map((m) => [(m.sms as { Id: number }).Id, m.payload]),
      [[id, 'read while stopping']],
    );
    assert.ok((again.messages[0]!.sms as { Date: unknown }).Date instanceof Date, 'dates revived');
  });

  it('records written as pending before a crash are emitted at the next start, then not again', async () => {
    const dir = path.join(env.userDir, 'smsgw-state');
    mkdirSync(dir, { recursive: true });
    const record = {
      Id: 990001,
      Sender: '+4917012377003',
      Text: 'pending',
      Date: { $date: '2026-01-02T03:04:05.000Z' },
    };
    writeFileSync(
      path.join(dir, 'smsgw-hlr-results.p9.json'),
      JSON.stringify({ seen: ['990001'], pending: [{ payload: record, topic: '+4917012377003' }] }),
    );
    const flow = flowWith(env.emu.url, [{ ...poller('smsgw-hlr-results'), id: 'p9' }]);
    await loadFlow(flow);
    const got = collect('out');
    (helper.getNode('p9') as Node).receive({ payload: 'poll' });
    await waitFor(() => got.messages.length >= 1);
    (helper.getNode('p9') as Node).receive({ payload: 'poll' });
    await sleep(300);
    got.stop();
    assert.equal(got.messages.length, 1);
    const p = got.messages[0]!.payload as { Id: number; Date: Date };
    assert.equal(p.Id, 990001);
    assert.equal(p.Date.toISOString(), '2026-01-02T03:04:05.000Z');
  });
});
