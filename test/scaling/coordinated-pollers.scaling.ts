/**
 * The polling triggers with "Coordinate instances through Redis" on, in one Node-RED (the test helper) against
 * a real redis-server: the test plays the other instance by writing the lease and the shared state directly.
 */
import assert from 'node:assert/strict';
import { createClient } from '@redis/client';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { Lease } from '../../src/coordination/lease';
import { RedisPollState, RedisQueueState } from '../../src/coordination/poll-state';
import { RedisLink } from '../../src/coordination/redis-link';
import { INBOUND } from '../../src/nodes/polling/queue-kinds';
import type { ReaderOwner } from '../../src/nodes/polling/reader-host';
import {
  collect,
  flowWith,
  helper,
  loadFlow,
  sleep,
  startEnv,
  statuses,
  stopEnv,
  waitFor,
  type Env,
} from '../nodes/helpers';
import { startRedisServer, type RedisServer } from './redis-server';

type Client = ReturnType<typeof createClient>;

/** Counts the emulator's operation requests by name (the fault injector is asked once per request). */
function countOperations(emu: RunningEmulator): Map<string, number> {
  const counts = new Map<string, number>();
  const original = emu.faults.take.bind(emu.faults);
  emu.faults.take = (operation: string | undefined) => {
    const name = operation ?? '?';
    counts.set(name, (counts.get(name) ?? 0) + 1);
    return original(operation);
  };
  return counts;
}

