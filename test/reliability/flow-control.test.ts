import assert from 'node:assert/strict';
import { GatewayClient } from '../../src/client';
import { GatewayError } from '../../src/errors';
import { FlowControl, type FlowState } from '../../src/reliability';
import { PASSWORD, quietEmulator, report } from './helpers';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('reliability: flow control', function () {
  this.timeout(60_000);

  it('runs at most maxConcurrent at once, in submission order, and reports the queue depth', async () => {
    const flow = new FlowControl({ maxConcurrent: 2, maxQueue: 10 });
    const states: FlowState[] = [];
    flow.onChange((s) => states.push(s));
    const gates = Array.from({ length: 5 }, deferred);
    const started: number[] = [];
    let peak = 0;
    const done = gates.map((g, i) =>
      flow.run(async () => {
        started.push(i);
        peak = Math.max(peak, flow.active);
        await g.promise;
        return i;
      }),
    );
    await tick();
    assert.deepEqual(started, [0, 1]);
    assert.equal(flow.depth, 3);
    for (const g of gates) {
      g.resolve();
      await tick();
    }
    assert.deepEqual(await Promise.all(done), [0, 1, 2, 3, 4]);
    assert.deepEqual(started, [0, 1, 2, 3, 4]);
    assert.equal(peak, 2);
    assert.equal(Math.max(...states.map((s) => s.depth)), 3);
    assert.deepEqual(states.at(-1), { depth: 0, active: 0 });
  });

  it('a full queue refuses at once with QUEUE_FULL; an aborted waiter leaves the queue', async () => {
    const flow = new FlowControl({ maxConcurrent: 1, maxQueue: 2 });
    const gate = deferred();
    const first = flow.run(() => gate.promise);
    const ac = new AbortController();
    const second = flow.run(async () => 'second', ac.signal);
    const third = flow.run(async () => 'third');
    await assert.rejects(
      flow.run(async () => 'fourth'),
      (e: GatewayError) => e.code === 'QUEUE_FULL' && !e.ambiguous,
    );
    ac.abort();
    await assert.rejects(second, (e: GatewayError) => e.code === 'TIMEOUT' && !e.ambiguous);
    assert.equal(flow.depth, 1);
    const fifth = flow.run(async () => 'fifth');
    gate.resolve();
    assert.deepEqual(await Promise.all([first, third, fifth]), [undefined, 'third', 'fifth']);
  });

  it('never starts more than ratePerSecond + burst requests in any second', async () => {
    const flow = new FlowControl({ ratePerSecond: 40, burst: 4, maxQueue: 1000 });
    const starts: number[] = [];
    await Promise.all(
      Array.from({ length: 60 }, () =>
        flow.run(async () => {
          starts.push(performance.now());
        }),
      ),
    );
    for (let i = 0; i < starts.length; i++) {
      const inWindow = starts.filter((t) => t >= starts[i]! && t < starts[i]! + 1000).length;
      assert.ok(inWindow <= 44, `${inWindow} starts within one second`);
    }
  });

  it('100,000 sends at full speed, 200/s: every promise settles (sent or QUEUE_FULL), memory stays bounded', async () => {
    const N = 100_000;
    const flow = new FlowControl({ ratePerSecond: 200, maxConcurrent: 50, maxQueue: 1000 });
    let sent = 0;
    let peakDepth = 0;
    flow.onChange((s) => (peakDepth = Math.max(peakDepth, s.depth)));
    const fakeSend = async (): Promise<number> => ++sent; // a fast gateway: no network needed for this figure
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    let peakHeap = heapBefore;
    const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 20);
    const started = Date.now();
    let ok = 0;
    let full = 0;
    let other = 0;
    let allSettled!: () => void;
    const everyOne = new Promise<void>((r) => (allSettled = r));
    const settle = (): void => {
      if (ok + full + other === N) allSettled();
    };
    for (let i = 0; i < N; i++) {
      // Full speed, as messages arrive in a flow: a thousand per turn of the event loop, never waiting.
      if (i % 1000 === 0) await new Promise((r) => setImmediate(r));
      flow.run(fakeSend).then(
        () => {
          ok++;
          settle();
        },
        (e: unknown) => {
          if (e instanceof GatewayError && e.code === 'QUEUE_FULL') full++;
          else other++;
          settle();
        },
      );
    }
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    await everyOne;
    clearInterval(sampler);
    const ms = Date.now() - started;
    report('flow control 100k', {
      submitted: N,
      sent: ok,
      queueFull: full,
      other,
      peakDepth,
      ms,
      peakHeapMB: Math.round(peakHeap / 2 ** 20),
      heapGrowthMB: Math.round((peakHeap - heapBefore) / 2 ** 20),
    });
    assert.equal(ok + full, N, 'every submitted promise settled, as sent or QUEUE_FULL');
    assert.equal(other, 0);
    assert.equal(ok, sent);
    assert.ok(full > 0, 'the burst overflowed the queue');
    assert.equal(peakDepth, 1000, 'the queue filled up to its bound and no further');
    // The queue holds at most 1000 waiters: the heap must not grow with the 100,000 submitted.
    assert.ok(peakHeap - heapBefore < 64 * 2 ** 20, `heap grew by ${peakHeap - heapBefore} bytes`);
  });

  it('tells its settled listeners how each call that ran ended, in order; not the calls refused before they ran', async () => {
    const flow = new FlowControl({ maxConcurrent: 1, maxQueue: 1 });
    const told: string[] = [];
    const off = flow.onSettled((e) => told.push(e === undefined ? 'ok' : (e as GatewayError).code));
    flow.onSettled(() => {
      throw new Error('a listener that throws changes no outcome');
    });
    const gate = deferred();
    const first = flow.run(async () => {
      await gate.promise;
      return 1;
    });
    const second = flow.run(() => Promise.reject(new GatewayError('NETWORK', 'unreachable')));
    const third = flow.run(() => Promise.resolve(3));
    await assert.rejects(third, (e: unknown) => e instanceof GatewayError && e.code === 'QUEUE_FULL');
    gate.resolve();
    assert.equal(await first, 1);
    await assert.rejects(second, (e: unknown) => e instanceof GatewayError && e.code === 'NETWORK');
    assert.deepEqual(told, ['ok', 'NETWORK']);
    off();
    assert.equal(await flow.run(() => Promise.resolve(4)), 4);
    assert.deepEqual(told, ['ok', 'NETWORK'], 'an unsubscribed listener is told nothing');
  });

  it('the client applies it to every call and shows the depth; retries and lookups are paced, not queued', async () => {
    const emu = await quietEmulator({ duplicateWindowMs: 0 });
    const client = new GatewayClient({
      baseUrl: emu.url,
      user: 'demo',
      password: PASSWORD,
      reference: true,
      flowControl: { maxConcurrent: 2, maxQueue: 3, ratePerSecond: 100 },
      safeRetries: { settleMs: 5 },
    });
    try {
      await client.information.queryAccountBalance();
      emu.faults.add({ kind: 'commitThenDrop', operation: 'SendSMS', count: 2 });
      const depths: number[] = [];
      client.flow!.onChange((s) => depths.push(s.depth));
      const outcomes = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) =>
          client.send.sendSms({
            Caption: `f${i}`,
            Sender: 'S',
            Recipient: ['+4917012345678'],
            SMSText: 'x',
            SmsTyp: 'Standard',
            SendDate: null,
          }),
        ),
      );
      const refused = outcomes.filter(
        (o) => o.status === 'rejected' && (o.reason as GatewayError).code === 'QUEUE_FULL',
      );
      assert.equal(refused.length, 3);
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 5);
      assert.equal(emu.state.jobs().length, 5);
      assert.equal(Math.max(...depths), 3);
      assert.equal(client.flow!.depth, 0);
    } finally {
      await client.close();
      await emu.close();
    }
  });
});
