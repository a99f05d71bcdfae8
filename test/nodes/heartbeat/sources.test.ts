/**
 * The heartbeat node's sources on one instance (sources-local.ts) on a hand-moved clock and a real state file:
 * overdue once per quiet spell, back once, listed sources never seen, restarts (a clean stop and a kill -9 after
 * the output), a source that fell due while nothing ran, forget, the bound on sources, the gateway alarms.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Manifest, StateFile } from '../../../src/store';
import type { HeartbeatEvent, HeartbeatPlan } from '../../../src/nodes/heartbeat/sources';
import { LocalSources, SAVE_EVERY_MS, type HeartbeatFile } from '../../../src/nodes/heartbeat/sources-local';
import { flush, ManualClock } from '../ask/engine-harness';
import { readStateFile } from '../../store/read';

const MIN = 60_000;

interface Run {
  sources: LocalSources;
  /** Its own clock (a killed run's timers never fire again), set to the shared time at its start. */
  clock: ManualClock;
  events: HeartbeatEvent[];
  store: StateFile<HeartbeatFile>;
  /** A kill -9: nothing of it runs or is written any more. */
  kill(): void;
}

describe('nodes: heartbeat sources (one instance, state file)', () => {
  let dir: string;
  /** The time, carried from one run to the next (a run's clock starts at it). */
  let time: number;
  beforeEach(() => {
    Manifest.forgetAll();
    dir = mkdtempSync(path.join(tmpdir(), 'smsgw-heartbeat-'));
    time = new ManualClock().now();
    onDisk = [];
  });
  afterEach(function () {
    rmSync(dir, { recursive: true, force: true });
    if (this.currentTest?.state === 'passed')
      assert.ok(onDisk.every(Boolean), `every output noted on disk before it went: ${onDisk}`);
  });

  const plan = (over: Partial<HeartbeatPlan> = {}): HeartbeatPlan => ({
    everyMs: 5 * MIN,
    graceMs: MIN,
    listed: undefined,
    max: 10_000,
    ...over,
  });

  /** For each output, whether the state file said it went (an alarm noted, a back noted) when it was sent. */
  let onDisk: boolean[];
  /** The file as read for the outputs sent together (one batch is sent in one go: read once for it). */
  let read: HeartbeatFile | undefined;
  const notedOnDisk = (e: HeartbeatEvent): boolean => {
    if (!read) {
      read = readStateFile<HeartbeatFile>(path.join(dir, 'smsgw-state', 'smsgw-heartbeat.n1.json'));
      queueMicrotask(() => (read = undefined));
    }
    const file = read;
    const entry = e.type === 'overdue' || e.type === 'back' ? file.sources?.[e.source] : undefined;
    const alarm = e.type === 'gatewayDown' || e.type === 'gatewayBack' ? file.gateway?.[e.kind] : undefined;
    switch (e.type) {
      case 'overdue':
        return (entry as { over?: number } | undefined)?.over === e.overdueSince;
      case 'back':
        return entry !== undefined && (entry as { over?: number }).over === undefined;
      case 'gatewayDown':
        return alarm !== undefined;
      case 'gatewayBack':
        return alarm === undefined;
    }
  };

  /** A run of the node's sources; `events` collects what it emitted (nothing after a kill). */
  async function run(p: HeartbeatPlan = plan(), events: HeartbeatEvent[] = []): Promise<Run> {
    const store = new StateFile<HeartbeatFile>(dir, 'smsgw-heartbeat.n1', { kind: 'heartbeat' });
    const clock = new ManualClock();
    clock.t = time;
    let killed = false;
    const sources = new LocalSources(store, {
      plan: p,
      clock,
      changed: () => undefined,
      dropped: () => undefined,
      emit: (e) => {
        if (killed) return;
        // What a kill -9 at this instant leaves on disk already says the output went.
        onDisk.push(notedOnDisk(e));
        events.push(e);
      },
    });
    await sources.start();
    await flush();
    return {
      sources,
      clock,
      events,
      store,
      kill: () => {
        // Its clock is never moved again (no timer of it fires), and it is not closed (no last write).
        killed = true;
      },
    };
  }

  /** Waits for the writes under way (the file is what a kill -9 leaves). */
  const settled = async (r: Run): Promise<void> => {
    await flush();
    await r.store.flush();
    await flush();
  };

  /** Moves the clock on and waits for the writes it caused (an output waits for its note on disk). */
  const step = async (r: Run, ms: number): Promise<void> => {
    await r.clock.advance(ms);
    await settled(r);
    time = r.clock.now();
  };

  /** A kill -9 after what it wrote is on disk: a plain msg is written within SAVE_EVERY_MS, so that is waited for. */
  const killAfterSave = async (r: Run): Promise<void> => {
    await step(r, SAVE_EVERY_MS);
    r.kill();
    Manifest.forgetAll();
  };

  const kinds = (events: HeartbeatEvent[]): string[] =>
    events.map((e) => `${e.type}:${'source' in e ? e.source : e.kind}`);

  it('a source quiet for every + grace is overdue once; its next msg is back once; quiet again: overdue again', async () => {
    const r = await run();
    const t0 = r.clock.now();
    assert.equal(await r.sources.seen('freezer'), 'added');
    await step(r, 5 * MIN);
    assert.deepEqual(r.events, [], 'not before every + grace');
    await step(r, MIN + 1000);
    assert.deepEqual(kinds(r.events), ['overdue:freezer']);
    const overdue = r.events[0] as Extract<HeartbeatEvent, { type: 'overdue' }>;
    assert.deepEqual([overdue.lastSeen, overdue.overdueSince], [t0, t0 + 6 * MIN]);
    await step(r, 60 * MIN);
    assert.equal(r.events.length, 1, 'overdue once, however long it stays quiet');
    assert.deepEqual(r.sources.counts(), { watched: 1, overdue: 1, gateway: [] });

    const backAt = r.clock.now();
    assert.equal(await r.sources.seen('freezer'), 'back');
    assert.equal(await r.sources.seen('freezer'), 'watched');
    assert.deepEqual(kinds(r.events), ['overdue:freezer', 'back:freezer']);
    const back = r.events[1] as Extract<HeartbeatEvent, { type: 'back' }>;
    assert.deepEqual([back.lastSeen, back.overdueSince], [backAt, t0 + 6 * MIN]);
    assert.deepEqual(r.sources.counts(), { watched: 1, overdue: 0, gateway: [] });

    await step(r, 7 * MIN);
    assert.deepEqual(kinds(r.events), ['overdue:freezer', 'back:freezer', 'overdue:freezer']);
    await r.sources.close(false);
  });

  it('msgs within the period keep a source from being overdue; each source on its own', async () => {
    const r = await run();
    await r.sources.seen('a');
    await r.sources.seen('b');
    for (let i = 0; i < 10; i++) {
      await step(r, 4 * MIN);
      await r.sources.seen('a');
    }
    assert.deepEqual(kinds(r.events), ['overdue:b']);
    await r.sources.close(false);
  });

  it('listed sources are watched from the start: one that never reports is overdue (lastSeen undefined); others are not watched', async () => {
    const r = await run(plan({ listed: new Set(['home/freezer', 'home/fridge']) }));
    assert.deepEqual(r.sources.counts(), { watched: 2, overdue: 0, gateway: [] });
    assert.equal(await r.sources.seen('garage'), 'unlisted');
    await step(r, 3 * MIN);
    assert.equal(await r.sources.seen('home/fridge'), 'watched');
    await step(r, 3 * MIN + 1000);
    assert.deepEqual(kinds(r.events), ['overdue:home/freezer']);
    assert.equal((r.events[0] as { lastSeen?: number }).lastSeen, undefined);
    assert.deepEqual(r.sources.counts(), { watched: 2, overdue: 1, gateway: [] });
    await r.sources.close(false);
  });

  it('a clean restart: an alarm sent before is not sent again; its back still comes once', async () => {
    const first = await run();
    await first.sources.seen('freezer');
    await step(first, 7 * MIN);
    assert.deepEqual(kinds(first.events), ['overdue:freezer']);
    await first.sources.close(false);
    Manifest.forgetAll();

    const second = await run();
    await step(second, 60 * MIN);
    assert.deepEqual(kinds(second.events), [], 'no second overdue');
    assert.deepEqual(second.sources.counts(), { watched: 1, overdue: 1, gateway: [] });
    assert.equal(await second.sources.seen('freezer'), 'back');
    assert.deepEqual(kinds(second.events), ['back:freezer']);
    await second.sources.close(false);
  });

  it('a kill -9 right after the overdue output: not sent again after the restart (noted before it was sent)', async () => {
    const first = await run();
    await first.sources.seen('freezer');
    await step(first, 7 * MIN);
    assert.deepEqual(kinds(first.events), ['overdue:freezer']);
    // Killed the moment the output went: no wait for anything more to be written.
    first.kill();
    Manifest.forgetAll();

    const second = await run();
    await step(second, 60 * MIN);
    assert.deepEqual(kinds(second.events), []);
    await second.sources.seen('freezer');
    assert.deepEqual(kinds(second.events), ['back:freezer']);
    second.kill();
    Manifest.forgetAll();

    // The back too was noted before it went: a third run sends neither again, and watches it from its last msg.
    const third = await run();
    assert.deepEqual(third.sources.counts(), { watched: 1, overdue: 0, gateway: [] });
    await step(third, 60 * MIN);
    assert.deepEqual(kinds(third.events), ['overdue:freezer'], 'quiet again after the restart: overdue once');
    await third.sources.close(false);
  });

  it('overdue while nothing ran: once, one period after the restart, with overdueSince the time it fell due', async () => {
    const first = await run();
    const t0 = first.clock.now();
    await first.sources.seen('freezer');
    await first.sources.seen('fridge');
    await killAfterSave(first);
    // Down for an hour: both fell due meanwhile.
    time += 60 * MIN;

    const second = await run();
    const restartAt = second.clock.now();
    await step(second, 3 * MIN);
    assert.deepEqual(kinds(second.events), [], 'one more period first: the msgs could not arrive meanwhile');
    await second.sources.seen('fridge');
    await step(second, 3 * MIN + 1000);
    assert.deepEqual(
      kinds(second.events),
      ['overdue:freezer'],
      'the one that reported in time is not overdue',
    );
    const e = second.events[0] as Extract<HeartbeatEvent, { type: 'overdue' }>;
    assert.equal(e.overdueSince, t0 + 6 * MIN);
    assert.ok(restartAt + 6 * MIN <= second.clock.now());
    await step(second, 60 * MIN);
    assert.equal(second.events.filter((x) => x.type === 'overdue' && x.source === 'freezer').length, 1);
    await second.sources.close(false);
  });

  it('the extra period is given once: restarted again within it, the source is overdue at once', async () => {
    const first = await run();
    await first.sources.seen('freezer');
    await killAfterSave(first);
    time += 60 * MIN;
    const second = await run();
    await step(second, MIN);
    await killAfterSave(second);
    time += 60 * MIN;
    const third = await run();
    await step(third, 2000);
    assert.deepEqual(kinds(third.events), ['overdue:freezer']);
    await step(third, 60 * MIN);
    assert.equal(third.events.length, 1);
    await third.sources.close(false);
  });

  it('forget stops watching a source: no overdue, no back; a new msg watches it again', async () => {
    const r = await run();
    await r.sources.seen('a');
    await r.sources.seen('b');
    assert.equal(await r.sources.forget('a'), true);
    assert.equal(await r.sources.forget('nobody'), false);
    await step(r, 7 * MIN);
    assert.deepEqual(kinds(r.events), ['overdue:b']);
    assert.equal(await r.sources.forget('b'), true, 'an overdue source is forgotten too');
    assert.deepEqual(r.sources.counts(), { watched: 0, overdue: 0, gateway: [] });
    assert.equal(await r.sources.seen('b'), 'added', 'no back: it is new again');
    assert.deepEqual(kinds(r.events), ['overdue:b']);
    await r.sources.close(false);
  });

  it('at most `max` sources: one more is not watched until one is forgotten', async () => {
    const r = await run(plan({ max: 3 }));
    for (const s of ['a', 'b', 'c']) assert.equal(await r.sources.seen(s), 'added');
    assert.equal(await r.sources.seen('d'), 'full');
    assert.equal(await r.sources.seen('a'), 'watched', 'a known source is still watched');
    await r.sources.forget('b');
    assert.equal(await r.sources.seen('d'), 'added');
    assert.equal(r.sources.counts().watched, 3);
    await r.sources.close(false);
  });

  it('10,000 sources falling due together: each overdue once', async () => {
    const r = await run();
    for (let i = 0; i < 10_000; i++) await r.sources.seen(`s${i}`);
    await step(r, 7 * MIN);
    await settled(r);
    assert.equal(r.events.length, 10_000);
    assert.equal(new Set(r.events.map((e) => ('source' in e ? e.source : ''))).size, 10_000);
    await r.sources.close(false);
  });

  it('a gateway alarm is raised once and cleared once, also across a restart', async () => {
    const first = await run();
    const alarm = { since: first.clock.now(), failures: 3, code: 'NETWORK', message: 'down' };
    assert.equal(await first.sources.raise('calls', alarm), true);
    assert.equal(await first.sources.raise('calls', alarm), false);
    assert.equal(first.sources.raised('calls'), true);
    await killAfterSave(first);

    const second = await run();
    assert.equal(second.sources.raised('calls'), true, 'kept across the restart');
    assert.equal(await second.sources.raise('calls', alarm), false);
    assert.equal(await second.sources.clear('calls'), true);
    assert.equal(await second.sources.clear('calls'), false);
    assert.deepEqual(kinds([...first.events, ...second.events]), ['gatewayDown:calls', 'gatewayBack:calls']);
    await second.sources.close(false);
  });

  it('a deleted node takes its state file with it', async () => {
    const r = await run();
    await r.sources.seen('a');
    await r.sources.close(true);
    Manifest.forgetAll();
    const again = await run();
    assert.deepEqual(again.sources.counts(), { watched: 0, overdue: 0, gateway: [] });
    await again.sources.close(false);
  });
});
