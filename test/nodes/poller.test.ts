import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { clampInterval, MAX_DELAY_MS, Poller } from '../../src/nodes/polling/poller';
import { SeenIds } from '../../src/nodes/polling/seen-ids';
import { StateFile } from '../../src/store';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(5);
  }
}

describe('nodes: Poller', () => {
  it('clamps the interval to [min, 2^31-1] and treats nonsense as the minimum', () => {
    assert.equal(clampInterval(10, 1000), 1000);
    assert.equal(clampInterval(5000, 1000), 5000);
    assert.equal(clampInterval(1e12, 1000), MAX_DELAY_MS);
    assert.equal(clampInterval(Number.NaN, 1000), 1000);
    assert.equal(clampInterval(-5, 1000), 1000);
  });

  it('retime: a shared poller starts on its first interval, follows a shorter one, and stops the interval on none', async () => {
    let count = 0;
    const poller = new Poller({
      intervalMs: MAX_DELAY_MS,
      minIntervalMs: 1,
      poll: () => {
        count++;
        return Promise.resolve();
      },
      onError: () => undefined,
    });
    try {
      await sleep(30);
      assert.equal(count, 0, 'no interval yet: only trigger() polls');
      await poller.trigger();
      assert.equal(count, 1);
      poller.retime(10_000);
      await waitFor(() => count === 2); // polls at once when the interval starts
      poller.retime(20);
      assert.equal(poller.intervalMs, 20);
      await waitFor(() => count >= 5, 2000); // the shorter interval from now on, not in 10 s
      poller.retime(undefined);
      await sleep(40);
      const stopped = count;
      await sleep(80);
      assert.equal(count, stopped, 'no interval: no more polls');
    } finally {
      await poller.stop();
    }
  });

  it('never runs two polls at once, even when a poll takes longer than the interval', async () => {
    let running = 0;
    let maxRunning = 0;
    let count = 0;
    const poller = new Poller({
      intervalMs: 1,
      minIntervalMs: 1,
      poll: async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        count++;
        await sleep(15);
        running--;
      },
      onError: () => assert.fail('no error expected'),
    });
    poller.start();
    void poller.trigger(); // an input while the chain runs joins the running poll
    await waitFor(() => count >= 3);
    await poller.stop();
    assert.equal(maxRunning, 1);
    assert.ok(count >= 3, `only ${count} polls`);
  });

  it('backs off after failures (doubling, capped) and keeps polling; a success resets it', async () => {
    const delays: number[] = [];
    let calls = 0;
    const poller = new Poller({
      intervalMs: 2,
      minIntervalMs: 1,
      maxBackoffMs: 16,
      poll: async () => {
        calls++;
        if (calls <= 6) throw new Error('down');
      },
      onError: (_err, failures, retryIn) => delays.push(retryIn) && failures,
    });
    poller.start();
    // Waits for the count, not a fixed time: on a loaded machine six back-offs may take longer than planned.
    await waitFor(() => calls > 7);
    await poller.stop();
    assert.deepEqual(delays, [2, 4, 8, 16, 16, 16]);
    assert.equal(poller.consecutiveFailures, 0);
    assert.ok(calls > 7);
  });

  it('stop() aborts the poll in flight, waits for it, and nothing is scheduled afterwards', async () => {
    let aborted = false;
    let calls = 0;
    const poller = new Poller({
      intervalMs: 1,
      minIntervalMs: 1,
      poll: (signal) =>
        new Promise<void>((_resolve, reject) => {
          calls++;
          signal.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('aborted'));
          });
        }),
      onError: () => assert.fail('an abort on stop is not a failure'),
    });
    poller.start();
    await sleep(20);
    await poller.stop();
    assert.equal(aborted, true);
    await sleep(20);
    assert.equal(calls, 1);
  });
});

describe('nodes: StateFile and SeenIds', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'smsgw-state-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('round-trips the state through <userDir>/smsgw-state/<type>.<id>.json and leaves no temp file', async () => {
    const a = new StateFile<{ cursor: string }>(dir, 'smsgw-dlr.abc123', { kind: 'cursor' });
    assert.equal(await a.open(), undefined);
    await a.save({ cursor: 'one' });
    await Promise.all([a.save({ cursor: 'two' }), a.save({ cursor: 'three' })]);
    const b = new StateFile<{ cursor: string }>(dir, 'smsgw-dlr.abc123', { kind: 'cursor' });
    assert.deepEqual(await b.open(), { cursor: 'three' });
    assert.deepEqual(readdirSync(path.join(dir, 'smsgw-state')), ['smsgw-dlr.abc123.json']);
  });

  it('a file of garbage reads as "no state" (copied aside, told); no userDir keeps the state in memory only', async () => {
    const told: string[] = [];
    const f = new StateFile<unknown>(dir, 't.x', { kind: 'cursor', onDamage: (d) => told.push(d.why) });
    await f.save({ ok: true });
    writeFileSync(f.file!, '{ half');
    const g = new StateFile<unknown>(dir, 't.x', { kind: 'cursor', onDamage: (d) => told.push(d.why) });
    assert.equal(await g.open(), undefined);
    assert.deepEqual(told, ['the file is cut short or damaged']);
    await g.flush();
    assert.ok(readdirSync(path.join(dir, 'smsgw-state')).some((n) => n.startsWith('t.x.json.damaged-')));
    const mem = new StateFile<unknown>(undefined, 't.x', { kind: 'cursor' });
    await mem.save({ a: 1 });
    assert.equal(await mem.open(), undefined);
    assert.equal(readFileSync(f.file!, 'utf8').includes('half'), false, 'written back as a sound file');
  });

  it('SeenIds keeps the newest ids up to its bound', () => {
    const seen = new SeenIds(['a', 'b'], 3);
    seen.add('c');
    seen.add('a'); // refreshed: now the newest
    seen.add('d');
    assert.deepEqual(seen.toJSON(), ['c', 'a', 'd']);
    assert.equal(seen.has('b'), false);
  });
});