describe('coordinated pollers (real redis-server)', function () {
  this.timeout(30_000);
  let redis: RedisServer;
  let env: Env;
  let r: Client;
  let ops: Map<string, number>;
  const prefix = (): string => `t${Date.now().toString(36)}:`;

  before(async () => {
    redis = await startRedisServer();
    env = await startEnv();
    ops = countOperations(env.emu);
    r = createClient({ url: redis.url });
    r.on('error', () => undefined); // reconnects by itself when a test restarts the server
    await r.connect();
  });
  after(async () => {
    await r?.close();
    await stopEnv(env);
    await redis?.close();
  });
  afterEach(async () => {
    await helper.unload();
    ops.clear();
  });

  const coordination = (p: string, leaseS = 2): Record<string, unknown> => ({
    coordinate: true,
    redisUrl: redis.url,
    redisPrefix: p,
    redisLease: leaseS,
  });
  const inbound = { id: 'in', type: 'smsgw-inbound', gateway: 'cfg', interval: 1, wires: [['out']] };

  it('only the lease holder polls; a waiter takes over right after the lease is released', async () => {
    const p = prefix();
    // Another instance holds the lease.
    await r.set(`${p}cfg:smsgw-inbound:lease`, 'other-instance', { PX: 60_000 });
    env.emu.control.injectInbound({ from: '+491700000001', text: 'first' });
    await loadFlow(flowWith(env.emu.url, [inbound], coordination(p)));
    const got = collect('out');
    await sleep(1800);
    assert.equal(got.messages.length, 0, 'a waiter emits nothing');
    assert.equal(ops.get('QueryReceivedNewSMS') ?? 0, 0, 'a waiter does not poll the gateway');
    assert.ok(
      statuses('in').some((s) => String(s.text).includes('standby')),
      `standby shown: ${JSON.stringify(statuses('in'))}`,
    );
    const released = Date.now();
    await r.del(`${p}cfg:smsgw-inbound:lease`);
    await waitFor(() => got.messages.length === 1, 5000);
    const failover = Date.now() - released;
    assert.equal(got.messages[0]!.payload, 'first');
    assert.ok(failover < 1500, `took over ${failover} ms after the release (lease check at a third of 2 s)`);
    const holder = await r.get(`${p}cfg:smsgw-inbound:lease`);
    assert.ok(holder && holder !== 'other-instance', 'the node holds the lease now');
    await sleep(1200);
    assert.equal(got.messages.length, 1, 'emitted once');
  });

  it('hands on the pending records a killed holder left in Redis, once, before its own poll', async () => {
    const p = prefix();
    const base = `${p}cfg:smsgw-inbound:in`;
    // A holder read two messages (collected on the gateway), staged them and was killed before handing them on.
    await r.set(`${base}:state`, JSON.stringify({ seen: ['id:900001', 'id:900002'] }));
    await r.hSet(`${base}:pending`, {
      '000000001.dead.00000000': JSON.stringify({ payload: 'left 1', sms: { Id: 900001 } }),
      '000000001.dead.00000001': JSON.stringify({ payload: 'left 2', sms: { Id: 900002 } }),
    });
    env.emu.control.injectInbound({ from: '+491700000002', text: 'new' });
    await loadFlow(flowWith(env.emu.url, [inbound], coordination(p)));
    const got = collect('out');
    await waitFor(() => got.messages.length === 3, 5000);
    assert.deepEqual(
      got.messages.map((m) => m.payload),
      ['left 1', 'left 2', 'new'],
    );
    assert.equal(await r.hLen(`${base}:pending`), 0, 'nothing pending once handed on');
    const state = JSON.parse((await r.get(`${base}:state`)) ?? '{}') as { seen: string[] };
    assert.ok(state.seen.includes('id:900001') && state.seen.length === 3, JSON.stringify(state));
    await sleep(1200);
    assert.equal(got.messages.length, 3, 'nothing twice');
  });

  it('a flow stopping right after a record was handed on: the record is noted as handed on, not handed on again', async () => {
    const p = prefix();
    const base = `${p}cfg:smsgw-inbound:in`;
    // Another instance holds the lease; when it lapses, this one hands on what a killed holder left pending.
    await r.set(`${p}cfg:smsgw-inbound:lease`, 'other-instance', { PX: 60_000 });
    await r.set(`${base}:state`, JSON.stringify({ seen: ['id:900011', 'id:900012'] }));
    await r.hSet(`${base}:pending`, {
      '000000001.dead.00000000': JSON.stringify({ payload: 'left 1', sms: { Id: 900011 } }),
      '000000001.dead.00000001': JSON.stringify({ payload: 'left 2', sms: { Id: 900012 } }),
    });
    await loadFlow(flowWith(env.emu.url, [inbound], coordination(p)));
    const trigger = helper.getNode('in') as unknown as { send(msg: unknown): void };
    const reader = (
      helper.getNode('cfg') as unknown as { queueReader(kind: typeof INBOUND): { close(): Promise<void> } }
    ).queueReader(INBOUND);
    // The flow begins to stop (a redeploy, Node-RED stopping) just as the first record is handed on: the poll's
    // signal aborts between the trigger's send and the note in Redis.
    const send = trigger.send.bind(trigger);
    let closing: Promise<void> | undefined;
    trigger.send = (msg: unknown) => {
      send(msg);
      closing ??= reader.close();
    };
    const got = collect('out');
    await r.del(`${p}cfg:smsgw-inbound:lease`);
    await waitFor(() => closing !== undefined, 5000);
    await closing;
    assert.deepEqual(
      got.messages.map((m) => m.payload),
      ['left 1'],
    );
    // Before the fix the record stayed pending and the next holder (here: the next start) handed it on again.
    assert.deepEqual(
      await r.hKeys(`${base}:pending`),
      ['000000001.dead.00000001'],
      'only the one not handed on',
    );
    await helper.unload();
    await loadFlow(flowWith(env.emu.url, [inbound], coordination(p)));
    const again = collect('out');
    await waitFor(() => again.messages.length >= 1, 5000);
    await sleep(1200);
    assert.deepEqual(
      again.messages.map((m) => m.payload),
      ['left 2'],
      'each record once across the restart',
    );
  });

  it('two inbound triggers on one coordinated gateway: one read, each gets every message once', async () => {
    const p = prefix();
    const second = { ...inbound, id: 'in2', interval: 3600, wires: [['out2']] };
    await loadFlow(flowWith(env.emu.url, [inbound, second], coordination(p)));
    const got = collect('out');
    const got2 = collect('out2');
    for (let i = 0; i < 5; i++) env.emu.control.injectInbound({ from: '+491700000010', text: `both ${i}` });
    await waitFor(() => got.messages.length === 5 && got2.messages.length === 5, 8000);
    await sleep(1500);
    const texts = (msgs: { payload?: unknown }[]): string[] => msgs.map((m) => String(m.payload));
    assert.deepEqual(texts(got.messages), ['both 0', 'both 1', 'both 2', 'both 3', 'both 4']);
    assert.deepEqual(texts(got2.messages), texts(got.messages), 'the second listener too, once each');
    for (const id of ['in', 'in2']) {
      assert.equal(await r.hLen(`${p}cfg:smsgw-inbound:${id}:pending`), 0, `${id}: nothing left pending`);
      const state = JSON.parse((await r.get(`${p}cfg:smsgw-inbound:${id}:state`)) ?? '{}') as {
        seen: string[];
      };
      assert.equal(state.seen.length, 5, `${id}: the ids it was given`);
    }
    const reader = JSON.parse((await r.get(`${p}cfg:smsgw-inbound:state`)) ?? '{}') as {
      listeners: Record<string, number>;
    };
    assert.deepEqual(Object.keys(reader.listeners).sort(), ['in', 'in2']);
  });

  it("the panel's Inbound list on the lease holder: what its reader handed on through Redis", async () => {
    const p = prefix();
    await loadFlow(flowWith(env.emu.url, [inbound], coordination(p)));
    const got = collect('out');
    env.emu.control.injectInbound({ from: '+491700000030', text: 'through redis 1' });
    env.emu.control.injectInbound({ from: '+491700000030', text: 'through redis 2' });
    await waitFor(() => got.messages.length === 2, 8000);
    const d = (await helper.request().get('/smsgw/panel/cfg/inbound').expect(200)).body as {
      messages: { from: string; text: string; by: string[] }[];
    };
    assert.deepEqual(
      d.messages.map((m) => [m.from, m.text, m.by]),
      [
        ['+4917******30', 'through redis 2', ['trigger']],
        ['+4917******30', 'through redis 1', ['trigger']],
      ],
    );
  });

  it('a first taker on a coordinated gateway: it takes first, a failure holds the others back, its marks reach them (through Redis)', async () => {
    const p = prefix();
    await loadFlow(flowWith(env.emu.url, [], coordination(p)));
    const reader = (helper.getNode('cfg') as unknown as ReaderOwner).queueReader(INBOUND);
    const took: string[] = [];
    let failing = true;
    const text = (r: Record<string, unknown>): string => String(r.Text ?? '');
    const first = reader.listen({
      id: 'ask',
      first: true,
      take: (records) => {
        if (failing) return Promise.reject(new Error('cannot take now'));
        for (const r of records) took.push(`ask:${text(r)}`);
        return Promise.resolve(
          records.map((r) => (text(r).startsWith('1') ? { claimedBy: 'ask' } : undefined)),
        );
      },
    });
    const plain = reader.listen({
      id: 'plain',
      take: (records, _signal, marks) => {
        records.forEach((r, i) => took.push(`plain:${text(r)}:${String(marks[i]?.claimedBy ?? '-')}`));
        return Promise.resolve();
      },
    });
    env.emu.control.injectInbound({ from: '+491700000020', text: '1a' });
    env.emu.control.injectInbound({ from: '+491700000020', text: 'hello' });
    // Until this instance holds the lease and has read both (kept in Redis for the listener that is not first).
    const pendingKey = `${p}cfg:smsgw-inbound:plain:pending`;
    for (let i = 0; i < 50 && (await r.hLen(pendingKey)) < 2; i++) {
      await plain.pollNow().catch(() => undefined);
      await sleep(100);
    }
    await plain.pollNow();
    assert.equal(took.length, 0, 'held back while the first taker fails');
    assert.equal(
      await r.hLen(`${p}cfg:smsgw-inbound:plain:pending`),
      2,
      'kept in Redis for the other listener',
    );
    failing = false;
    await plain.pollNow();
    await waitFor(() => took.length === 4, 8000);
    assert.deepEqual(took, ['ask:1a', 'ask:hello', 'plain:1a:ask', 'plain:hello:-']);
    await plain.close(true);
    await first.close(true);
  });

  it('releases the lease on close, so another instance takes over at once', async () => {
    const p = prefix();
    await loadFlow(flowWith(env.emu.url, [inbound], coordination(p)));
    await waitFor(() => (ops.get('QueryReceivedNewSMS') ?? 0) > 0, 5000);
    assert.ok(await r.get(`${p}cfg:smsgw-inbound:lease`));
    await helper.unload();
    assert.equal(await r.get(`${p}cfg:smsgw-inbound:lease`), null);
  });

  it('fences a holder that lost its lease: its writes do not land', async () => {
    const p = prefix();
    const link = new RedisLink({ url: redis.url, prefix: p });
    await link.ready();
    try {
      const lease = new Lease(link, `${p}k:lease`, { leaseMs: 1000 });
      lease.start();
      await waitFor(() => lease.held, 3000);
      const hold = lease.current()!;
      const store = new RedisPollState<{ n: number }>(link, `${p}k:lease`, `${p}k:n`);
      assert.equal(await store.stage(hold, { n: 1 }, [{ key: 'a', value: { payload: 1 } }], false), 'staged');
      // Another instance takes the lease (this one was paused past its time, say).
      await lease.stop();
      await r.set(`${p}k:lease`, 'other', { PX: 60_000 });
      assert.equal(await store.done(hold, 'a'), false, 'a stale drop does not land');
      assert.equal(await r.hLen(`${p}k:n:pending`), 1);
      assert.equal(await store.stage(hold, { n: 2 }, [{ key: 'b', value: {} }], false), 'lost');
      assert.equal(await r.get(`${p}k:n:state`), '{"n":1}', 'the stale state is not written');
      // A destructive read's records are kept for the next holder (nobody else can read them again).
      assert.equal(
        await store.stage(hold, { n: 3 }, [{ key: 'c', value: { payload: 3 } }], true),
        'handed-over',
      );
      assert.equal(await r.get(`${p}k:n:state`), '{"n":1}');
      assert.deepEqual((await r.hKeys(`${p}k:n:pending`)).sort(), ['a', 'c']);
      // Staged again (its first answer was lost with the connection) after it was handed on and dropped: it stays
      // dropped, so nothing comes back to be handed on twice.
      await r.hDel(`${p}k:n:pending`, 'c');
      await store.stage(hold, { n: 3 }, [{ key: 'c', value: { payload: 3 } }], true);
      assert.deepEqual(await r.hKeys(`${p}k:n:pending`), ['a'], 'a batch is staged once');
    } finally {
      await link.close();
    }
  });

  it('a destructive read answered while Redis went away is kept and handed on once Redis is back', async () => {
    const p = prefix();
    await loadFlow(flowWith(env.emu.url, [inbound], coordination(p, 3)));
    const got = collect('out');
    await waitFor(() => (ops.get('QueryReceivedNewSMS') ?? 0) >= 1, 5000);
    // The next poll is held 1.5 s by the gateway; Redis goes away meanwhile; then the gateway answers (and marks
    // the message collected), so the poll's stage cannot reach Redis.
    env.emu.faults.add({ kind: 'delay', ms: 1500, operation: 'QueryReceivedNewSMS' });
    env.emu.control.injectInbound({ from: '+491700000005', text: 'read while Redis went away' });
    const polled = ops.get('QueryReceivedNewSMS') ?? 0;
    await waitFor(() => (ops.get('QueryReceivedNewSMS') ?? 0) > polled, 5000);
    await redis.stop();
    await sleep(2500);
    assert.equal(got.messages.length, 0, 'not handed on while Redis is away');
    await redis.start();
    await waitFor(() => got.messages.length === 1, 8000);
    assert.equal(got.messages[0]!.payload, 'read while Redis went away');
    await sleep(2000);
    assert.equal(got.messages.length, 1, 'once');
    await waitFor(() => r.isReady, 5000);
    assert.equal(await r.hLen(`${p}cfg:smsgw-inbound:in:pending`), 0, 'nothing left pending');
  });

  it('a holder killed between the gateway answer and the stage: the next holder recovers what it collected, once', async () => {
    const p = prefix();
    const base = `${p}cfg:smsgw-inbound`;
    // An emulator of its own: a recovery reads every message of the last minutes, the earlier tests' too.
    const emu = await startEmulator({ port: 0 });
    try {
      await loadFlow(flowWith(emu.url, [inbound], coordination(p)));
      // The holder's next read that brings records ends as a kill would end it: answered (the gateway marked them
      // collected), nothing staged after. Its lease is released at unload, as it lapses after a real kill.
      const reader = (
        helper.getNode('cfg') as unknown as {
          queueReader(kind: typeof INBOUND): { read(...args: unknown[]): Promise<{ records: unknown[] }> };
        }
      ).queueReader(INBOUND);
      const read = reader.read.bind(reader);
      let killed = false;
      reader.read = async (...args: unknown[]) => {
        const result = await read(...args);
        if (killed || result.records.length === 0) return result;
        killed = true;
        throw new Error('killed between the answer and the stage');
      };
      const first = collect('out');
      for (let i = 0; i < 3; i++) emu.control.injectInbound({ from: '+491700000006', text: `killed ${i}` });
      await waitFor(() => killed, 5000);
      const left = JSON.parse((await r.get(`${base}:state`)) ?? '{}') as {
        read?: { reading?: { id?: string } };
      };
      await helper.unload();
      assert.equal(first.messages.length, 0, 'nothing handed on before the kill');

      emu.control.injectInbound({ from: '+491700000006', text: 'next' });
      await loadFlow(flowWith(emu.url, [inbound], coordination(p)));
      const got = collect('out');
      await waitFor(() => got.messages.length >= 4, 5000).catch(() => undefined);
      await sleep(1500);
      assert.deepEqual(
        got.messages.map((m) => String(m.payload)).sort(),
        ['killed 0', 'killed 1', 'killed 2', 'next'],
        'each message once: 0 lost, 0 twice',
      );
      // The note was in Redis; its holder, had it only been cut off, could stage that read late: the recovery
      // claimed the read's batch marker, so such a stage writes nothing (the records are not handed on twice).
      const id = left.read?.reading?.id;
      assert.ok(id, `the note of the read in flight was in Redis: ${JSON.stringify(left)}`);
      assert.equal(await r.get(`${base}:staged:${id}`), '1', 'the recovery claimed the read');
      const link = new RedisLink({ url: redis.url, prefix: p });
      await link.ready();
      try {
        const late = new RedisQueueState<unknown, unknown>(link, `${base}:lease`, base);
        const listener = late.listener('in');
        await late.stage(
          { token: 'the killed holder', generation: 0 },
          {},
          [
            {
              pending: listener,
              state: { seen: [] },
              entries: [{ key: 'late', value: { payload: 'killed 0' } }],
            },
          ],
          true,
          id,
        );
        assert.equal(
          await r.hLen(`${base}:in:pending`),
          0,
          'a late stage of the claimed read writes nothing',
        );
      } finally {
        await link.close();
      }
    } finally {
      await helper.unload();
      await emu.close();
    }
  });

  it('Redis down: the poller stops and says so; back: it goes on without repeating anything', async () => {
    const p = prefix();
    await loadFlow(flowWith(env.emu.url, [inbound], coordination(p, 3)));
    const got = collect('out');
    env.emu.control.injectInbound({ from: '+491700000003', text: 'before' });
    await waitFor(() => got.messages.length === 1, 5000);
    await redis.stop();
    await sleep(300);
    const polledWhileDown = ops.get('QueryReceivedNewSMS') ?? 0;
    env.emu.control.injectInbound({ from: '+491700000004', text: 'during' });
    await sleep(2000);
    assert.equal(got.messages.length, 1, 'nothing read while Redis is down');
    assert.ok((ops.get('QueryReceivedNewSMS') ?? 0) <= polledWhileDown + 1, 'the gateway is not polled');
    assert.ok(
      statuses('in').some((s) => /redisDown|Redis unreachable/.test(String(s.text))),
      JSON.stringify(statuses('in').slice(-3)),
    );
    await redis.start();
    await waitFor(() => got.messages.length === 2, 8000);
    assert.equal(got.messages[1]!.payload, 'during');
    await sleep(1500);
    assert.equal(got.messages.length, 2);
    // The client of this test reconnects by itself.
    await waitFor(() => r.isReady, 5000);
  });
});
